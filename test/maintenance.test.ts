// Backup while the database is in use, restore, and article retention (tidings backup/restore/prune
// and the scheduler's hourly run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { runCli, SQLITE_ONLY, tempDataDir } from './helpers.ts';
import { serve } from './serve-helper.ts';
import { startFeedServer, testApp, rss, addUser, type Entry } from './feeds-fixtures.ts';
import { subscribe, refreshFeed, feedEngine } from '../src/feeds/index.ts';
import { pruneReadArticles, startRetention } from '../src/feeds/retention.ts';
import { searchService } from '../src/search/service.ts';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { openStore } from '../src/store/open-store.ts';
import { testSql } from '../src/store/testing.ts';

/** The users of a database file, read through a store of its own (as another process would). */
async function usernames(file: string): Promise<string[]> {
  const store = await openStore({ databaseUrl: `sqlite:${file}`, dataDir: tempDataDir() });
  try {
    return (await store.users.list()).map((u) => u.username);
  } finally {
    await store.close();
  }
}

test('backup copies the committed state while another connection holds a write transaction open; restore brings it back', {
  timeout: 300_000,
  skip: SQLITE_ONLY,
}, async () => {
  const app = await testApp();
  const data = app.config.dataDir;
  await app.users.create('alice', 'x', null);
  const backupDir = tempDataDir('tidings-backup-');
  const file = join(backupDir, 'tidings-backup.db');
  // A writer mid-transaction, as a server storing a refresh would be.
  const sql = testSql(app);
  await sql.exec('BEGIN IMMEDIATE');
  await sql.prepare("INSERT INTO users (username, password_hash, created_at) VALUES ('uncommitted', 'x', 0)").run();
  const r = await runCli(['--data', data, 'backup', file]);
  await sql.exec('COMMIT');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`backed up ${data} to ${file} \\(\\d+\\.\\d MiB\\)`));
  assert.deepEqual(readdirSync(backupDir), ['tidings-backup.db'], 'no partial file is left behind');
  assert.deepEqual(await usernames(file), ['alice']);

  const again = await runCli(['--data', data, 'backup', file]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists \(use --force/);
  await app.close();

  // Restore over the current database (which now has "uncommitted" too): the old one is kept.
  const restored = await runCli(['--data', data, 'restore', file]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /restored .* the previous database is kept as .*before-restore/);
  assert.deepEqual(await usernames(join(data, 'tidings.db')), ['alice']);
  const kept = readdirSync(data).find((f) => /before-restore-[^.]*Z$/.test(f))!;
  assert.deepEqual(await usernames(join(data, kept)), ['alice', 'uncommitted']);

  // Into an empty folder: a fresh machine.
  const fresh = tempDataDir();
  const r2 = await runCli(['--data', fresh, 'restore', file]);
  assert.equal(r2.code, 0, r2.stderr);
  assert.match((await runCli(['--data', fresh, 'user', 'list'])).stdout, /alice/);
});

test('restore refuses to swap the database under a running server', {
  timeout: 300_000,
  skip: SQLITE_ONLY,
}, async () => {
  const data = tempDataDir();
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse'])).code, 0);
  const file = join(tempDataDir(), 'b.db');
  assert.equal((await runCli(['--data', data, 'backup', file])).code, 0);
  const s = await serve(['--data', data, '--set', 'schedulerEnabled=false', 'serve', '--port', '0']);
  try {
    const r = await runCli(['--data', data, 'restore', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the server \(pid \d+\) is running on .*: stop it first/);
  } finally {
    await s.stop();
  }
  const after = await runCli(['--data', data, 'restore', file]);
  assert.equal(after.code, 0, after.stderr);
});

test('restore refuses a file that is not a Tidings database, and changes nothing', {
  timeout: 300_000,
  skip: SQLITE_ONLY,
}, async () => {
  const data = tempDataDir();
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse'])).code, 0);
  const junk = join(tempDataDir(), 'junk.db');
  writeFileSync(junk, 'not a database at all, just text that is long enough to be read as a header........');
  const r = await runCli(['--data', data, 'restore', junk]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /cannot restore: .*junk\.db/);
  // A SQLite file that is not Tidings': a store's file without its migrations table.
  const other = join(tempDataDir(), 'other.db');
  const foreign = await openStore({ databaseUrl: `sqlite:${other}`, dataDir: tempDataDir() });
  await testSql(foreign).exec('DROP TABLE schema_migrations');
  await foreign.close();
  const r2 = await runCli(['--data', data, 'restore', other]);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /not a Tidings one/);
  assert.deepEqual(await usernames(join(data, 'tidings.db')), ['alice']);
  assert.equal(
    readdirSync(data).some((f) => f.includes('before-restore')),
    false,
  );
});

test('retention deletes only old articles read by everyone and not kept, with counters and the search index in step, and they do not come back', async () => {
  const server = await startFeedServer();
  let entries: Entry[] = ['old-read', 'old-unread-bob', 'old-starred', 'old-tagged', 'new-read'].map((g) => ({
    guid: g,
    title: `Zebrafish ${g}`,
    body: `Zebrafish report ${g}`,
  }));
  server.routes.set('/f.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('Retention', entries));
  });
  const app = await testApp();
  const sql = testSql(app);
  try {
    const alice = await addUser(app, 'alice'),
      bob = await addUser(app, 'bob');
    const { feedId } = await subscribe(app, alice, `${server.base}/f.xml`);
    await subscribe(app, bob, `${server.base}/f.xml`);
    await refreshFeed(app, feedId);
    const id = async (g: string) =>
      ((await sql.prepare('SELECT id FROM items WHERE guid = ?').get(g)) as { id: number }).id;
    await sql.exec('UPDATE user_items SET read = 1');
    await sql
      .prepare('UPDATE user_items SET read = 0 WHERE user_id = ? AND item_id = ?')
      .run(bob, await id('old-unread-bob'));
    await sql
      .prepare('UPDATE user_items SET starred = 1 WHERE user_id = ? AND item_id = ?')
      .run(alice, await id('old-starred'));
    await sql.prepare("INSERT INTO labels (user_id, name) VALUES (?, 'keep')").run(alice);
    await sql
      .prepare("INSERT INTO item_labels (label_id, item_id, user_id) SELECT id, ?, ? FROM labels WHERE name = 'keep'")
      .run(await id('old-tagged'), alice);
    const tenDaysAgoUs = (Date.now() - 10 * 86_400_000) * 1000;
    await sql.prepare("UPDATE items SET crawled_us = ? WHERE guid LIKE 'old-%'").run(tenDaysAgoUs);
    const unread = () => sql.prepare('SELECT user_id, unread_count FROM subscriptions ORDER BY user_id').all();
    const unreadBefore = await unread();

    const r = await pruneReadArticles(app, 7);
    assert.equal(r.deleted, 1);
    const guids = async () =>
      ((await sql.prepare('SELECT guid FROM items ORDER BY guid').all()) as { guid: string }[]).map((x) => x.guid);
    assert.deepEqual(await guids(), ['new-read', 'old-starred', 'old-tagged', 'old-unread-bob']);
    assert.deepEqual(await unread(), unreadBefore);
    assert.equal((await feedEngine(app).feeds.findById(feedId))!.itemCount, 4);
    assert.equal(((await sql.prepare('SELECT count(*) AS n FROM user_items').get()) as { n: number }).n, 8);
    const hits = await searchService(app).search({
      text: 'zebrafish',
      scope: { kind: 'instance' },
      filters: {},
      limit: 10,
    });
    assert.deepEqual(hits.map((h) => h.title).sort(), [
      'Zebrafish new-read',
      'Zebrafish old-starred',
      'Zebrafish old-tagged',
      'Zebrafish old-unread-bob',
    ]);

    // The feed still lists the deleted article: the next fetch must not bring it back as unread.
    entries = [...entries, { guid: 'newer', title: 'Zebrafish newer' }];
    const again = await refreshFeed(app, feedId);
    assert.equal(again.added, 1);
    assert.deepEqual(await guids(), ['new-read', 'newer', 'old-starred', 'old-tagged', 'old-unread-bob']);
  } finally {
    await app.close();
    await server.close();
  }
});

test('the scheduler runs retention when retentionDays is set, with a log line', async () => {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    {
      write: (s: string) => {
        lines.push(s);
      },
    },
  );
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: tempDataDir(), retentionDays: 3 } }), log);
  try {
    const sql = testSql(app);
    const feed = (await sql
      .prepare("INSERT INTO feeds (url, created_at) VALUES ('http://x/f', 0) RETURNING id")
      .get()) as { id: number };
    await sql
      .prepare(
        "INSERT INTO items (feed_id, guid, title, published_at, updated_at, crawled_us, content_hash) VALUES (?, 'g', 't', 0, 0, 1, 'h')",
      )
      .run(feed.id);
    startRetention(app);
    for (let i = 0; i < 100 && !lines.some((l) => l.includes('retention:')); i++)
      await new Promise((r) => setTimeout(r, 20));
    const line = JSON.parse(lines.find((l) => l.includes('retention:'))!);
    assert.equal(line.msg, 'retention: deleted 1 read article(s) older than 3 days');
    assert.equal(line.deleted, 1);
  } finally {
    await app.close();
  }
});

test('tidings prune needs a number of days', async () => {
  const data = tempDataDir();
  await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse']);
  const r = await runCli(['--data', data, 'prune']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--days/);
  const ok = await runCli(['--data', data, 'prune', '--days', '30']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /deleted 0 read article\(s\) older than 30 days/);
  if (!SQLITE_ONLY) assert.ok(existsSync(join(data, 'tidings.db')));
});
