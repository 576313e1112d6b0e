// Storing a feed document (ItemRepository.upsertEntries) gives the same rows on both backends:
// PostgreSQL stores a whole document in one INSERT (arrays, fan-out and counting in the same
// statement) and one UPDATE, SQLite row by row. Also the Reader API's version counters: bumped by
// a change, once per transaction, and (PostgreSQL) at commit, so they never hold up the next feed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openStore, type Store } from './open-store.ts';
import { testSql } from './testing.ts';
import { freshPostgresDatabase, tempDataDir } from '../../test/helpers.ts';
import { postgresUnavailable, startCluster, type Cluster } from '../../test/postgres-cluster.ts';
import type { ParsedEntry } from '../model/parsed-feed.ts';

const PG_SKIP = postgresUnavailable() ?? false;
let cluster: Cluster | undefined;
after(() => cluster?.stop());

async function open(backend: 'sqlite' | 'postgres'): Promise<Store> {
  const dataDir = tempDataDir('tidings-ingest-');
  if (backend === 'sqlite') return openStore({ databaseUrl: `sqlite:${join(dataDir, 'ingest.db')}`, dataDir });
  const base = process.env.TIDINGS_TEST_DATABASE_URL || (cluster ??= await startCluster()).url;
  return openStore({ databaseUrl: freshPostgresDatabase(base), dataDir });
}

const CRAWL_US = 1_800_000_000_000_000;
const entry = (guid: string, publishedAt: number | null, extra: Partial<ParsedEntry> = {}): ParsedEntry => ({
  guid,
  url: `https://e.example/${guid}`,
  title: `Title ${guid}`,
  author: null,
  publishedAt,
  updatedAt: null,
  content: `<p>body of ${guid} with ‘quotes’, "double", {braces}, back\\slash and a comma, here</p>`,
  summary: null,
  enclosures: [],
  imageUrl: null,
  categories: [],
  ...extra,
});

interface StoredRow {
  guid: string;
  url: string | null;
  title: string;
  author: string | null;
  content: string | null;
  published_at: number;
  updated_at: number;
  crawled_us: number;
  enclosures: string | null;
  image_url: string | null;
  categories: string | null;
}

/** What both backends must agree on: every stored column but the ids, in crawl order. */
async function storedRows(s: Store, feedId: number): Promise<StoredRow[]> {
  const rows = await testSql(s)
    .prepare(
      `SELECT guid, url, title, author, content, published_at, updated_at, crawled_us, enclosures, image_url, categories
       FROM items WHERE feed_id = ? ORDER BY crawled_us`,
    )
    .all<StoredRow>(feedId);
  // Crawl times come from a process-wide clock (nextCrawlUs): compare their order, not their values.
  return rows.map((r, i) => ({ ...r, crawled_us: i }));
}

const results = new Map<string, unknown>();

for (const backend of ['sqlite', 'postgres'] as const) {
  test(`${backend}: a document with new, changed, unchanged, repeated and retention-deleted entries`, {
    skip: backend === 'postgres' ? PG_SKIP : false,
  }, async () => {
    const s = await open(backend);
    try {
      const alice = await s.users.create('alice', 'h');
      const bob = await s.users.create('bob', 'h');
      const feed = await s.feeds.create('https://e.example/feed');
      // Retention deleted "gone" while the feed still lists it (nobody subscribed yet: it counts as read).
      await s.items.upsertEntries(feed.id, [entry('gone', 1_700_000_000)], CRAWL_US - 10_000_000);
      assert.equal((await s.items.deleteReadBefore(Number.MAX_SAFE_INTEGER, 10)).length, 1);
      await s.subscriptions.subscribe(alice.id, feed.id);
      await s.subscriptions.subscribe(bob.id, feed.id);

      const first = [
        entry('c', 1_700_000_300, { enclosures: [{ url: 'https://e.example/c.mp3', type: 'audio/mpeg', length: 5 }] }),
        entry('b', 1_700_000_200, { author: 'Ann', categories: ['x', 'y'], imageUrl: 'https://e.example/b.png' }),
        entry('a', 1_700_000_100),
        entry('gone', 1_700_000_000),
        entry('future', 1_900_000_000), // days after the crawl: stored with the crawl time
      ];
      const r1 = await s.items.upsertEntries(feed.id, [...first, entry('a', 1, { title: 'a repeat' })], CRAWL_US);
      assert.equal(r1.added.length, 4, 'new entries stored once each; the deleted one not brought back');
      assert.deepEqual(r1.updated, []);
      assert.deepEqual(
        [...r1.added].sort((x, y) => x - y),
        r1.added,
        'ids rise in insertion order',
      );
      assert.deepEqual(
        (await storedRows(s, feed.id)).map((r) => r.guid),
        ['a', 'b', 'c', 'future'],
        'oldest first',
      );
      for (const u of [alice.id, bob.id])
        assert.equal((await s.subscriptions.find(u, feed.id))!.unreadCount, 4, 'fanned out to every subscriber');
      assert.equal((await s.feeds.findById(feed.id))!.itemCount, 4);

      // Second fetch: "b" edited, "a" and "c" unchanged, "d" new.
      const itemsVersion = await s.streams.itemsVersion();
      const r2 = await s.items.upsertEntries(
        feed.id,
        [
          entry('d', 1_700_000_400),
          first[0]!,
          { ...first[1]!, content: '<p>edited</p>', publishedAt: null },
          first[2]!,
        ],
        CRAWL_US + 1_000_000,
      );
      assert.equal(r2.added.length, 1);
      assert.equal(r2.updated.length, 1);
      assert.ok(r2.added[0]! > Math.max(...r1.added));
      assert.equal(await s.streams.itemsVersion(), itemsVersion + 1, 'an edited item moves the items version once');
      assert.equal((await s.subscriptions.find(bob.id, feed.id))!.unreadCount, 5);
      assert.equal((await s.feeds.findById(feed.id))!.itemCount, 5);
      // The search index's backlog: every new item, queued in the transaction that stored it
      // (migration 085's triggers), the edited one queued again (seq).
      const backlog = (
        await testSql(s)
          .prepare('SELECT item_id AS id, seq FROM search_index_backlog ORDER BY item_id')
          .all<{ id: number; seq: number }>()
      ).map((r) => ({ id: Number(r.id), seq: Number(r.seq) }));
      assert.deepEqual(
        backlog.map((r) => r.id),
        [...r1.added, ...r2.added],
      );
      assert.deepEqual(
        backlog.filter((r) => r.seq > 0).map((r) => r.id),
        r2.updated,
      );
      results.set(backend, await storedRows(s, feed.id));
      if (results.size === 2) assert.deepEqual(results.get('postgres'), results.get('sqlite'), 'same rows on both');
    } finally {
      await s.close();
    }
  });

  test(`${backend}: the search backlog and passages of items: written with them, gone with them`, {
    skip: backend === 'postgres' ? PG_SKIP : false,
  }, async () => {
    const s = await open(backend);
    try {
      const feed = await s.feeds.create('https://r.example/feed');
      const count = async (table: string) =>
        Number((await testSql(s).prepare(`SELECT count(*) AS n FROM ${table}`).get<{ n: number }>())!.n);
      await assert.rejects(
        s.transaction(async () => {
          const r = await s.items.upsertEntries(
            feed.id,
            [entry('x', 1_700_000_000), entry('y', 1_700_000_100)],
            CRAWL_US,
          );
          assert.equal(r.added.length, 2);
          throw new Error('crash before commit');
        }),
        /crash before commit/,
      );
      assert.equal(await count('items'), 0);
      assert.equal(await count('search_index_backlog'), 0, 'the backlog rows went with the rolled-back items');
      const { added } = await s.items.upsertEntries(
        feed.id,
        [entry('x', 1_700_000_000), entry('y', 1_700_000_100)],
        CRAWL_US,
      );
      assert.equal(await count('search_index_backlog'), 2);
      for (const id of added)
        await testSql(s)
          .prepare("INSERT INTO search_passages (item_id, ord, text, words) VALUES (?, 0, 'a passage', 2)")
          .run(id);
      // Retention deletes both (nobody subscribes: they count as read); their rows in the index go too
      // (PostgreSQL: by migration 130's trigger, no foreign key checking every inserted row).
      assert.equal((await s.items.deleteReadBefore(Number.MAX_SAFE_INTEGER, 10)).length, 2);
      assert.equal(await count('search_index_backlog'), 0);
      assert.equal(await count('search_passages'), 0);
      if (backend === 'postgres')
        assert.equal(
          await count(
            "pg_constraint WHERE contype = 'f' AND conrelid IN ('search_passages'::regclass, 'search_index_backlog'::regclass)",
          ),
          0,
          'no foreign key on the two tables a refresh fills most',
        );
    } finally {
      await s.close();
    }
  });

  test(`${backend}: the catalog version moves once per transaction that renames feeds, seen with the change`, {
    skip: backend === 'postgres' ? PG_SKIP : false,
  }, async () => {
    const s = await open(backend);
    try {
      const user = await s.users.create('carol', 'h');
      const feeds = [await s.feeds.create('https://f.example/1'), await s.feeds.create('https://f.example/2')];
      for (const f of feeds) await s.subscriptions.subscribe(user.id, f.id);
      const before = await s.readerLabels.catalogVersion();
      const meta = (title: string) => ({ title, siteUrl: null, description: null, iconUrl: null, ttlMinutes: null });
      await s.transaction(async () => {
        for (const f of feeds) await s.feeds.updateMetadata(f.id, meta(`Renamed ${f.id}`));
        await s.feeds.updateMetadata(feeds[0]!.id, meta('Renamed twice'));
      });
      const after = await s.readerLabels.catalogVersion();
      if (backend === 'postgres') assert.equal(after, before + 1, 'one bump for the transaction');
      else assert.ok(after > before);
      await s.feeds.updateMetadata(feeds[1]!.id, meta(`Renamed ${feeds[1]!.id}`));
      assert.equal(await s.readerLabels.catalogVersion(), after, 'the same title again moves nothing');
      // A rolled-back rename leaves the version where it was.
      await assert.rejects(
        s.transaction(async () => {
          await s.feeds.updateMetadata(feeds[1]!.id, meta('never'));
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal(await s.readerLabels.catalogVersion(), after);

      // PostgreSQL: two refreshes storing two feeds at once, neither waits for the other's commit
      // (with row triggers, the second blocked on the version row until the first ended). SQLite
      // has one writer at a time anyway.
      if (backend === 'sqlite') return;
      const gate = Promise.withResolvers<void>();
      const first = s.transaction(async () => {
        await s.feeds.updateMetadata(feeds[0]!.id, meta('held open'));
        await gate.promise;
      });
      const second = s.transaction(() => s.feeds.updateMetadata(feeds[1]!.id, meta('not held up')));
      const outcome = await Promise.race([
        second.then(() => 'committed'),
        new Promise((r) => setTimeout(r, 5000, 'blocked by the open transaction')).then(String),
      ]);
      gate.resolve();
      await first;
      await second;
      assert.equal(outcome, 'committed');
      assert.equal(await s.readerLabels.catalogVersion(), after + 2);
    } finally {
      await s.close();
    }
  });
}
