// The candidates' passages a search scores (SearchIndexRepository.passageTexts), and the cited
// articles' texts (articleTexts), must be the stored ones, whatever the PostgreSQL repository keeps between searches (PassageCache in
// store/postgres/search-index.ts): after re-indexing, removal, concurrent reads, and with the rows
// a caller scored in place. Runs on both backends (TIDINGS_TEST_DATABASE_URL for PostgreSQL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { flushSearchIndexing, searchIndexRepository } from './indexing.ts';
import { signalMovedPast as movedPast, signalSteady as steady, testSql } from '../store/testing.ts';
import type { PassageMatch, SearchArticleMeta, SearchIndexRepository } from '../store/repositories.ts';
import { createApp } from '../server/create-app.ts';
import type { App } from '../runtime/app.ts';
import { loadConfig } from '../config/config.ts';
import { TEST_DATABASE_URL, tempDataDir } from '../../test/helpers.ts';

/** What the PostgreSQL repository reports of its last reads (absent on SQLite). */
interface PgReadStats {
  lastPassagesRead?: { sentItems: number; heldItems: number; trustedItems: number };
  lastPostingsRead?: { sentBytes: number; heldBytes: number; asked: boolean };
  lastArticlesAsked?: boolean;
}
const pgStats = (repo: SearchIndexRepository) => repo as unknown as PgReadStats;
/** Articles of the last passage read sent by the database and taken from memory (checked or not). */
const readStats = (repo: SearchIndexRepository) => {
  const s = pgStats(repo).lastPassagesRead;
  return s && { sentItems: s.sentItems, heldItems: s.heldItems };
};

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

test('held passages, postings and metadata are used without asking while nothing changes; a change by another process is read once its notification arrives', async (t) => {
  // Two Apps on one database, as two processes (`tidings serve --workers 2`): A answers, B writes.
  const dataDir = tempDataDir('tidings-held-');
  const open = () => createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }));
  const a = await open();
  const b = await open();
  t.after(async () => {
    await a.close();
    await b.close();
  });
  const feed = await addFeed(b, 'https://held.example/feed');
  const [x, y] = await ingest(b, feed, [
    { url: 'https://held.example/x', title: 'Glaciers', content: paragraphs('glaciers', 8) },
    { url: 'https://held.example/y', title: 'Harbours', content: paragraphs('harbours', 5) },
  ]);
  const ids = [x!, y!];
  const repo = searchIndexRepository(a);
  const pg = pgStats(repo).lastPassagesRead ? pgStats(repo) : undefined;
  const terms = ['glacier', 'harbour', 'iceberg', 'nosuchterm'];
  const meta = async () =>
    (await repo.articles(ids)).map((m) => ({ ...m })).sort((p, q) => p.id - q.id) as SearchArticleMeta[];
  const postingsHex = async (r: SearchIndexRepository) =>
    [...(await r.postingsOf(terms))]
      .map(([term, p]) => [term, p.count, p.chunks.map((c) => Buffer.from(c).toString('hex'))] as const)
      .sort((p, q) => (p[0] < q[0] ? -1 : 1));
  // postings(term) reads the table every time, on both backends.
  const storedPostings = async () => {
    const out = [];
    for (const term of [...terms].sort()) {
      const p = await repo.postings(term);
      if (p.chunks.length) out.push([term, p.count, p.chunks.map((c) => Buffer.from(c).toString('hex'))] as const);
    }
    return out;
  };
  const check = async (what: string) => {
    assert.deepEqual(plain(await repo.passageTexts(ids)), await stored(b, ids), `${what}: passages`);
    assert.deepEqual(await postingsHex(repo), await storedPostings(), `${what}: postings`);
    const m = await meta();
    assert.deepEqual(
      m.map((r) => [r.id, r.title, r.url, r.imageUrl]),
      (
        await testSql(b)
          .prepare("SELECT id, title, coalesce(url, '') AS url, image_url FROM items WHERE id IN (?, ?) ORDER BY id")
          .all(x!, y!)
      ).map((r) => {
        const row = r as { id: number; title: string; url: string; image_url: string | null };
        return [Number(row.id), row.title, row.url, row.image_url];
      }),
      `${what}: metadata`,
    );
    assert.deepEqual([...(await repo.articleTexts(ids))], await storedTexts(b, ids), `${what}: article texts`);
  };

  await steady(a);
  await check('first read');
  await check('again, nothing changed');
  if (pg) {
    // The second round asked the database nothing (before: 4 statements for these 4 reads).
    await repo.passageTexts(ids);
    assert.deepEqual(pg.lastPassagesRead, { sentItems: 0, heldItems: 2, trustedItems: 2 });
    await repo.postingsOf(terms);
    assert.equal(pg.lastPostingsRead!.asked, false, 'postings: no round trip');
    await repo.articles(ids);
    assert.equal(pg.lastArticlesAsked, false, 'metadata: no round trip');
    await repo.articleTexts(ids);
    assert.equal(pg.lastArticlesAsked, false, 'article texts: no round trip');
  }

  // B re-indexes x with other text (new passages and postings) and retitles it.
  let g = a.store.changes.generation();
  await testSql(b)
    .prepare('UPDATE items SET content = ?, title = ? WHERE id = ?')
    .run(paragraphs('icebergs', 6), 'Icebergs', x!);
  b.notifyItemChanges({ added: [], updated: [x!], deleted: [] });
  await flushSearchIndexing(b);
  await movedPast(a, g, 're-indexed by another process');
  await check('re-indexed elsewhere');
  assert.match((await repo.passageTexts([x!]))[0]!.text, /icebergs/);

  // A process that holds nothing yet: the search's metadata read comes with its passage read.
  const c = await open();
  t.after(async () => c.close());
  const fresh = searchIndexRepository(c);
  await steady(c);
  assert.deepEqual(plain(await fresh.passageTexts(ids)), await stored(b, ids));
  const m = (await fresh.articles(ids)).map((r) => [r.id, r.title]).sort((p, q) => Number(p[0]) - Number(q[0]));
  assert.deepEqual(m, [
    [x, 'Icebergs'],
    [y, 'Harbours'],
  ]);
  if (pg) assert.equal(pgStats(fresh).lastArticlesAsked, false, 'metadata read along with the passages');

  // Only the image changes (no other trigger watches it: migration 125).
  await steady(a);
  await check('settled');
  g = a.store.changes.generation();
  await testSql(b).prepare('UPDATE items SET image_url = ? WHERE id = ?').run('https://held.example/y.png', y!);
  await movedPast(a, g, 'image changed by another process');
  await check('image changed elsewhere');
  assert.equal((await meta()).find((m) => m.id === y)!.imageUrl, 'https://held.example/y.png');

  // Removed by B: gone from every read here.
  await steady(a);
  await check('settled again');
  g = a.store.changes.generation();
  await testSql(b).prepare('DELETE FROM items WHERE id = ?').run(y!);
  b.notifyItemChanges({ added: [], updated: [], deleted: [y!] });
  await flushSearchIndexing(b);
  await movedPast(a, g, 'removed by another process');
  assert.ok(!(await repo.passageTexts(ids)).some((p) => p.itemId === y));
  assert.ok(!(await repo.articles(ids)).some((m) => m.id === y));
  assert.ok(!(await repo.articleTexts(ids)).has(y!));
  await check('removed elsewhere');
});

test('on SQLite the cited articles come from the search that just read them, and from the database once anything changed', async (t) => {
  // An answer reads its candidates' passages, its hits' metadata, then its cited articles' texts:
  // the SQLite repository builds the third from the first two while the change signal stays.
  const app = await testApp();
  t.after(async () => app.close());
  const repo = searchIndexRepository(app) as SearchIndexRepository & { lastArticleTextsAsked?: boolean };
  if (TEST_DATABASE_URL) {
    t.skip('PostgreSQL keeps its own passage cache (the test above)');
    return;
  }
  const feed = await addFeed(app, 'https://cited.example/feed');
  const [a, b, c] = await ingest(app, feed, [
    { url: 'https://cited.example/a', title: 'Glaciers', content: paragraphs('glaciers', 9) },
    { url: 'https://cited.example/b', title: 'Harbours', content: paragraphs('harbours', 4) },
    { url: 'https://cited.example/c', title: 'Moraines', content: paragraphs('moraines', 2) },
  ]);
  const read = async (ids: number[]) => {
    await repo.passageTexts(ids);
    await repo.articles(ids);
  };
  await steady(app);
  await read([c!, a!, b!]);
  // Made by a constructor, not an object literal: V8 moves a literal's allocation site whose
  // objects outlive young collections to the old generation, and the young passage texts those
  // old objects point to were then promoted at every scavenge (store/sqlite/search-index.ts).
  const rows = await repo.passageTexts([a!]);
  assert.ok(rows.length > 1);
  for (const r of rows) assert.notEqual(Object.getPrototypeOf(r), Object.prototype);
  await read([c!, a!, b!]);
  const cited = [b!, a!, b!];
  assert.deepEqual([...(await repo.articleTexts(cited))], await storedTexts(app, cited));
  assert.equal(repo.lastArticleTextsAsked, false, 'built from the last reads');
  // The held rows serve one call: a second is asked (and right), and the rows are not kept.
  assert.deepEqual([...(await repo.articleTexts(cited))], await storedTexts(app, cited));
  assert.equal(repo.lastArticleTextsAsked, true, 'the reads served the call before');
  assert.equal((repo as unknown as { lastPassages?: unknown }).lastPassages, undefined, 'the rows are dropped');

  // Passages of one article (between the others' ids) with the metadata of three: only that one
  // is built from the reads; the others are asked, and an empty passage read drops what it held.
  await repo.passageTexts([b!]);
  await repo.articles([c!, a!, b!]);
  assert.deepEqual([...(await repo.articleTexts([b!]))], await storedTexts(app, [b!]));
  assert.equal(repo.lastArticleTextsAsked, false, 'the one article read');
  for (const id of [a!, c!]) {
    assert.deepEqual([...(await repo.articleTexts([id, b!]))], await storedTexts(app, [id, b!]));
    assert.equal(repo.lastArticleTextsAsked, true, 'passages not read');
  }
  await repo.passageTexts([]);
  assert.deepEqual([...(await repo.articleTexts([b!]))], await storedTexts(app, [b!]));
  assert.equal(repo.lastArticleTextsAsked, true, 'the last passage read was empty');

  // An article the last reads did not hold: asked, and right.
  await read([a!]);
  assert.deepEqual([...(await repo.articleTexts([a!, b!]))], await storedTexts(app, [a!, b!]));
  assert.equal(repo.lastArticleTextsAsked, true);

  // Retitled and re-indexed after the reads: the change signal moved, so the texts are read again.
  await read([a!, b!, c!]);
  const g = app.store.changes.generation();
  await testSql(app)
    .prepare('UPDATE items SET title = ?, content = ? WHERE id = ?')
    .run('Icebergs', paragraphs('icebergs', 3), a!);
  app.notifyItemChanges({ added: [], updated: [a!], deleted: [] });
  await flushSearchIndexing(app);
  assert.notEqual(app.store.changes.generation(), g);
  const after = await repo.articleTexts([a!, c!]);
  assert.equal(repo.lastArticleTextsAsked, true, 'changed since the reads');
  assert.deepEqual([...after], await storedTexts(app, [a!, c!]));
  assert.equal(after.get(a!)!.title, 'Icebergs');
  assert.match(after.get(a!)!.text, /icebergs/);
  assert.equal(after.get(c!)!.title, 'Moraines');
});
