import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { flushSearchIndexing, searchIndexRepository } from './indexing.ts';
import { compactionDue, PostingsCompaction } from './compaction.ts';
import { articleIndexOf, queryStems } from './article-index.ts';
import type { SearchIndexState } from '../store/repositories.ts';
import { testSql } from '../store/testing.ts';
import { PostingsBuffer } from './postings.ts';
import { indexTerms } from './tokenizer.ts';

const scoring = { weights: { title: 3, body: 1, url: 0 }, k1: 1.2, b: 0.75, delta: 1 };
const everywhere = { scope: { kind: 'instance' as const } };

test('compaction drops the postings of replaced and removed articles and changes no result', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://compact.example/feed');
  // Enough postings per term that they span several chunks.
  const body = (i: number) => `<p>${'tide harbour '.repeat(40)} vessel${i % 7} ${i % 3 ? 'storm' : 'calm'} report.</p>`;
  const ids = await ingest(
    app,
    feed,
    Array.from({ length: 900 }, (_, i) => ({
      url: `https://compact.example/${i}`,
      title: `Harbour log ${i}`,
      content: body(i),
    })),
  );
  // Edits re-index 300 articles under new numbers; 200 more are deleted.
  for (const id of ids.slice(0, 300))
    await testSql(app).prepare('UPDATE items SET content = ? WHERE id = ?').run('<p>tide harbour storm edited</p>', id);
  app.notifyItemChanges({ added: [], updated: ids.slice(0, 300), deleted: [] });
  for (const id of ids.slice(300, 500)) await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(id);
  app.notifyItemChanges({ added: [], updated: [], deleted: ids.slice(300, 500) });
  await flushSearchIndexing(app);
  const repo = searchIndexRepository(app);
  const index = articleIndexOf(repo);
  const queries = [['storm', 'harbour'], ['calm', 'vessel3'], ['edited'], ['tide']].map((w) => queryStems(w));
  const before = [];
  for (const q of queries) before.push(await index.search(q, everywhere, 30, scoring));
  // A term whose stored postings outnumber the articles (old versions count until compacted)
  // must still score: its document frequency is capped, not turned into a NaN idf.
  assert.ok(
    before.every((b) => b.length > 0),
    'every query finds articles before compaction',
  );
  const postingsBefore = (await repo.postings('harbour')).count;
  assert.equal(postingsBefore, 900 + 300, 'old and new versions both have postings');

  // Small chunks, so the rewrite has to split a term's postings.
  const smallChunks = Object.create(repo, { chunkBytes: { value: 512 } }) as typeof repo;
  const compaction = await PostingsCompaction.start(smallChunks);
  let steps = 0;
  while (!(await app.store.transaction(() => compaction.step(2)))) steps++;
  assert.ok(steps > 2, 'done in several small steps');
  assert.equal((await repo.postings('harbour')).count, 700, 'one posting per current article');
  assert.ok((await repo.postings('harbour')).chunks.length > 3, 'split into several chunks');
  assert.ok(compaction.dropped >= 500);
  assert.equal((await repo.state()).compactedRemoved, (await repo.state()).removed);
  for (const c of (await repo.postings('harbour')).chunks)
    assert.ok(c.length <= 512, `chunks stay within the chunk size (${c.length})`);
  // Same articles in the same order; only idf moved (document frequencies are exact now).
  const after = [];
  for (const q of queries) after.push(await index.search(q, everywhere, 30, scoring));
  for (let i = 0; i < queries.length; i++) {
    assert.deepEqual(new Set(after[i]!.map((m) => m.itemId)), new Set(before[i]!.map((m) => m.itemId)), `query ${i}`);
  }
  // Indexing goes on appending after a compaction.
  const [late] = await ingest(app, feed, [
    { url: 'https://compact.example/late', title: 'Late harbour note', content: '<p>Fog.</p>' },
  ]);
  assert.equal((await repo.postings('harbour')).count, 701);
  assert.equal((await index.search(queryStems(['fog']), everywhere, 5, scoring))[0]?.itemId, late);
});

test('a compaction is due once removals since the last one pass a fifth of the articles (and at least the minimum)', async () => {
  const state = (articles: number, removed: number, compactedRemoved = 0, rebuildAfter: number | null = null) =>
    ({ articles, removed, compactedRemoved, rebuildAfter }) as SearchIndexState;
  assert.equal(compactionDue(state(10_000, 1_999)), false);
  assert.equal(compactionDue(state(10_000, 2_001)), true);
  assert.equal(compactionDue(state(10_000, 4_000, 2_500)), false, 'counted from the last compaction');
  assert.equal(compactionDue(state(100, 900)), false, 'small indexes wait for the minimum');
  assert.equal(compactionDue(state(100, 900), 500), true);
  assert.equal(compactionDue(state(10_000, 5_000, 0, 0)), false, 'not during a rebuild');
});

test('the app compacts in the background once removals pile up, while searches go on', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://busy.example/feed');
  const ids = await ingest(
    app,
    feed,
    Array.from({ length: 1200 }, (_, i) => ({
      url: `https://busy.example/${i}`,
      title: `Market ${i}`,
      content: `<p>Prices at stall ${i} rose.</p>`,
    })),
  );
  // One transaction: a background drain must not index part of the changes before the rest.
  await app.store.transaction(async () => {
    for (const id of ids)
      await testSql(app).prepare('UPDATE items SET content = ? WHERE id = ?').run('<p>Prices fell everywhere.</p>', id);
  });
  app.notifyItemChanges({ added: [], updated: ids, deleted: [] });
  await flushSearchIndexing(app);
  const repo = searchIndexRepository(app);
  for (let i = 0; i < 2000 && (await repo.state()).compactedRemoved === 0; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal((await repo.state()).compactedRemoved, 1200, 'the compaction ran');
  assert.equal((await repo.postings('price')).count, 1200, 'one posting per current article');
  assert.equal((await repo.postings('stall')).count, 0, 'words only the old versions had are gone');
});

test('a term whose postings span many appended chunks reads back complete and in order, before and after compaction; on PostgreSQL its chunks stay inline and updates in place', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://walrus.example/feed');
  // 2,000 articles in four drain batches of 500: 'walrus' gets a segment per batch, appended to
  // its last chunk until that is full, then a new chunk (about 3 bytes a posting: 6 KB in all).
  const ids = await ingest(
    app,
    feed,
    Array.from({ length: 2000 }, (_, i) => ({
      url: `https://walrus.example/${i}`,
      title: `Count ${i}`,
      content: `<p>A walrus number ${i} on the ice.</p>`,
    })),
  );
  const repo = searchIndexRepository(app);
  const walrus = async () => {
    const { chunks, count } = await repo.postings(indexTerms('walrus')[0]!);
    const docs: number[] = [];
    const b = new PostingsBuffer();
    for (const c of chunks) for (let i = 0, n = b.decode(c); i < n; i++) docs.push(b.docs[i]!);
    return { sizes: chunks.map((c) => c.length), count, docs };
  };
  const liveDocs = async () =>
    (await testSql(app).prepare('SELECT doc_no AS d FROM search_articles ORDER BY doc_no').all<{ d: number }>()).map(
      (r) => Number(r.d),
    );
  const before = await walrus();
  assert.equal(before.count, 2000);
  assert.deepEqual(before.docs, await liveDocs(), 'every article once, in document order');
  assert.ok(
    before.sizes.every((n) => n <= repo.chunkBytes),
    `chunks within ${repo.chunkBytes} bytes: ${before.sizes}`,
  );
  if (app.store.backend === 'postgres') {
    assert.ok(before.sizes.length >= 3, `spans several chunks: ${before.sizes}`);
    // Under the TOAST threshold, so an append rewrites the row within its page (migration 165).
    assert.ok(repo.chunkBytes <= 1900);
    const table = (await testSql(app)
      .prepare(`SELECT c.reloptions::text AS options, pg_relation_size(c.reltoastrelid) AS toast
        FROM pg_class c WHERE c.relname = 'search_postings'`)
      .get<{ options: string; toast: number }>())!;
    assert.match(table.options, /fillfactor=60/);
    assert.equal(Number(table.toast), 0, 'no chunk stored out of line');
  }
  // Half the articles removed, then compacted: the others' postings, still complete and in order.
  for (const id of ids.filter((_, i) => i % 2)) await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(id);
  const compaction = await PostingsCompaction.start(repo);
  while (
    !(await app.store.transaction(async () => {
      await repo.lockForWriting();
      return compaction.step();
    }))
  );
  const after = await walrus();
  assert.equal(after.count, 1000);
  assert.deepEqual(after.docs, await liveDocs());
  assert.ok(after.sizes.every((n) => n <= repo.chunkBytes));
  // Appends go on after the compaction's chunks.
  await ingest(app, feed, [{ url: 'https://walrus.example/late', title: 'Late', content: '<p>One more walrus.</p>' }]);
  const later = await walrus();
  assert.equal(later.count, 1001);
  assert.deepEqual(later.docs, await liveDocs());
});
