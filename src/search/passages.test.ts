import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { splitPassages, wordCount } from './passages.ts';
import { SHARED, SKIP_NO_SHARED } from '../../test/helpers.ts';

const regexCount = (s: string) => s.match(/\S+/g)?.length ?? 0;

test('wordCount counts what /\\S+/g matches, every Unicode space included', () => {
  const samples = [
    '',
    ' ',
    'one',
    ' two  words ',
    'a\tb\nc\rd\ve\ff',
    'x\u00a0y\u2003z\u3000w\ufeffv\u2028u',
    '日本語 テキスト',
    '😀 emoji\u202fthin\u205fmath',
    '\u1680lead',
  ];
  for (const s of samples) assert.equal(wordCount(s), regexCount(s), JSON.stringify(s));
  let all = '';
  for (let c = 0; c < 0x3100; c++) all += String.fromCharCode(c) + 'a';
  assert.equal(wordCount(all), regexCount(all));
});

test('passages stay within the word bounds on the news corpus', { skip: SKIP_NO_SHARED }, () => {
  const lines = gunzipSync(readFileSync(join(SHARED, 'corpus', 'news', 'articles.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, 300);
  let checked = 0;
  for (const line of lines) {
    const text = (JSON.parse(line) as { text?: string }).text;
    if (!text) continue;
    for (const p of splitPassages(text)) {
      assert.equal(wordCount(p), regexCount(p));
      assert.ok(wordCount(p) <= 150, `passage of ${wordCount(p)} words`);
    }
    checked++;
  }
  assert.ok(checked > 0);
});
