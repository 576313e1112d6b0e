// The candidates' passages a search scores (SearchIndexRepository.passageTexts), and the cited
// articles' texts (articleTexts), must be the stored ones, whatever the PostgreSQL repository keeps between searches (PassageCache in
// store/postgres/search-index.ts): after re-indexing, removal, concurrent reads, and with the rows
// a caller scored in place. Runs on both backends (TIDINGS_TEST_DATABASE_URL for PostgreSQL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { flushSearchIndexing, searchIndexRepository } from './indexing.ts';
import { testSql } from '../store/testing.ts';
import type { PassageMatch, SearchIndexRepository } from '../store/repositories.ts';
import type { App } from '../app.ts';

/** What the PostgreSQL repository reports of its last passage read (absent on SQLite). */
const readStats = (repo: SearchIndexRepository) =>
  (repo as unknown as { lastPassagesRead?: { sentItems: number; heldItems: number } }).lastPassagesRead;

const paragraphs = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<p>Paragraph ${i} on ${topic}. A second sentence adds filler words for length and one more clause.</p>`,
  ).join('\n');

/** The whole texts of these items as stored (title, url, passages joined), by id. */
async function storedTexts(app: App, ids: number[]): Promise<[number, { title: string; url: string; text: string }][]> {
  const out: [number, { title: string; url: string; text: string }][] = [];
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    const item = (await testSql(app).prepare('SELECT title, url FROM items WHERE id = ?').get(id)) as
      | { title: string; url: string | null }
      | undefined;
    if (!item) continue;
    const text = (await stored(app, [id])).map((p) => p.text).join('\n\n');
    out.push([id, { title: item.title, url: item.url ?? '', text }]);
  }
  return out;
}

/** Plain objects (SQLite's rows have no prototype), fields compared. */
const plain = (ps: PassageMatch[]) => ps.map((p) => ({ ...p }));

/** The passages of these items as stored, in the order passageTexts gives them. */
async function stored(app: App, ids: number[]): Promise<PassageMatch[]> {
  const out: PassageMatch[] = [];
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    const rows = await testSql(app)
      .prepare('SELECT id, item_id, ord, text, words FROM search_passages WHERE item_id = ? ORDER BY ord')
      .all(id);
    for (const r of rows as { id: number; item_id: number; ord: number; text: string; words: number }[])
      out.push({ passageId: r.id, itemId: r.item_id, ord: r.ord, text: r.text, words: r.words, score: 0 });
  }
  return out;
}

test('passages and article texts read for an answer are the stored ones after re-indexing, removal and scoring in place', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://passages.example/feed');
  const repo = searchIndexRepository(app);
  const [a, b, c] = await ingest(app, feed, [
    { url: 'https://passages.example/a', title: 'Glaciers', content: paragraphs('glaciers', 14) },
    { url: 'https://passages.example/b', title: 'Harbours', content: paragraphs('harbours', 6) },
    { url: 'https://passages.example/c', title: 'Short', content: '<p>One short passage.</p>' },
  ]);
  const ids = [c!, a!, b!, a!, 987_654_321];
  const first = await repo.passageTexts(ids);
  assert.ok(first.filter((p) => p.itemId === a).length >= 3, 'the long article has several passages');
  assert.deepEqual(plain(first), await stored(app, ids));
  // Callers score the rows in place (local-provider.ts): what they did must not come back.
  for (const p of first) p.score = 7;
  assert.deepEqual(plain(await repo.passageTexts(ids)), await stored(app, ids));
  if (readStats(repo)) assert.deepEqual(readStats(repo), { sentItems: 0, heldItems: 3 }, 'all three held');

  // Re-indexed: new passages (new ids, other text and count) replace the old ones.
  await testSql(app).prepare('UPDATE items SET content = ? WHERE id = ?').run(paragraphs('icebergs', 9), a!);
  app.notifyItemChanges({ added: [], updated: [a!], deleted: [] });
  await flushSearchIndexing(app);
  const after = await repo.passageTexts(ids);
  assert.deepEqual(plain(after), await stored(app, ids));
  assert.match(after.find((p) => p.itemId === a)!.text, /icebergs/);
  if (readStats(repo)) assert.deepEqual(readStats(repo), { sentItems: 1, heldItems: 2 }, 'only the changed one sent');
  // The cited articles' texts (held by the search's read) follow too.
  assert.deepEqual([...(await repo.articleTexts(ids))], await storedTexts(app, ids));

  // Two reads at once, one of them after another change: each gets what was stored when it read.
  await testSql(app).prepare('UPDATE items SET content = ? WHERE id = ?').run(paragraphs('moraines', 4), b!);
  app.notifyItemChanges({ added: [], updated: [b!], deleted: [] });
  await flushSearchIndexing(app);
  const [x, y] = await Promise.all([repo.passageTexts(ids), repo.passageTexts([b!, c!])]);
  assert.deepEqual(plain(x), await stored(app, ids));
  assert.deepEqual(plain(y), await stored(app, [b!, c!]));
  assert.deepEqual([...(await repo.articleTexts(ids))], await storedTexts(app, ids));

  // Removed: its passages are gone from the read, though they were held.
  await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(c!);
  app.notifyItemChanges({ added: [], updated: [], deleted: [c!] });
  await flushSearchIndexing(app);
  const gone = await repo.passageTexts(ids);
  assert.ok(!gone.some((p) => p.itemId === c));
  assert.deepEqual(plain(gone), await stored(app, ids));
  assert.deepEqual([...(await repo.articleTexts(ids))], await storedTexts(app, ids));
  assert.deepEqual([...(await repo.articleTexts([a!, b!]))], await storedTexts(app, [a!, b!]), 'held, unchanged');
  assert.deepEqual(await repo.passageTexts([]), []);
});
