// `tidings db copy`: a SQLite install moved to PostgreSQL (and to another SQLite file), resumed
// after an interruption, verified, and usable afterwards.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openStore, type Store } from '../src/store/open-store.ts';
import { copyDatabase } from '../src/store/copy.ts';
import { freshPostgresDatabase, runCli, tempDataDir } from './helpers.ts';
import { postgresUnavailable, startCluster, type Cluster } from './postgres-cluster.ts';
import type { ParsedEntry } from '../src/model/parsed-feed.ts';

let cluster: Cluster | undefined;
after(() => cluster?.stop());
async function pgDatabase(): Promise<string> {
  if (process.env.TIDINGS_TEST_DATABASE_URL) return freshPostgresDatabase();
  cluster ??= await startCluster();
  return freshPostgresDatabase(cluster.url);
}

const entry = (guid: string, i: number): ParsedEntry => ({
  guid,
  url: `https://c.example/${guid}`,
  title: `Item ${guid}`,
  author: null,
  publishedAt: 1_700_000_000 + i,
  updatedAt: null,
  content: `<p>Body ${guid}</p>`,
  summary: null,
  enclosures: [],
  imageUrl: null,
  categories: [],
});

/** A small install: 2 users, 3 feeds, 2,400 items (more than one copy batch), states, tags, a token. */
async function seed(dataDir: string): Promise<{ url: string }> {
  const url = `sqlite:${join(dataDir, 'source.db')}`;
  const s = await openStore({ databaseUrl: url, dataDir });
  try {
    const users = [await s.users.create('ann', 'h'), await s.users.create('bob', 'h')];
    for (let f = 0; f < 3; f++) {
      const feed = await s.feeds.create(`https://c.example/feed${f}`, { title: `Feed ${f}` });
      for (const u of users) await s.subscriptions.subscribe(u.id, feed.id, { folders: [`Folder ${f % 2}`] });
      await s.items.upsertEntries(
        feed.id,
        Array.from({ length: 800 }, (_, i) => entry(`${f}-${i}`, i)),
        1_800_000_000_000_000 + f * 1_000_000,
      );
    }
    const page = await s.streams.statesPage({ userId: users[0]!.id, where: [], newestFirst: true, limit: 300 });
    await s.itemStates.setState(
      users[0]!.id,
      'read',
      1,
      page.map((p) => p.itemId),
    );
    await s.itemStates.tagItems(
      users[0]!.id,
      await s.readerLabels.ensureLabel(users[0]!.id, 'keep'),
      page.slice(0, 5).map((p) => p.itemId),
    );
    await s.tokens.insert(
      { tokenHash: 'h1', userId: users[1]!.id, kind: 'clientlogin', scopes: 'read write', expiresAt: 2_000_000_000 },
      1,
    );
    // The reader features' and the web app's own rows travel too.
    await s.fever.setCredential(users[0]!.id, 'mac-of-ann', 1);
    await s.webhooks.create(
      { userId: users[0]!.id, url: 'https://hooks.example/x', events: ['new-item'], secretBox: 'box' },
      1,
    );
    await s.webAccounts.saveSettings(users[1]!.id, '{"theme":"dark"}');
    const conversation = await s.conversations.create(
      { userId: users[1]!.id, title: 'Rhinos', scope: null, model: 'sonar' },
      1,
    );
    await s.conversations.addMessage(conversation.id, { role: 'user', content: 'What happened to the rhino?' }, 1);
  } finally {
    await s.close();
  }
  return { url };
}

async function counters(s: Store, user: string): Promise<number[]> {
  const u = (await s.users.findByName(user))!;
  return (await s.readerLabels.unreadCounters(u.id)).map((c) => c[1]);
}

for (const target of ['sqlite', 'postgres'] as const) {
  const skip = target === 'postgres' ? (postgresUnavailable() ?? false) : false;
  test(`db copy SQLite -> ${target}: interrupted, resumed, verified, usable`, { skip }, async () => {
    const dataDir = tempDataDir('tidings-copy-');
    const { url: from } = await seed(dataDir);
    const to = target === 'sqlite' ? `sqlite:${join(dataDir, 'copy.db')}` : await pgDatabase();

    // Stop it in the middle of user_items (an exception from the progress callback, like Ctrl-C).
    let batches = 0;
    await assert.rejects(
      copyDatabase(from, to, {
        dataDir,
        onProgress: (p) => {
          if (p.table === 'user_items' && p.copied > 0 && ++batches === 1) throw new Error('interrupted');
        },
      }),
      /interrupted/,
    );
    const report = await copyDatabase(from, to, { dataDir });
    const userItems = report.tables.find((t) => t.table === 'user_items')!;
    assert.equal(userItems.rows, 2 * 3 * 800, 'every user item is there once');
    assert.ok(userItems.copiedNow < userItems.rows, 'the second run resumed instead of starting over');
    assert.equal(report.subscriptions, 6);

    const [src, dst] = [await openStore({ databaseUrl: from, dataDir }), await openStore({ databaseUrl: to, dataDir })];
    try {
      assert.deepEqual(await counters(dst, 'ann'), await counters(src, 'ann'));
      assert.ok(
        (await counters(src, 'ann')).some((n) => n < 800),
        'the reads made are part of what is compared',
      );
      // The copy is a working install: new rows get new ids, counters keep following.
      const feed = (await dst.feeds.findByUrl('https://c.example/feed0'))!;
      const more = await dst.items.upsertEntries(feed.id, [entry('new', 9999)], 1_900_000_000_000_000);
      assert.equal(more.added.length, 1);
      const ann = (await dst.users.findByName('ann'))!;
      assert.equal(
        (await dst.subscriptions.find(ann.id, feed.id))!.unreadCount,
        (await src.subscriptions.find(ann.id, feed.id))!.unreadCount + 1,
      );
      assert.ok((await dst.users.create('carol', 'h')).id > 2, 'ids continue after the copied ones');
      assert.equal((await dst.tokens.findByHash('h1'))?.kind, 'clientlogin');
      assert.equal(await dst.fever.userIdByKeyMac('mac-of-ann'), ann.id);
      assert.equal((await dst.webhooks.list(ann.id)).length, 1);
      const bob = (await dst.users.findByName('bob'))!;
      assert.equal(await dst.webAccounts.settings(bob.id), '{"theme":"dark"}');
      const [conversation] = await dst.conversations.list(bob.id, 10);
      assert.equal((await dst.conversations.messages(conversation!.id))[0]?.content, 'What happened to the rhino?');
      const next = await dst.conversations.create({ userId: bob.id, title: 'More', scope: null, model: 'sonar' }, 2);
      assert.ok(next.id > conversation!.id, 'conversation ids continue after the copied ones');
    } finally {
      await src.close();
      await dst.close();
    }

    // Copying again into the now non-empty target is refused unless it is the same copy.
    const other = await seed(tempDataDir('tidings-copy-other-'));
    await assert.rejects(copyDatabase(other.url, to, { dataDir }), /holds a copy of/);
  });
}

test('tidings db copy / migrate from the command line: progress on stderr, one-line errors', async () => {
  const dataDir = tempDataDir('tidings-copy-cli-');
  const { url } = await seed(dataDir);
  const target = join(dataDir, 'cli-copy.db');
  const r = await runCli(['--data', dataDir, 'db', 'copy', '--from', url.replace(/^sqlite:/, ''), '--to', target]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^copied \d+ rows in 32 tables to sqlite:.*verified: row counts and the unread counters of 6 subscriptions match/m,
  );
  assert.match(r.stderr, /copy user_items: 4800\/4800 rows \(100%\)/);
  const bad = await runCli([
    '--data',
    dataDir,
    'db',
    'copy',
    '--from',
    url.replace(/^sqlite:/, ''),
    '--to',
    'postgres://u:pw@127.0.0.1:1/x',
  ]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^tidings: .*TIDINGS_DATABASE_URL=postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/);
  assert.ok(!bad.stderr.includes(':pw@'));
  const m = await runCli(['--data', tempDataDir('tidings-migrate-cli-'), 'migrate']);
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /^(applied \d+ migration\(s\) to .*: 001_core, .*040_chat_api.*|.* is up to date)$/m);
});
