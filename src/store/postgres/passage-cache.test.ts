// The passage texts a PostgreSQL process keeps between answers (PassageCache) count against their
// budget as V8 stores them, so the budget holds as many articles as its memory allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassageCache } from './search-index.ts';

const held = (id: number, texts: string[]) => ({
  first: id,
  ids: texts.map((_, i) => id + i),
  ords: texts.map((_, i) => i),
  texts,
  words: texts.map(() => 1),
  checkedAt: 0,
});

test('held passages count one byte per character of a Latin-1 string, two otherwise, plus 32 per passage', () => {
  const cache = new PassageCache(1 << 20);
  cache.put(1, held(1, ['Zürich café', 'plain']));
  assert.equal(cache.bytes, 11 + 32 + 5 + 32);
  cache.put(2, held(10, ['it’s']));
  assert.equal(cache.bytes, 11 + 32 + 5 + 32 + 2 * 4 + 32);
  cache.drop(1);
  assert.equal(cache.bytes, 2 * 4 + 32);
});

test('past the budget the least recently searched articles leave first', () => {
  // An article takes at most a 16th of the budget: 16 of these fill it.
  const cache = new PassageCache(16 * (100 + 32));
  for (let id = 1; id <= 16; id++) cache.put(id, held(id * 100, ['x'.repeat(100)]));
  assert.ok(cache.get(1), 'searched again: now the most recent');
  cache.put(17, held(1700, ['y'.repeat(100)]));
  assert.equal(cache.get(2), undefined, 'the least recently searched left');
  assert.ok(cache.get(1) && cache.get(3) && cache.get(17));
  assert.equal(cache.bytes, 16 * (100 + 32));
});
