import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { flushSearchIndexing, searchIndexRepository } from './indexing.ts';
import { compactionDue, PostingsCompaction } from './compaction.ts';
import { articleIndexOf, queryStems } from './article-index.ts';
import type { SearchIndexState } from '../store/repositories.ts';
import { testSql } from '../store/testing.ts';

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
