// The change signal between two processes' stores on one database (two Apps here: each has its
// own connection(s), as two processes do). Runs on SQLite, and on PostgreSQL with
// TIDINGS_TEST_DATABASE_URL (.ci/run's second pass).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../server/create-app.ts';
import { loadConfig } from '../config/config.ts';
import { TEST_DATABASE_URL, tempDataDir } from '../../test/helpers.ts';
import { ChangeGated } from './open-store.ts';
import {
  changeNumberMoved,
  signalMovedPast as movedPast,
  signalSteady as steady,
  steadyChangeNumber,
  testSql,
  testUsageRecord,
} from './testing.ts';
import type { UsageRecord } from '../model/chat.ts';
import type { Sql } from './sql.ts';
import { TABLES_NO_CACHE_READS } from './postgres/change-signal.ts';

const open = (dataDir: string) => createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }));

test('the change signal stays put while nothing changes and moves on a change by this or another process', async (t) => {
  const dataDir = tempDataDir('tidings-signal-');
  const a = await open(dataDir);
  const b = await open(dataDir);
  t.after(async () => {
    await a.close();
    await b.close();
  });
  let reads = 0;
  const version = new ChangeGated(a.store.changes, async () => {
    reads++;
    return a.store.readerLabels.catalogVersion();
  });
  await steady(a);
  const v1 = await version.get();
  await version.get();
  await version.get();
  assert.equal(reads, 1, 'an unchanged store is not read again');

  // Another process changes the catalog (a subscription title here: the trigger bumps the version).
  const g = a.store.changes.generation();
  const feed = await testSql(b)
    .prepare("INSERT INTO feeds (url, title, created_at) VALUES ('https://signal.example/feed', 'S', 0) RETURNING id")
    .get<{ id: number }>();
  const user = await b.users.create('sig', 'x');
  await b.store.subscriptions.subscribe(user.id, Number(feed!.id));
  await movedPast(a, g, 'another process subscribed');
  const v2 = await version.get();
  assert.equal(reads, 2);
  assert.ok(v2 > v1, 'the new catalog version is read');

  // This process's own write moves it at once, without waiting for any notification.
  await steady(a);
  const before = a.store.changes.generation();
  await a.store.subscriptions.rename(user.id, Number(feed!.id), 'Renamed');
  assert.notEqual(a.store.changes.generation(), before, "this process's write is seen at once");
  assert.ok((await version.get()) > v2);
});

/** Two processes' Apps on one database, a user, and a way to issue that user a token (from `a`). */
async function twoProcessesWithUser(t: TestContext, name: string) {
  const dataDir = tempDataDir(`tidings-${name}-`);
  const a = await open(dataDir);
  const b = await open(dataDir);
  t.after(async () => {
    await a.close();
    await b.close();
  });
  const user = await a.store.users.create(name, 'x');
  const now = Math.floor(Date.now() / 1000);
  const issue = (hash: string) =>
    a.store.tokens.insert(
      { tokenHash: hash, userId: user.id, kind: 'clientlogin', scopes: 'read write', expiresAt: now + 3600 },
      now,
    );
  return { a, b, user, now, issue };
}

test('a token revoked, deleted or whose user is deleted by another process is refused here at once', async (t) => {
  // On PostgreSQL token rows are cached per process (portable/auth-row-cache.ts, AuthRowCache) for up to
  // 3 s; migration 095's notification must drop them well before. On SQLite too, until any write by
  // another process (PRAGMA data_version, read once per event-loop turn).
  const { a, b, user, now, issue } = await twoProcessesWithUser(t, 'revoked');
  /** Polls for at most 1 s (the notification is delivered at the other process's commit). */
  async function refusedSoon(hash: string, what: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const found = await a.store.tokens.findByHash(hash);
      if (!found || found.revokedAt !== null) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`still accepted 1 s after ${what}`);
  }
  await steady(a);
  const revoked = await issue('hash-revoked');
  await issue('hash-deleted');
  for (const h of ['hash-revoked', 'hash-deleted'])
    assert.ok(await a.store.tokens.findByHash(h), 'looked up (and cached) here');

  assert.equal(await b.store.tokens.revoke(revoked.id, now), true);
  await refusedSoon('hash-revoked', 'another process revoked it');
  assert.ok(await a.store.tokens.findByHash('hash-deleted'), 'the others still work');

  await b.store.tokens.purge(now + 7200); // deletes every token expired by then
  await refusedSoon('hash-deleted', 'another process deleted it');

  await issue('hash-again');
  assert.ok(await a.store.tokens.findByHash('hash-again'));
  assert.equal(await b.store.users.delete(user.id), true);
  await refusedSoon('hash-again', 'another process deleted its user');
});

test('a token is read once for calls in a row, and again once another process wrote', async (t) => {
  // Both backends keep token rows (portable/auth-row-cache.ts); SQLite drops them on another
  // process's commit (PRAGMA data_version, read once per event-loop turn).
  const { a, b, now, issue } = await twoProcessesWithUser(t, 'rows');
  await issue('hash-kept');
  const other = await issue('hash-other');
  await steady(a);
  let reads = 0;
  const sql = (a.store.tokens as unknown as { s: Sql }).s;
  const prepare = sql.prepare.bind(sql);
  sql.prepare = (text: string) => {
    if (/FROM auth_tokens WHERE token_hash/.test(text)) reads++;
    return prepare(text);
  };
  const pause = () => new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < 3; i++) {
    assert.ok(await a.store.tokens.findByHash('hash-kept'));
    await pause();
  }
  assert.equal(reads, 1, 'calls in a row (each in its own event-loop turn) read the row once');

  assert.equal(await b.store.tokens.revoke(other.id, now), true);
  for (let i = 0; i < 100 && reads === 1; i++) {
    await pause();
    assert.ok(await a.store.tokens.findByHash('hash-kept'));
  }
  assert.equal(reads, 2, "another process's write makes the next lookup read the row again");
});

test("this process's rate-limit and usage writes leave the signal put; a transaction that also writes cached data moves it", async (t) => {
  // SQLite: total_changes() counts every write of the connection, so these writes are taken as
  // seen when nothing else was written since the signal last looked (SqliteChangeSignal.quietWrite).
  const dataDir = tempDataDir('tidings-signal-quiet-');
  const a = await open(dataDir);
  t.after(async () => a.close());
  const user = await a.users.create('quiet', 'x');
  const feed = await testSql(a)
    .prepare("INSERT INTO feeds (url, title, created_at) VALUES ('https://quiet.example/feed', 'Q', 0) RETURNING id")
    .get<{ id: number }>();
  await a.store.subscriptions.subscribe(user.id, Number(feed!.id));
  let reads = 0;
  const version = new ChangeGated(a.store.changes, async () => {
    reads++;
    return a.store.readerLabels.catalogVersion();
  });
  const usage = (status: number): UsageRecord => testUsageRecord(user.id, status);
  // The rule that makes this safe: nothing fires on a write to these tables (no trigger reaches
  // a table migration 086 watches).
  const triggered = await testSql(a)
    .prepare(
      TEST_DATABASE_URL
        ? "SELECT c.relname AS name FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE NOT g.tgisinternal AND c.relname IN ('limit_buckets', 'limit_events', 'limit_marks', 'limit_slots', 'chat_usage')"
        : "SELECT tbl_name AS name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('limit_buckets', 'limit_events', 'limit_marks', 'limit_slots', 'chat_usage')",
    )
    .all<{ name: string }>();
  assert.deepEqual(triggered, [], 'TABLES_NO_CACHE_READS must hold tables without triggers');
  assert.deepEqual(
    [...TABLES_NO_CACHE_READS].sort(),
    ['chat_usage', 'limit_buckets', 'limit_events', 'limit_marks', 'limit_slots'],
    'the trigger check above covers every table of TABLES_NO_CACHE_READS',
  );
  const now = Date.now();
  await steady(a);
  await version.get();
  const before = a.store.changes.generation();

  // What every chat answer writes (a rate-limit pour, a usage row in its batch's transaction),
  // and the login throttle's and the concurrency slots' writes.
  const limits = a.store.limitCounters;
  assert.equal((await limits.pour('rate:k', 5, 0.001, now)).allowed, true);
  await a.store.transaction(() => a.store.chatUsage.record(usage(200)));
  await limits.addEvent([{ key: 'login:x', keepMs: 60_000 }], now);
  await limits.setMark('mark:x', now, 60_000);
  assert.equal(await limits.takeSlot('slot:x', 't1', 2, now + 60_000, now), true);
  await limits.releaseSlot('slot:x', 't1');
  await limits.clearEvents('login:x');
  await limits.prune(now);
  assert.equal(a.store.changes.generation(), before, 'writes no cache depends on leave the signal put');
  await version.get();
  assert.equal(reads, 1, 'so the cached catalog version is not read again');
  const rows = await testSql(a).prepare('SELECT count(*) AS n FROM chat_usage').get<{ n: number }>();
  assert.equal(Number(rows!.n), 1, 'the usage row was written');

  // A transaction that writes usage and a table caches depend on moves it (at the write and at commit).
  await a.store.transaction(async () => {
    await a.store.chatUsage.record(usage(200));
    await a.store.subscriptions.rename(user.id, Number(feed!.id), 'Renamed');
  });
  assert.notEqual(a.store.changes.generation(), before);
  await version.get();
  assert.equal(reads, 2, 'the catalog is read again after a change it depends on');

  // A change to cached data, then usage and rate-limit writes before anyone asks the signal: the
  // change is still seen (the quiet writes must not pass it off as their own).
  const asked = a.store.changes.generation();
  await a.store.subscriptions.rename(user.id, Number(feed!.id), 'Renamed again');
  await a.store.chatUsage.record(usage(200));
  await limits.pour('rate:k', 5, 0.001, now);
  assert.notEqual(a.store.changes.generation(), asked, 'the change before the quiet writes moves the signal');
  await version.get();
  assert.equal(reads, 3);
});

test("another process's rate-limit and usage writes leave this process's signal put; its writes that matter move it", async (t) => {
  // `tidings serve --workers N`: every chat answer worker A serves writes a usage row and pours a
  // rate-limit bucket. SQLite's PRAGMA data_version moves for any commit, so before migration 195
  // each of them made worker B read the user's subscriptions, the index counters and the backlog
  // again; its counters tell those writes from the ones the caches depend on. PostgreSQL sends no
  // notification for these tables (TABLES_NO_CACHE_READS).
  const { a, b, user, now, issue } = await twoProcessesWithUser(t, 'quiet-other');
  const token = await issue('hash-quiet-other');
  const feed = await testSql(b)
    .prepare(
      "INSERT INTO feeds (url, title, created_at) VALUES ('https://quiet-other.example/feed', 'Q', 0) RETURNING id",
    )
    .get<{ id: number }>();
  await b.store.subscriptions.subscribe(user.id, Number(feed!.id));
  const item = await testSql(b)
    .prepare(
      "INSERT INTO items (feed_id, guid, title, published_at, updated_at, crawled_us, content_hash) VALUES (?, 'g', 't', 0, 0, 1, 'h') RETURNING id",
    )
    .get<{ id: number }>(Number(feed!.id));
  const auth = () => (a.store.changes as unknown as { authGeneration(): number }).authGeneration();
  const ms = Date.now();
  let round = 0;
  const quiet = async () => {
    const limits = b.store.limitCounters;
    round++;
    assert.equal((await limits.pour(`rate:other:${round}`, 5, 0.001, ms)).allowed, true);
    await b.store.chatUsage.record(testUsageRecord(user.id));
    await limits.addEvent([{ key: 'login:other', keepMs: 60_000 }], ms);
    await limits.setMark('mark:other', ms, 60_000);
    assert.equal(await limits.takeSlot(`slot:other:${round}`, 't1', 2, ms + 60_000, ms), true);
    await limits.releaseSlot(`slot:other:${round}`, 't1');
  };
  /** The signal stays at `g` (and the auth number at `authAt`) over 20 event-loop turns 10 ms apart. */
  const stays = async (g: number, authAt: number, what: string) => {
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(a.store.changes.generation(), g, `the signal moved: ${what}`);
      assert.equal(auth(), authAt, `the auth number moved: ${what}`);
    }
  };

  let g = await steady(a);
  let authAt = auth();
  await quiet();
  await stays(g, authAt, "another process's usage and rate-limit writes");

  // Writes that matter, each seen at the next turn (SQLite) or notification (PostgreSQL).
  const changes: [string, () => Promise<unknown>][] = [
    ['a subscription renamed', () => b.store.subscriptions.rename(user.id, Number(feed!.id), 'Renamed')],
    [
      "an item's title changed",
      () => testSql(b).prepare("UPDATE items SET title = 'u' WHERE id = ?").run(Number(item!.id)),
    ],
    ['an item deleted', () => testSql(b).prepare('DELETE FROM items WHERE id = ?').run(Number(item!.id))],
  ];
  for (const [what, change] of changes) {
    g = await steady(a);
    await quiet();
    await change();
    await quiet();
    g = await movedPast(a, g, what);
  }

  // A token revoked elsewhere moves the auth number (the cached token rows go), quiet writes do not.
  g = await steady(a);
  authAt = await steadyChangeNumber(auth);
  await quiet();
  await stays(g, authAt, 'quiet writes, before the revocation');
  assert.equal(await b.store.tokens.revoke(token.id, now), true);
  await changeNumberMoved(auth, authAt, 'the auth number did not move: a token revoked by another process');
});

test("SQLite's counted tables (migration 195) are the tables PostgreSQL's notifications watch", async (t) => {
  // Each backend's check against one list: a cache reading a new table adds its trigger on both
  // (SQLite: where a process of its own holds what it read).
  const dataDir = tempDataDir('tidings-signal-tables-');
  const a = await open(dataDir);
  t.after(async () => a.close());
  const watched = {
    changes: [
      'items',
      'reader_catalog_version',
      'reader_items_version',
      'search_index_backlog',
      'search_index_state',
      'search_passages',
      'search_postings',
    ],
    auth: ['api_keys', 'auth_tokens', 'users'],
  };
  const names = (rows: { name: string }[]) => [...new Set(rows.map((r) => r.name))].sort();
  if (TEST_DATABASE_URL) {
    const of = (fn: string) =>
      testSql(a)
        .prepare(
          `SELECT c.relname AS name FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_proc p ON p.oid = g.tgfoid WHERE NOT g.tgisinternal AND p.proname = '${fn}'`,
        )
        .all<{ name: string }>();
    assert.deepEqual(names(await of('tidings_notify_change')), watched.changes);
    assert.deepEqual(names(await of('tidings_notify_auth_change')), watched.auth);
  } else {
    const of = (column: string) =>
      testSql(a)
        .prepare(
          `SELECT tbl_name AS name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%change_counter SET%' AND sql LIKE '%${column} = ${column} + 1%'`,
        )
        .all<{ name: string }>();
    // search_postings: no SQLite process holds postings between searches (migration 195).
    assert.deepEqual(
      names(await of('changes')),
      [...watched.changes.filter((t) => t !== 'search_postings'), 'schema_migrations'].sort(),
    );
    assert.deepEqual(names(await of('auth')), [...watched.auth, 'schema_migrations'].sort());
  }
});
