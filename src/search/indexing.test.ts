import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, addUser, ingest, insertItem, subscribe, testApp } from './testing/fixtures.ts';
import { searchService } from './service.ts';
import {
  BacklogDrain,
  drainBatch,
  finishPendingRebuild,
  flushSearchIndexing,
  PrepareAhead,
  REINDEX_BATCH,
  reindexAll,
  searchIndexRepository,
} from './indexing.ts';
import { PostingsBuffer } from './postings.ts';
import { prepareItem } from './prepare.ts';
import { PrepareThread } from './prepare-thread.ts';
import { indexTerms } from './tokenizer.ts';
import type { SearchQuery } from './types.ts';
import { seenAfterOtherCommit, testSql } from '../store/testing.ts';
import type { ParsedEntry } from '../model/parsed-feed.ts';

const instance = (text: string, limit = 10): SearchQuery => ({ text, scope: { kind: 'instance' }, filters: {}, limit });

const longArticle = (topic: string) =>
  Array.from(
    { length: 12 },
    (_, i) =>
      `<p>Paragraph ${i} about ${topic}. It has a second sentence with filler words for length and one more clause here.</p>`,
  ).join('\n');

test('items reported by notifyItemChanges are indexed as passages and found by search', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://news.example.com/feed', 'Example News');
  const [volcano, budget] = await ingest(app, feed, [
    {
      url: 'https://news.example.com/volcano',
      title: 'Volcano erupts in Iceland',
      content: longArticle('the eruption near Grindavik &amp; lava flows'),
    },
    {
      url: 'https://news.example.com/budget',
      title: 'Parliament passes budget',
      content: '<p>The budget vote was close.</p>',
    },
  ]);
  const repo = searchIndexRepository(app);
  assert.ok((await repo.passageCount()) >= 3, 'the long article is split into several passages');
  const hits = await searchService(app).search(instance('Where did the lava eruption happen?'));
  assert.equal(hits[0]?.itemId, volcano);
  assert.equal(hits[0]?.url, 'https://news.example.com/volcano');
  assert.equal(hits[0]?.sourceName, 'Example News');
  assert.equal(hits[0]?.origin, 'local');
  assert.match(hits[0]!.passages[0]!.text, /eruption near Grindavik & lava/);
  // Hits and their passages are made by constructors, not object literals: V8 had pretenured the
  // literal (a hit lives through the answer), whose young strings then outlived every scavenge.
  assert.notEqual(Object.getPrototypeOf(hits[0]), Object.prototype);
  assert.notEqual(Object.getPrototypeOf(hits[0]!.passages[0]), Object.prototype);
  assert.deepEqual(
    Object.keys(hits[0]!),
    ['itemId', 'url', 'title', 'sourceName', 'publishedAt', 'updatedAt', 'passages', 'score', 'imageUrl', 'origin'],
    "the literal's fields, in its order",
  );
  assert.ok(!hits.some((h) => h.title === 'Parliament passes budget'));
  // Several articles in one read, each whole and in reading order; an id no longer stored is absent.
  const texts = await searchService(app).articleTexts([budget!, volcano!, 987_654_321]);
  assert.deepEqual([...texts.keys()].sort(), [volcano!, budget!].sort());
  const text = texts.get(volcano!)!;
  assert.equal(text.title, 'Volcano erupts in Iceland');
  assert.equal(text.url, 'https://news.example.com/volcano');
  assert.match(text.text, /^[\s\S]*Paragraph 0 about[\s\S]*Paragraph 1 about[\s\S]*Paragraph 11 about/);
  const passages = (await repo.passageTexts([volcano!])).map((p) => p.text);
  assert.equal(text.text, passages.join('\n\n'), 'the passages in order, joined by blank lines');
  assert.equal(texts.get(budget!)!.text, 'The budget vote was close.');
  assert.deepEqual(await searchService(app).articleTexts([]), new Map());
});

test('an updated item replaces its passages; a deleted item leaves the index', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://a.example/feed');
  const [id] = await ingest(app, feed, [
    { url: 'https://a.example/1', title: 'Draft', content: '<p>Quarterly earnings of the zeppelin company.</p>' },
  ]);
  const svc = searchService(app);
  assert.equal((await svc.search(instance('zeppelin earnings'))).length, 1);

  await testSql(app)
    .prepare('UPDATE items SET title = ?, content = ? WHERE id = ?')
    .run('Final', '<p>Submarine tourism is booming.</p>', id!);
  app.notifyItemChanges({ added: [], updated: [id!], deleted: [] });
  assert.equal((await svc.search(instance('zeppelin earnings'))).length, 0, 'old words are gone');
  const hits = await svc.search(instance('submarine tourism'));
  assert.equal(hits.length, 1);
  assert.equal(hits[0]!.title, 'Final');
  assert.equal(await searchIndexRepository(app).passageCount(), 1);

  await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(id!);
  app.notifyItemChanges({ added: [], updated: [], deleted: [id!] });
  assert.equal((await svc.search(instance('submarine tourism'))).length, 0);
  assert.equal(await searchIndexRepository(app).passageCount(), 0);
  const state = await searchIndexRepository(app).state();
  assert.equal(state.articles, 0, 'the article row is gone');
  assert.equal(state.bodyLength, 0, 'and the length totals the ranking uses follow');
  assert.equal(state.removed, 2, 'the update replaced one version, the delete removed the other');
});

test('deleting a feed cascades to its passages and article rows, and the counters follow', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://gone.example/feed');
  await ingest(app, feed, [
    { url: 'https://gone.example/1', title: 'Walrus census', content: '<p>The walrus population grew.</p>' },
  ]);
  await testSql(app).prepare('DELETE FROM feeds WHERE id = ?').run(feed);
  assert.equal(await searchIndexRepository(app).passageCount(), 0);
  assert.equal((await searchIndexRepository(app).state()).articles, 0);
  assert.equal((await searchService(app).search(instance('walrus census'))).length, 0);
});

test('reindexAll rebuilds the index from the items table', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const user = await addUser(app, 'ann');
  const feed = await addFeed(app, 'https://b.example/feed');
  await subscribe(app, user, feed);
  await ingest(app, feed, [
    { url: 'https://b.example/1', title: 'Glacier retreat', content: longArticle('glaciers melting') },
    { url: 'https://b.example/2', title: 'Coral bleaching', content: '<p>Reefs are bleaching.</p>' },
  ]);
  const repo = searchIndexRepository(app);
  const before = await repo.passageCount();
  await testSql(app).exec('DELETE FROM search_passages');
  assert.equal(await repo.passageCount(), 0);
  const out = await reindexAll(app, { batchSize: 1 });
  assert.deepEqual(out, { items: 2, passages: before });
  const hits = await searchService(app).search({
    text: 'coral reefs',
    scope: { kind: 'subscriptions', userId: user },
    filters: {},
    limit: 5,
  });
  assert.equal(hits[0]!.url, 'https://b.example/2');
});

test('a rebuild on PostgreSQL empties the index leaving no rows to vacuum, and its batches are planned on statistics with rows', async (t) => {
  // A second `tidings search reindex` in one process passed the 60 s statement timeout in the
  // postings statement: the previous rebuild's DELETE left every index row dead, autovacuum then
  // analyzed the emptied tables, and the pool's connections (force_generic_plan) planned the
  // append against a table taken for empty: a nested loop over every term's last chunk per term
  // of the batch (bench/search-rebuild-repeat.bench.ts). Checked on the catalog, not on time.
  const app = await testApp();
  t.after(async () => app.close());
  if (app.store.backend !== 'postgres') {
    t.skip('PostgreSQL: table sizes and planner statistics');
    return;
  }
  const feed = await addFeed(app, 'https://rb.example/feed');
  await app.store.transaction(async () => {
    for (let i = 0; i < 40; i++)
      await insertItem(app, feed, {
        url: `https://rb.example/${i}`,
        title: `Lighthouse ${i}`,
        content: `<p>The lighthouse keeper counted ${i} gulls over the harbour.</p>`,
      });
  });
  await flushSearchIndexing(app);
  const sql = testSql(app);
  const tables = ['search_postings', 'search_articles', 'search_passages'];
  const sizes = async () =>
    Promise.all(
      tables.map(
        async (table) => (await sql.prepare('SELECT pg_relation_size(?::regclass) AS n').get<{ n: number }>(table))!.n,
      ),
    );
  assert.ok((await sizes()).every((n) => Number(n) > 0));
  const repo = searchIndexRepository(app);
  await app.store.transaction(async () => {
    await repo.lockForWriting();
    await repo.deleteAll();
  });
  // A DELETE leaves the tables' pages full of dead rows until a vacuum; emptied as a whole they have none.
  assert.deepEqual((await sizes()).map(Number), [0, 0, 0]);
  // What autovacuum does once it reaches the emptied tables: statistics of empty tables.
  for (const table of tables) await sql.exec(`VACUUM ANALYZE ${table}`);
  const reltuples = async () =>
    Number(
      (await sql
        .prepare("SELECT reltuples FROM pg_class WHERE relname = 'search_postings'")
        .get<{ reltuples: number }>())!.reltuples,
    );
  assert.equal(await reltuples(), 0);
  assert.equal(await finishPendingRebuild(app), 40);
  assert.ok((await reltuples()) > 0, 'the first batch of the rebuild took statistics of the postings it wrote');
  assert.equal((await searchService(app).search(instance('lighthouse gulls 17', 1)))[0]?.url, 'https://rb.example/17');
});

test('on PostgreSQL a search in another process while a rebuild empties the index waits for it, then sees the rebuild', async (t) => {
  // The emptying TRUNCATEs (exclusive lock until it commits): a search then must neither fail nor
  // see half an index, and finds the articles again once the rebuild has indexed them.
  const a = await testApp();
  t.after(async () => a.close());
  if (a.store.backend !== 'postgres') {
    t.skip('PostgreSQL: table locks between processes');
    return;
  }
  const b = await testApp({ dataDir: a.config.dataDir });
  t.after(async () => b.close());
  const feed = await addFeed(a, 'https://tr.example/feed');
  await insertItem(a, feed, {
    url: 'https://tr.example/1',
    title: 'Kelp forest',
    content: '<p>Otters in the kelp.</p>',
  });
  await flushSearchIndexing(a);
  assert.equal((await searchService(b).search(instance('kelp otters', 1)))[0]?.url, 'https://tr.example/1');
  let searched: Promise<unknown> | undefined;
  let settled = false;
  let settledBeforeCommit = true;
  await a.store.transaction(async () => {
    const repo = searchIndexRepository(a);
    await repo.lockForWriting();
    await repo.deleteAll();
    searched = searchService(b).search(instance('kelp otters', 1));
    searched.then(
      () => (settled = true),
      () => (settled = true),
    );
    // A round trip of b's own that does not touch the index, so its search has reached the tables.
    await testSql(b).prepare('SELECT pg_sleep(0.3)').get();
    // Read here, before COMMIT is sent: once it is, b's answer and the COMMIT's reply race to
    // this process, and a flag read after the transaction saw either order.
    settledBeforeCommit = settled;
  });
  assert.equal(settledBeforeCommit, false, 'the search waited for the emptying to commit');
  assert.deepEqual(await searched, []);
  await finishPendingRebuild(a);
  // Process a's rebuild reaches b's held search state at its commit: on PostgreSQL with its
  // notification, which a loaded machine can deliver after b's next search.
  const found = await seenAfterOtherCommit(
    b,
    async () => (await searchService(b).search(instance('kelp otters', 1)))[0]?.url,
    (url) => url !== undefined,
  );
  assert.equal(found, 'https://tr.example/1');
});

test('a rebuild in bulk batches writes the postings the drain wrote, a term past the chunk size included', async (t) => {
  // `tidings search reindex` indexes REINDEX_BATCH items a transaction: a common term's segment
  // can then pass the chunk size (3 bytes a posting here: 3,000 postings, about 9 KB), which the
  // drain's batches of 500 never did. It must go in as a chunk of its own, and the chunks after it
  // (live appends) must read back in order.
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://w.example/feed');
  await app.store.transaction(async () => {
    for (let i = 0; i < 3000; i++)
      await insertItem(app, feed, {
        url: `https://w.example/${i}`,
        title: `Walrus ${i}`,
        content: `<p>A walrus count, number ${i}, on the ice.</p>`,
      });
  });
  const repo = searchIndexRepository(app);
  const term = indexTerms('walrus')[0]!;
  const postings = async () => {
    const { chunks, count } = await repo.postings(term);
    const buf = new PostingsBuffer();
    const rows: number[][] = [];
    for (const chunk of chunks)
      for (let i = 0, n = buf.decode(chunk); i < n; i++) rows.push([buf.docs[i]!, buf.title[i]!, buf.body[i]!]);
    return { sizes: chunks.map((c) => c.length), count, rows };
  };
  await flushSearchIndexing(app);
  const drained = await postings();
  assert.equal(drained.count, 3000);
  assert.ok(drained.sizes.every((n) => n <= repo.chunkBytes));

  assert.deepEqual(await reindexAll(app, { batchSize: 5000 }), { items: 3000, passages: 3000 });
  const bulk = await postings();
  assert.deepEqual(bulk.rows, drained.rows);
  assert.equal(bulk.count, 3000);
  assert.equal(bulk.sizes.length, 1);
  assert.ok(bulk.sizes[0]! > repo.chunkBytes, `one segment of ${bulk.sizes[0]} bytes`);
  assert.ok(REINDEX_BATCH > BacklogDrain.BATCH);

  const later = await insertItem(app, feed, {
    url: 'https://w.example/later',
    title: 'Late walrus',
    content: '<p>The last walrus counted.</p>',
  });
  await flushSearchIndexing(app);
  const grown = await postings();
  assert.equal(grown.count, 3001);
  assert.equal(grown.sizes.length, 2);
  assert.deepEqual(grown.rows.slice(0, 3000), drained.rows);
  assert.equal(grown.rows[3000]![0], 3001);
  const hits = await searchService(app).search(instance('last walrus counted'));
  assert.equal(hits[0]!.itemId, later);
});

test('queries with search-syntax characters are searched as words', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://c.example/feed');
  await ingest(app, feed, [
    { url: 'https://c.example/1', title: 'NEAR AND OR', content: '<p>Quotes "inside" and stars* here.</p>' },
  ]);
  const svc = searchService(app);
  for (const q of ['"unbalanced', 'NEAR(a b)', 'stars*', 'AND OR NOT', '-', '']) {
    await assert.doesNotReject(svc.search(instance(q)), q);
  }
  assert.equal((await svc.search(instance('"inside" NEAR stars*')))[0]?.url, 'https://c.example/1');
});

test('every search() call is one billed search; rejected filters are not counted', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const svc = searchService(app);
  const before = svc.searchesPerformed;
  await svc.search(instance('anything'));
  const report = await svc.searchWithReport(instance('anything else'));
  assert.equal(report.billedSearches, 1);
  await assert.rejects(svc.search({ ...instance('x'), filters: { recency: 'decade' as never } }));
  assert.equal(svc.searchesPerformed - before, 2);
  assert.equal(searchService(app), svc, 'memoized per App');
});

test('ingest does not wait for indexing: the backlog drains in the background, in order, and on close', async (t) => {
  const app = await testApp();
  const feed = await addFeed(app, 'https://q.example/feed');
  const repo = searchIndexRepository(app);
  const ids: number[] = [];
  await app.store.transaction(async () => {
    for (let i = 0; i < 1200; i++)
      ids.push(
        await insertItem(app, feed, {
          url: `https://q.example/${i}`,
          title: `Lighthouse ${i}`,
          content: '<p>The keeper of the lighthouse logs every ship.</p>',
        }),
      );
    const status = await repo.indexStatus();
    assert.equal(status.waiting, 1200, 'the storing transaction itself records the items to index');
    assert.equal(status.articles, 0, 'nothing indexed inside the ingest transaction');
  });
  app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
  // An id deleted after being queued must never reach the index.
  await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(ids[0]!);
  app.notifyItemChanges({ added: [], updated: [], deleted: [ids[0]!] });
  for (let i = 0; i < 2000 && (await repo.articleCount()) < ids.length - 1; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(await repo.articleCount(), ids.length - 1, 'the background batches index everything else');

  const more = [
    await insertItem(app, feed, {
      url: 'https://q.example/late',
      title: 'Late',
      content: '<p>Arrived just before shutdown.</p>',
    }),
  ];
  app.notifyItemChanges({ added: more, updated: [], deleted: [] });
  await app.close();
  const reopened = await testApp({ dataDir: app.config.dataDir });
  t.after(async () => reopened.close());
  assert.equal(await searchIndexRepository(reopened).articleCount(), ids.length, 'close() flushed the queue');
});

test('a pending rebuild runs in the background: the app starts at once, searches see what is indexed, processes share the work', async (t) => {
  const first = await testApp();
  const feed = await addFeed(first, 'https://r.example/feed');
  const ids: number[] = [];
  for (let i = 0; i < 2600; i++)
    ids.push(
      await insertItem(first, feed, {
        url: `https://r.example/${i}`,
        title: `Tide table ${i}`,
        content: '<p>High water at the harbour mouth.</p>',
      }),
    );
  first.notifyItemChanges({ added: ids, updated: [], deleted: [] });
  await flushSearchIndexing(first);
  // What a migration that changes the index does: empty it and ask for a rebuild.
  await searchIndexRepository(first).deleteAll();
  await first.close();

  const started = Date.now();
  const a = await testApp({ dataDir: first.config.dataDir });
  const b = await testApp({ dataDir: first.config.dataDir });
  t.after(async () => a.close());
  t.after(async () => b.close());
  const repo = searchIndexRepository(a);
  assert.ok((await repo.articleCount()) < ids.length, 'the apps did not rebuild before starting');
  const hits = await searchService(a).search(instance('harbour tide'));
  assert.ok(hits.length <= 10, 'a search during the rebuild answers from what is indexed so far');
  for (let i = 0; i < 500 && (await repo.state()).rebuildAfter !== null; i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal((await repo.state()).rebuildAfter, null, `rebuild finished (${Date.now() - started} ms)`);
  assert.equal(await repo.articleCount(), ids.length);
  assert.equal((await repo.state()).removed, 0, 'no batch was indexed twice by the two processes');
  assert.equal((await searchService(b).search(instance('tide table 2599', 1)))[0]?.url, 'https://r.example/2599');
});

test('indexers side by side take different batches, and a flush waits for entries another one holds', async (t) => {
  const a = await testApp();
  t.after(async () => a.close());
  if (a.store.backend !== 'postgres') {
    t.skip('SQLite has one writer: its indexer runs one batch at a time');
    return;
  }
  const b = await testApp({ dataDir: a.config.dataDir });
  t.after(async () => b.close());
  const feed = await addFeed(a, 'https://side.example/feed');
  const ids: number[] = [];
  await a.store.transaction(async () => {
    for (let i = 0; i < 1200; i++)
      ids.push(
        await insertItem(a, feed, {
          url: `https://side.example/${i}`,
          title: `Ferry ${i}`,
          content: `<p>The ferry number ${i} crosses the bay at dawn.</p>`,
        }),
      );
  });
  // An indexer of process a holds the first 500 entries (its transaction is still open).
  const release = Promise.withResolvers<void>();
  const held = Promise.withResolvers<number>();
  const holding = a.store.transaction(async () => {
    held.resolve((await searchIndexRepository(a).backlog(500)).length);
    await release.promise;
  });
  let flush: Promise<unknown> = Promise.resolve();
  try {
    assert.equal(await held.promise, 500);
    // Process b's indexer takes the rest at once instead of the same 500 (or waiting for them).
    assert.equal(await drainBatch(b.store, 2000), 700);
    // A flush must not end while entries are held: it waits for them, then indexes them (the
    // holder ended without indexing them here).
    let flushed = false;
    flush = flushSearchIndexing(b).then(() => (flushed = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(flushed, false, 'the flush waits for the held entries');
  } finally {
    release.resolve();
    await holding;
    await flush;
  }
  const repo = searchIndexRepository(b);
  assert.equal(await repo.articleCount(), 1200);
  assert.equal(await repo.passageCount(), 1200, 'one passage per item: none written twice');
  assert.equal((await repo.state()).removed, 0, 'no item indexed twice');
  assert.equal((await repo.indexStatus()).waiting, 0);
  assert.equal((await searchService(a).search(instance('ferry 1199', 1)))[0]?.url, 'https://side.example/1199');
});

test('items stored by this process are indexed as stored, and an item changed since as it is now', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://kept.example/feed');
  const entry = (n: number, body: string): ParsedEntry => ({
    guid: `k${n}`,
    url: `https://kept.example/${n}`,
    title: `Harbour note ${n}`,
    author: null,
    publishedAt: 1_700_000_000 + n,
    updatedAt: null,
    content: `<p>${body}</p>`,
    summary: null,
    enclosures: [],
    imageUrl: null,
    categories: [],
  });
  const { added } = await app.store.items.upsertEntries(
    feed,
    [entry(1, 'The pelican sleeps on the pier.'), entry(2, 'The cormorant dives for fish.')],
    Date.now() * 1000,
  );
  // Changed by another writer (full text, another process) before this process indexed it: the
  // version this process stored must not be what gets indexed (guards any cache of what was sent).
  await testSql(app)
    .prepare('UPDATE items SET content = ? WHERE id = ?')
    .run('<p>The albatross glides over the waves.</p>', added[1]!);
  app.notifyItemChanges({ added, updated: [], deleted: [] });
  await flushSearchIndexing(app);
  const text = await searchService(app).articleTexts(added);
  assert.equal(text.get(added[0]!)?.text, 'The pelican sleeps on the pier.');
  assert.equal(text.get(added[1]!)?.text, 'The albatross glides over the waves.');
  assert.equal((await searchService(app).search(instance('albatross', 1)))[0]?.itemId, added[1]);
  assert.equal((await searchService(app).search(instance('cormorant', 1))).length, 0);
  assert.equal((await searchService(app).search(instance('pelican', 1)))[0]?.itemId, added[0]);
  const [a] = (await searchIndexRepository(app).articleRows(0, 10)).filter((r) => r.itemId === added[0]);
  assert.equal(a?.feedId, feed);
});

test('a long query (a pasted article) is searched by its rarest words', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://long.example/feed');
  await ingest(app, feed, [
    ...Array.from({ length: 30 }, (_, i) => ({
      url: `https://long.example/${i}`,
      title: `Daily news ${i}`,
      content: '<p>The city council met today to discuss the budget and the weather.</p>',
    })),
    {
      url: 'https://long.example/narwhal',
      title: 'Narwhal sighted',
      content: '<p>A narwhal was seen off the coast near the council offices.</p>',
    },
  ]);
  const filler = Array.from(
    { length: 3000 },
    (_, i) => ['city', 'council', 'budget', 'weather', 'today', `word${i}`][i % 6],
  ).join(' ');
  const hits = await searchService(app).search(instance(`${filler} narwhal`, 3));
  assert.equal(hits[0]?.url, 'https://long.example/narwhal');
});

test('the next batch is prepared ahead while one is written; an item changed meanwhile is indexed as it is now', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://ahead.example/feed');
  const ids: number[] = [];
  for (let i = 0; i < 1000; i++)
    ids.push(
      await insertItem(app, feed, {
        url: `https://ahead.example/${i}`,
        title: `Heron ${i}`,
        content: `<p>A heron stands in the reeds, number ${i}.</p>`,
      }),
    );
  // A preparer that marks its passages, so the index shows which items were prepared ahead.
  const prepared: number[][] = [];
  const ahead = new PrepareAhead(async (sources) => {
    prepared.push(sources.map((s) => s.id));
    return sources.map((s) => {
      const item = prepareItem(s);
      for (const p of item.article?.passages ?? []) p.text += ' [ahead]';
      return item;
    });
  });
  // The first batch is prepared before its transaction, the second while the first is written.
  assert.equal(await drainBatch(app.store, 500, {}, ahead), 500);
  assert.deepEqual(prepared, [ids.slice(0, 500), ids.slice(500)]);
  // Changed after it was prepared: its backlog entry has a new seq, so the prepared version is not used.
  await testSql(app)
    .prepare('UPDATE items SET content = ? WHERE id = ?')
    .run('<p>A heron took flight over the marsh.</p>', ids[700]);
  assert.equal(await drainBatch(app.store, 500, {}, ahead), 500);
  assert.equal(await drainBatch(app.store, 500, {}, ahead), 0);
  const texts = await searchService(app).articleTexts(ids);
  assert.equal(texts.size, 1000);
  for (const [k, id] of ids.entries()) {
    const text = texts.get(id)!.text;
    if (k === 700) assert.equal(text, 'A heron took flight over the marsh.');
    else assert.equal(text, `A heron stands in the reeds, number ${k}. [ahead]`, `item ${k}`);
  }
  assert.equal((await searchService(app).search(instance('heron flight marsh', 1)))[0]?.itemId, ids[700]);
  assert.equal((await searchIndexRepository(app).state()).articles, 1000);
});

test('the preparing thread gives what the main thread gives', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://thread.example/feed');
  const ids = [
    await insertItem(app, feed, {
      url: 'https://thread.example/2024/otters-return-to-the-bay',
      title: 'Otters &amp; kelp',
      content: `<p>Dateline</p>${longArticle('sea otters in the kelp forest')}`,
    }),
    await insertItem(app, feed, { url: 'https://thread.example/empty', title: '', content: '' }),
  ];
  const sources = await searchIndexRepository(app).itemSources(ids);
  const thread = new PrepareThread(50);
  t.after(() => thread.close());
  assert.deepEqual(await thread.run(sources), sources.map(prepareItem));
  // Again after the idle thread exited: a fresh one starts.
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(await thread.run(sources), sources.map(prepareItem));
  await thread.close();
  await assert.rejects(thread.run(sources), /shutting down/);
});

test('an item prepared ahead, then indexed by another indexer and changed again, is indexed as it is now', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://requeue.example/feed');
  const ids: number[] = [];
  for (let i = 0; i < 20; i++)
    ids.push(
      await insertItem(app, feed, {
        url: `https://requeue.example/${i}`,
        title: `Egret ${i}`,
        content: `<p>An egret fishes, number ${i}.</p>`,
      }),
    );
  const ahead = new PrepareAhead(async (sources) => sources.map(prepareItem));
  assert.equal(await drainBatch(app.store, 10, {}, ahead), 10); // prepares the next ten meanwhile
  // Another indexer (no preparing ahead) takes those ten; then one of them changes and is queued
  // anew, at seq 0 again, as the entry that was prepared.
  assert.equal(await drainBatch(app.store, 10), 10);
  await new Promise((r) => setTimeout(r, 5));
  await testSql(app).prepare('UPDATE items SET content = ? WHERE id = ?').run('<p>The egret flew off.</p>', ids[15]);
  assert.equal(await drainBatch(app.store, 10, {}, ahead), 1);
  assert.equal((await searchService(app).articleTexts([ids[15]!])).get(ids[15]!)?.text, 'The egret flew off.');
});
