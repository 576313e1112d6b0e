// The repository contract, run on both backends: SQLite always, PostgreSQL on the server named by
// TIDINGS_TEST_DATABASE_URL or, when unset, on a throwaway cluster this file starts (skipped with
// a message when PostgreSQL is not installed). Also the faults only a server has: down at start,
// lost while serving, too old.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openStore, StoreUnavailableError, type Store } from './open-store.ts';
import { testSql } from './testing.ts';
import { freshPostgresDatabase, tempDataDir } from '../../test/helpers.ts';
import { postgresUnavailable, startCluster, type Cluster } from '../../test/postgres-cluster.ts';
import { checkServerVersion } from './postgres/postgres-store.ts';
import type { ParsedEntry } from '../model/parsed-feed.ts';
import { BACKFILL_ON_SUBSCRIBE } from './ingest-rules.ts';

const PG_SKIP = postgresUnavailable() ?? false;
let cluster: Cluster | undefined;
after(() => cluster?.stop());

/** The PostgreSQL server of this run: the given one, else a cluster started on first use. */
async function pgBaseUrl(): Promise<string> {
  if (process.env.TIDINGS_TEST_DATABASE_URL) return process.env.TIDINGS_TEST_DATABASE_URL;
  cluster ??= await startCluster();
  return cluster.url;
}

async function open(backend: 'sqlite' | 'postgres'): Promise<Store> {
  const dataDir = tempDataDir('tidings-store-');
  if (backend === 'sqlite') return openStore({ databaseUrl: `sqlite:${join(dataDir, 'contract.db')}`, dataDir });
  return openStore({ databaseUrl: freshPostgresDatabase(await pgBaseUrl()), dataDir });
}

const entry = (guid: string, publishedAt: number | null, body = `s ${guid}`): ParsedEntry => ({
  guid,
  url: `https://e.example/${guid}`,
  title: guid,
  author: null,
  publishedAt,
  updatedAt: null,
  content: null,
  summary: body,
  enclosures: [],
  imageUrl: null,
  categories: [],
});

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' ? PG_SKIP : false;

  test(`${backend}: users, feeds, ingest with fan-out, subscriptions and the unread counters kept on write`, {
    skip,
  }, async () => {
    const s = await open(backend);
    try {
      const alice = await s.users.create('Alice', 'h1');
      const bob = await s.users.create('bob', 'h2');
      assert.equal((await s.users.findByName('ALICE'))?.id, alice.id, 'user names are case-insensitive');
      const feed = await s.feeds.create('https://e.example/feed', { title: 'E' });
      assert.equal((await s.feeds.create('https://e.example/feed')).id, feed.id, 'creating a known feed returns it');
      const many = Array.from({ length: BACKFILL_ON_SUBSCRIBE + 10 }, (_, i) => entry(`e${i}`, 1_700_000_000 - i * 60));
      const first = await s.items.upsertEntries(feed.id, [...many, many[0]!], 1_800_000_000_000_000);
      assert.equal(first.added.length, many.length, 'a repeated guid is stored once');
      assert.deepEqual(
        await s.items.upsertEntries(feed.id, many, 1_800_000_000_100_000),
        { added: [], updated: [], deleted: [] },
        'unchanged entries are left alone',
      );
      const edited = await s.items.upsertEntries(
        feed.id,
        [entry('e3', 1_700_000_000 - 180, 'new body')],
        1_800_000_000_200_000,
      );
      assert.deepEqual(edited.updated, [first.added.at(-4)], 'a changed entry is updated in place');

      const sub = await s.subscriptions.subscribe(alice.id, feed.id, { folders: ['Tech', ' News '] });
      assert.equal(sub.created, true);
      assert.deepEqual(sub.subscription.folders, ['News', 'Tech']);
      assert.equal(sub.subscription.unreadCount, BACKFILL_ON_SUBSCRIBE, 'a new subscriber gets the newest items only');
      await s.subscriptions.subscribe(bob.id, feed.id);
      const fresh = await s.items.upsertEntries(feed.id, [entry('n1', null), entry('n2', null)], 1_900_000_000_000_000);
      assert.equal(
        (await s.subscriptions.find(alice.id, feed.id))!.unreadCount,
        BACKFILL_ON_SUBSCRIBE + 2,
        'fan-out counts',
      );
      assert.equal((await s.subscriptions.find(bob.id, feed.id))!.newestItemUs >= 1_900_000_000_000_000, true);

      // Marking read one by one and all at once keeps the counters exact.
      assert.equal(await s.itemStates.setState(alice.id, 'read', 1, fresh.added), 2);
      assert.equal(await s.itemStates.setState(alice.id, 'read', 1, fresh.added), 0, 'already read: nothing changes');
      assert.equal((await s.subscriptions.find(alice.id, feed.id))!.unreadCount, BACKFILL_ON_SUBSCRIBE);
      const marked = await s.itemStates.markAllRead(
        alice.id,
        [{ kind: 'feeds', feedIds: [feed.id], negate: false }],
        Number.MAX_SAFE_INTEGER,
      );
      assert.equal(marked, BACKFILL_ON_SUBSCRIBE);
      assert.deepEqual(
        (await s.readerLabels.unreadCounters(alice.id)).map((c) => c[1]),
        [0],
      );
      assert.deepEqual(
        (await s.readerLabels.unreadCounters(bob.id)).map((c) => c[1]),
        [BACKFILL_ON_SUBSCRIBE + 2],
        "another user's counters are untouched",
      );

      // Keyset pages: newest first, continuation strictly after the last row, no overlap.
      const q = { userId: bob.id, where: [], newestFirst: true, limit: 50 };
      const p1 = await s.streams.statesPage(q);
      const p2 = await s.streams.statesPage({
        ...q,
        after: { crawledUs: p1.at(-1)!.crawledUs, itemId: p1.at(-1)!.itemId },
      });
      assert.equal(p1.length, 50);
      assert.ok(p1.every((r, i) => i === 0 || r.crawledUs < p1[i - 1]!.crawledUs));
      assert.ok(p2[0]!.crawledUs < p1.at(-1)!.crawledUs);
      const refs = await s.streams.refsJson(q);
      assert.equal(refs.count, 50);
      assert.deepEqual(
        JSON.parse(`[${refs.json}]`).map((r: { id: string }) => Number(r.id)),
        p1.map((r) => r.itemId),
        'refs in page order',
      );
      assert.deepEqual(
        (await s.streams.statesByIds(bob.id, [p1[3]!.itemId, p1[1]!.itemId, 999_999])).map((r) => r.itemId),
        [p1[3]!.itemId, p1[1]!.itemId],
        'in the order asked, unknown ids skipped',
      );

      // Tags, folders, label merge.
      const keep = await s.readerLabels.ensureLabel(bob.id, 'keep');
      assert.equal(await s.itemStates.tagItems(bob.id, keep, [p1[0]!.itemId, p1[1]!.itemId]), 2);
      assert.deepEqual([...(await s.streams.tagsOfItems(bob.id, [p1[0]!.itemId])).values()], [['keep']]);
      // The combined reads a page renders from agree with the single reads.
      const render = await s.streams.pageToRender(q);
      assert.deepEqual(render.items, await s.streams.statesPage(q));
      assert.deepEqual(
        render.tags,
        await s.streams.tagsOfItems(
          bob.id,
          p1.map((r) => r.itemId),
        ),
      );
      assert.equal(render.itemsVersion, await s.streams.itemsVersion());
      assert.equal(render.catalogVersion, await s.readerLabels.catalogVersion());
      const byIds = await s.streams.byIdsToRender(bob.id, [p1[1]!.itemId, 999_999, p1[4]!.itemId]);
      assert.deepEqual(
        byIds.items.map((r) => r.itemId),
        [p1[1]!.itemId, p1[4]!.itemId],
      );
      assert.deepEqual([...byIds.tags], [[p1[1]!.itemId, ['keep']]]);
      const empty = await s.streams.pageToRender({ ...q, userId: alice.id, where: [{ kind: 'nothing' }] });
      assert.deepEqual([empty.items, empty.tags.size, empty.catalogVersion], [[], 0, render.catalogVersion]);
      const counted = await s.readerLabels.unreadCountersAndCatalogVersion(bob.id);
      assert.deepEqual(counted, {
        counters: await s.readerLabels.unreadCounters(bob.id),
        catalogVersion: render.catalogVersion,
      });
      assert.deepEqual((await s.readerLabels.unreadCountersAndCatalogVersion(999)).counters, []);
      await s.subscriptions.addFolder(bob.id, feed.id, 'Later');
      await s.readerLabels.renameLabel(bob.id, keep, 'Later');
      const labels = await s.readerLabels.labels(bob.id);
      assert.deepEqual(
        labels.map((l) => [l.name, l.subscriptionCount, l.taggedCount]),
        [['Later', 1, 2]],
        'renaming onto an existing label merges',
      );

      // Unsubscribing keeps starred items and fixes nothing else.
      await s.itemStates.setState(bob.id, 'starred', 1, [p1[5]!.itemId]);
      assert.equal(await s.subscriptions.unsubscribe(bob.id, feed.id), true);
      const left = await s.streams.statesPage(q);
      assert.deepEqual(
        left.map((r) => r.itemId).sort(),
        [p1[0]!.itemId, p1[1]!.itemId, p1[5]!.itemId].sort(),
        'starred and tagged items stay',
      );
    } finally {
      await s.close();
    }
  });

  test(`${backend}: feeds and subscriptions in bulk (an OPML import) do what one by one would`, { skip }, async () => {
    const s = await open(backend);
    try {
      const carol = await s.users.create('carol', 'h');
      const known = await s.feeds.create('https://k.example/feed', { title: 'Known' });
      const ids = await s.feeds.ensureMany([
        { url: 'https://k.example/feed', title: 'Other title' },
        { url: 'https://n.example/a', title: 'A', siteUrl: 'https://n.example/' },
        { url: 'https://n.example/b' },
        { url: 'https://n.example/a', title: 'A again' },
      ]);
      assert.equal(ids.size, 3);
      assert.equal(ids.get('https://k.example/feed'), known.id, 'a known feed keeps its id');
      const a = (await s.feeds.findById(ids.get('https://n.example/a')!))!;
      assert.deepEqual([a.url, a.title, a.siteUrl], ['https://n.example/a', 'A', 'https://n.example/']);
      assert.equal((await s.feeds.findById(known.id))!.title, 'Known', 'a known feed is not renamed');
      assert.deepEqual(await s.feeds.ensureMany([]), new Map());

      await s.items.upsertEntries(
        known.id,
        Array.from({ length: BACKFILL_ON_SUBSCRIBE + 5 }, (_, i) => entry(`k${i}`, 1_700_000_000 - i)),
        1_800_000_000_000_000,
      );
      await s.subscriptions.subscribe(carol.id, known.id, { title: 'Mine', folders: ['Old'] });
      const created = await s.subscriptions.subscribeMany(carol.id, [
        { feedId: known.id, title: 'From the file', folders: ['Tech'] },
        { feedId: ids.get('https://n.example/a')!, title: 'A title', folders: [' News ', ''] },
        { feedId: ids.get('https://n.example/b')!, title: null, folders: [] },
        { feedId: ids.get('https://n.example/a')!, title: 'Second', folders: ['Tech'] },
      ]);
      assert.equal(created, 2, 'the known subscription and the repeated feed are not created again');
      const subs = new Map((await s.subscriptions.list(carol.id)).map((x) => [x.feed.url, x]));
      assert.equal(subs.size, 3);
      const k = subs.get('https://k.example/feed')!;
      assert.equal(k.customTitle, 'Mine', 'an existing subscription keeps its name');
      assert.deepEqual(k.folders, ['Old', 'Tech'], 'and gets the new folder');
      const sa = subs.get('https://n.example/a')!;
      assert.equal(sa.customTitle, 'A title', 'a new subscription takes the first title');
      assert.deepEqual(sa.folders, ['News', 'Tech'], 'folders of both entries, trimmed, empty ones dropped');
      assert.equal(subs.get('https://n.example/b')!.customTitle, null);
      assert.deepEqual((await s.subscriptions.feedUrls(carol.id)).sort(), [...subs.keys()].sort());

      // A new subscription gets the feed's newest items and its counters, as subscribe() gives.
      const dave = await s.users.create('dave', 'h');
      assert.equal(await s.subscriptions.subscribeMany(dave.id, [{ feedId: known.id }]), 1);
      const d = (await s.subscriptions.find(dave.id, known.id))!;
      assert.equal(d.unreadCount, BACKFILL_ON_SUBSCRIBE);
      assert.ok(d.newestItemUs >= 1_800_000_000_000_000);
      assert.deepEqual(
        (await s.readerLabels.unreadCounters(dave.id)).map((c) => c[1]),
        [BACKFILL_ON_SUBSCRIBE],
      );
      assert.equal(await s.subscriptions.subscribeMany(dave.id, []), 0);
    } finally {
      await s.close();
    }
  });

  test(`${backend}: token and API key lookups see revocation, use and deletion through this process at once`, {
    skip,
  }, async () => {
    const s = await open(backend);
    try {
      const u = await s.users.create('tok', 'h');
      const t = await s.tokens.insert(
        { tokenHash: 'hash-1', userId: u.id, kind: 'clientlogin', scopes: 'read write', expiresAt: 4e9 },
        100,
      );
      assert.equal((await s.tokens.findByHash('hash-1'))?.id, t.id);
      await s.tokens.markUsed(t.id, 200);
      assert.equal((await s.tokens.findByHash('hash-1'))?.lastUsedAt, 200, 'use recorded');
      assert.equal(await s.tokens.revoke(t.id, 300), true);
      assert.equal((await s.tokens.findByHash('hash-1'))?.revokedAt, 300, 'revoked at once, not after a cache expires');
      await s.tokens.insert(
        { tokenHash: 'hash-2', userId: u.id, kind: 'clientlogin', scopes: 'read', expiresAt: 4e9 },
        100,
      );
      assert.ok(await s.tokens.findByHash('hash-2'));
      await s.apiKeys.create({ id: 'k1', userId: u.id, name: 'n', keyHash: 'kh', tier: 1 });
      assert.equal((await s.apiKeys.findById('k1'))?.disabled, false);
      await s.apiKeys.setDisabled('k1', true);
      assert.equal((await s.apiKeys.findById('k1'))?.disabled, true, 'a disabled key is seen at once');
      await s.apiKeys.revoke('k1');
      assert.notEqual((await s.apiKeys.findById('k1'))?.revokedAt, null, 'a revoked key is seen at once');
      await s.users.delete(u.id);
      assert.equal(await s.tokens.findByHash('hash-2'), undefined, "a deleted user's tokens are gone at once");
      assert.equal(await s.apiKeys.findById('k1'), undefined, "a deleted user's keys are gone at once");
    } finally {
      await s.close();
    }
  });

  test(`${backend}: chat usage totals per key and model, by user and since a time, errors counted`, {
    skip,
  }, async () => {
    const s = await open(backend);
    try {
      const zed = await s.users.create('zed', 'h');
      const amy = await s.users.create('amy', 'h');
      await s.apiKeys.create({ id: 'kz', userId: zed.id, name: 'zed key', keyHash: 'h1', tier: 1 });
      await s.apiKeys.create({ id: 'ka', userId: amy.id, name: 'amy key', keyHash: 'h2', tier: 1 });
      const use = (keyId: string, userId: number, model: string, status: number, createdAt: number) =>
        s.chatUsage.record({
          createdAt,
          keyId,
          userId,
          endpoint: 'chat',
          model,
          status,
          errorType: status >= 400 ? 'server_error' : null,
          stream: false,
          promptTokens: 10,
          completionTokens: 5,
          reasoningTokens: 0,
          citationTokens: 1,
          searchQueries: 1,
          cost: {
            input: 0.1,
            output: 0.2,
            reasoning: 0,
            citation: 0,
            searchQueries: 0.0000001,
            request: 0,
            total: 0.3000001,
          },
          latencyMs: 12,
        });
      await use('kz', zed.id, 'sonar', 200, 100);
      await use('kz', zed.id, 'sonar', 500, 200);
      await use('kz', zed.id, 'sonar-pro', 200, 300);
      await use('ka', amy.id, 'sonar', 429, 400);
      const all = await s.chatUsage.totals({});
      assert.deepEqual(
        all.map((t) => [t.username, t.keyName, t.model, t.requests, t.errors, t.promptTokens, t.searchQueries]),
        [
          ['amy', 'amy key', 'sonar', 1, 1, 10, 1],
          ['zed', 'zed key', 'sonar', 2, 1, 20, 2],
          ['zed', 'zed key', 'sonar-pro', 1, 0, 10, 1],
        ],
        'one row per key and model, by user name',
      );
      assert.equal(all[1]!.cost, 0.6, 'cost rounded to a millionth of a dollar');
      assert.deepEqual(
        (await s.chatUsage.totals({ userId: zed.id, since: 200 })).map((t) => [t.model, t.requests]),
        [
          ['sonar', 1],
          ['sonar-pro', 1],
        ],
      );
    } finally {
      await s.close();
    }
  });

  test(`${backend}: async job leases run out by the database's clock, whatever this process's clock says`, {
    skip,
  }, async (t) => {
    const s = await open(backend);
    try {
      const u = await s.users.create('jobs', 'h');
      const job = (id: string) =>
        s.asyncJobs.create({
          id,
          keyId: 'k',
          userId: u.id,
          model: 'sonar',
          request: {},
          idempotencyKey: null,
          createdAt: 1,
        });
      await job('11111111-1111-4111-8111-111111111111');
      await job('22222222-2222-4222-8222-222222222222');
      const held = await s.asyncJobs.claimNext('A', 60_000, 10);
      const ending = await s.asyncJobs.claimNext('B', 60_000, 10);
      assert.ok(held && ending);
      assert.ok(await s.asyncJobs.renewLease(ending.id, 'B', 20), 'B stops renewing: 20 ms left');
      await new Promise((r) => setTimeout(r, 100));

      // A machine whose clock runs a day ahead: A's lease (a minute left) is still A's.
      const realNow = Date.now.bind(Date);
      const day = 86_400_000;
      t.mock.method(Date, 'now', () => realNow() + day);
      assert.equal(await s.asyncJobs.countClaimable(), 1, "only B's job, whose lease ran out");
      const takenAhead = await s.asyncJobs.claimNext('C', 60_000, 11);
      assert.equal(takenAhead?.id, ending.id, "C takes B's job, never A's");
      assert.equal(await s.asyncJobs.claimNext('C', 60_000, 11), undefined, "A's job is held");

      // A machine whose clock runs a day behind: a lease that ran out is free all the same.
      t.mock.method(Date, 'now', () => realNow() - day);
      assert.ok(await s.asyncJobs.renewLease(held.id, 'A', 20));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await s.asyncJobs.claimNext('D', 60_000, 12))?.id, held.id, "A's lease ran out: D takes it");
    } finally {
      t.mock.restoreAll();
      await s.close();
    }
  });

  test(`${backend}: transactions roll back on a throw, nested calls join, the search index counters follow`, {
    skip,
  }, async () => {
    const s = await open(backend);
    try {
      await assert.rejects(
        s.transaction(async () => {
          await s.users.create('ghost', 'x');
          await s.transaction(async () => {
            await s.feeds.create('https://ghost.example/feed');
          });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await s.users.findByName('ghost'), undefined, 'nothing of a failed transaction stays');
      assert.equal(
        await s.feeds.findByUrl('https://ghost.example/feed'),
        undefined,
        'a nested call joined the outer transaction',
      );

      const feed = await s.feeds.create('https://i.example/feed');
      const { added } = await s.items.upsertEntries(feed.id, [entry('a', 1), entry('b', 2), entry('c', 3)], 1_000_000);
      const idx = s.searchIndex;
      await s.transaction(async () => {
        await idx.lockForWriting();
        const first = await idx.reserveDocNumbers(3);
        await idx.storeArticles(
          added.map((id, i) => ({
            article: {
              id,
              feedId: feed.id,
              host: 'i.example',
              title: 't',
              publishedAt: i,
              updatedAt: i,
              docNo: first + i,
              titleLength: 1,
              bodyLength: 10 * (i + 1),
              urlLength: 2,
            },
            passages: [
              { text: `one ${i}`, words: 2 },
              { text: 'two', words: 1 },
            ],
          })),
        );
        await idx.appendPostings([
          { term: 'alpha', bytes: new Uint8Array([1, 2, 3]), count: 1 },
          { term: 'beta', bytes: new Uint8Array([4]), count: 1 },
        ]);
        await idx.appendPostings([{ term: 'alpha', bytes: new Uint8Array([5]), count: 2 }]);
      });
      let state = await idx.state();
      assert.deepEqual([state.articles, state.bodyLength, state.titleLength, state.removed], [3, 60, 3, 0]);
      const alpha = await idx.postings('alpha');
      assert.equal(alpha.count, 3);
      assert.deepEqual(
        alpha.chunks.map((c) => [...c]),
        [[1, 2, 3, 5]],
        'appended onto the last chunk',
      );
      assert.deepEqual(await idx.termsAfter('', 10), ['alpha', 'beta']);
      assert.deepEqual(
        (await idx.passageTexts([added[1]!])).map((p) => [p.ord, p.text]),
        [
          [0, 'one 1'],
          [1, 'two'],
        ],
      );
      await idx.deleteItems([added[0]!]);
      state = await idx.state();
      assert.deepEqual([state.articles, state.bodyLength, state.removed], [2, 50, 1]);
      await testSql(s).prepare('DELETE FROM feeds WHERE id = ?').run(feed.id);
      state = await idx.state();
      assert.deepEqual([state.articles, state.bodyLength, state.removed], [0, 0, 3], 'a cascaded delete counts too');
    } finally {
      await s.close();
    }
  });
}

test('postgres: a server that is down at start is one line naming TIDINGS_DATABASE_URL, without the password', async () => {
  const err = await openStore({
    databaseUrl: 'postgres://tidings:s3cret-pw@127.0.0.1:1/tidings',
    dataDir: tempDataDir(),
  }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof StoreUnavailableError, String(err));
  assert.match(err.message, /TIDINGS_DATABASE_URL=postgres:\/\/tidings:\*\*\*@127\.0\.0\.1:1\/tidings/);
  assert.ok(!err.message.includes('s3cret-pw') && !err.message.includes('\n'));
  await assert.rejects(
    openStore({ databaseUrl: 'mysql://x@y/z', dataDir: tempDataDir() }),
    /TIDINGS_DATABASE_URL must be empty/,
  );
});

test('postgres: a failed migration is rolled back and named; the ones before it stay', { skip: PG_SKIP }, async () => {
  const s = await open('postgres');
  try {
    const { MIGRATIONS } = await import('./migrations.ts');
    const pg = s as unknown as { migrate(list: unknown[]): Promise<string[]> };
    const broken = {
      id: '999_broken',
      sqlite: '-',
      postgres: 'CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);',
    };
    await assert.rejects(
      pg.migrate([...MIGRATIONS, broken]),
      /migration 999_broken failed and was rolled back.*no_such_table/,
    );
    assert.equal(
      (await testSql(s)
        .prepare("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'half_done'")
        .get<{ n: number }>())!.n,
      0,
    );
    assert.equal(
      (await testSql(s)
        .prepare("SELECT count(*) AS n FROM schema_migrations WHERE id = '999_broken'")
        .get<{ n: number }>())!.n,
      0,
    );
    assert.deepEqual(await pg.migrate([...MIGRATIONS]), [], 'the good ones stay applied');
  } finally {
    await s.close();
  }
});

test('postgres: a server older than 13 is refused with a clear error', () => {
  assert.throws(
    () => checkServerVersion(120015, 'postgres://u:pw@db/x'),
    /PostgreSQL server at TIDINGS_DATABASE_URL=postgres:\/\/u:\*\*\*@db\/x is version 12; Tidings needs PostgreSQL 13 or newer/,
  );
  checkServerVersion(150018, 'postgres://u@db/x');
});

test('postgres: connection lost while serving: 503 with a clear body, then it reconnects by itself', {
  skip:
    PG_SKIP ||
    (process.env.TIDINGS_TEST_DATABASE_URL
      ? 'skipped: needs its own cluster to stop and start (TIDINGS_TEST_DATABASE_URL is set)'
      : false),
}, async () => {
  const own = await startCluster();
  try {
    const { createApp } = await import('../server/create-app.ts');
    const { loadConfig } = await import('../config/config.ts');
    const { startServer } = await import('../server/server.ts');
    const { issueClientLoginToken } = await import('../auth/tokens.ts');
    const app = await createApp(
      loadConfig({
        env: {},
        overrides: {
          dataDir: tempDataDir(),
          databaseUrl: freshPostgresDatabase(own.url),
          port: 0,
          schedulerEnabled: false,
          logLevel: 'silent',
        },
      }),
    );
    try {
      const { url } = await startServer(app);
      const user = await app.users.create('u', 'x');
      const { token } = await issueClientLoginToken(app, user.id);
      const get = () =>
        fetch(`${url}/reader/api/0/unread-count?output=json`, {
          headers: { authorization: `GoogleLogin auth=${token}` },
        });
      assert.equal((await get()).status, 200);
      const { execFileSync } = await import('node:child_process');
      const { postgresBinDir } = await import('../../test/postgres-cluster.ts');
      const asUser = process.getuid?.() === 0 ? ['runuser', '-u', process.env.TIDINGS_PG_USER ?? 'nobody', '--'] : [];
      const pgctl = (...args: string[]) =>
        execFileSync(
          asUser[0] ?? join(postgresBinDir()!, 'pg_ctl'),
          [
            ...asUser.slice(1),
            ...(asUser.length ? [join(postgresBinDir()!, 'pg_ctl')] : []),
            '-D',
            join(own.dir, 'data'),
            ...args,
          ],
          { stdio: 'ignore' },
        );
      // fast: connections are cut (57P01) as in a failover; immediate would also drop the last
      // commits of this durability-off cluster.
      pgctl('-m', 'fast', '-w', 'stop');
      const down = await get();
      assert.equal(down.status, 503);
      assert.match(await down.text(), /^Error=The database is temporarily unavailable; retry in a few seconds\.$/);
      assert.equal(down.headers.get('retry-after'), '5');
      const port = /port=(\d+)/.exec(own.url)![1]!;
      pgctl(
        '-o',
        `-k ${own.dir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off`,
        '-l',
        join(own.dir, 'server.log'),
        '-w',
        'start',
      );
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await get()).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, 'the pool reconnects on its own');
    } finally {
      await app.close();
    }
  } finally {
    own.stop();
  }
});
