// Upkeep at the end of refresh rounds (favicon look-ups, WebSub maintenance) runs in one process
// at a time among all on one database, and once a minute at most across them
// (src/feeds/upkeep-lease.ts, migration 110). Two Apps on one database are two processes here
// (each has its own claim owner), on the backend the suite runs on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { refreshFavicons } from '../src/feeds/favicons.ts';
import { maintainWebSub } from '../src/feeds/websub/websub.ts';
import { subscribe } from '../src/feeds/subscriptions.ts';
import { testSql } from '../src/store/testing.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { FeedServer } from './reader-harness.ts';
import { tempDataDir } from './helpers.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]);

const open = (dataDir: string) =>
  createApp(
    loadConfig({
      env: {},
      overrides: { dataDir, logLevel: 'silent', allowPrivateNetworks: true, schedulerEnabled: false },
    }),
    silentLogger,
  );

test('an upkeep lease is held by one owner at a time, spares others for a while, and runs out after a crash', async (t) => {
  const dataDir = tempDataDir('tidings-upkeep-');
  const a = await open(dataDir);
  const b = await open(dataDir);
  // Leases run by the database's clock: the test lets real time pass, in short leases and spells.
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const lease = (app: App, owner: string, leaseMs = 60_000, othersFinishedWithinMs = 60_000) =>
      app.store.upkeepLeases.claim('favicons', owner, { leaseMs, othersFinishedWithinMs });
    assert.equal(await lease(a, 'A'), true);
    assert.equal(await lease(b, 'B'), false, 'held by A');
    assert.equal(await lease(a, 'A'), false, 'held by A, even for A (a second run of its own)');
    assert.equal(await a.store.upkeepLeases.renew('favicons', 'B', 60_000), false, 'only the holder renews');
    assert.equal(await a.store.upkeepLeases.renew('favicons', 'A', 60_000), true);
    await a.store.upkeepLeases.finish('favicons', 'A');
    assert.equal(await lease(b, 'B'), false, 'A ran it just now');
    assert.equal(await lease(a, 'A'), true, 'A itself may run it again');
    await a.store.upkeepLeases.finish('favicons', 'A');
    await sleep(30);
    // B's lease is long enough for A's next question to come inside it: with 20 ms, A's question on
    // PostgreSQL came after it had run out once in CI (a0403d4, load 4).
    assert.equal(await lease(b, 'B', 400, 25), true, 'once the spell has passed, B takes it');
    // B crashes: its lease runs out, and A takes the task over.
    assert.equal(await lease(a, 'A', 60_000, 0), false);
    await sleep(450);
    assert.equal(await lease(a, 'A', 60_000, 0), true);
    // A process whose clock is a day off changes none of this: the times are the database's.
    const realNow = Date.now.bind(Date);
    t.mock.method(Date, 'now', () => realNow() + 86_400_000);
    assert.equal(await lease(b, 'B', 60_000, 0), false, "A's lease holds for a clock a day ahead");
    t.mock.restoreAll();
    // Asked at the same moment by both, one gets it.
    await a.store.upkeepLeases.finish('favicons', 'A');
    const both = await Promise.all([
      ...Array.from({ length: 5 }, () => lease(a, 'A', 60_000, 0)),
      ...Array.from({ length: 5 }, () => lease(b, 'B', 60_000, 0)),
    ]);
    assert.equal(both.filter(Boolean).length, 1, both.join(' '));
  } finally {
    await b.close();
    await a.close();
  }
});

test('two processes ending their refresh rounds at once look each new icon up once', async () => {
  const feeds = await new FeedServer().start();
  const hits = new Map<string, number>();
  const names = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (const n of names) {
    feeds.addItems(n, 1, n);
    feeds.routes.set(`/site/${n}`, (_q: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<html><head><link rel="icon" href="/icon-${n}.png"></head></html>`);
    });
    // Slow enough that the two look-up runs would overlap without the lease.
    feeds.routes.set(`/icon-${n}.png`, (_q: IncomingMessage, res: ServerResponse) => {
      hits.set(n, (hits.get(n) ?? 0) + 1);
      setTimeout(() => {
        res.setHeader('content-type', 'image/png');
        res.end(PNG);
      }, 150);
    });
  }
  const dataDir = tempDataDir('tidings-upkeep-');
  const a = await open(dataDir);
  const b = await open(dataDir);
  try {
    const user = await a.users.create('alice', await hashPassword('pw-alice-secret'), null);
    for (const n of names) await subscribe(a, user.id, feeds.url(n));
    await testSql(a).exec('DELETE FROM feed_icons');
    hits.clear();
    const [foundA, foundB] = await Promise.all([refreshFavicons(a), refreshFavicons(b)]);
    assert.deepEqual([foundA, foundB].sort(), [0, names.length], 'one process did the look-ups, the other none');
    for (const n of names) assert.equal(hits.get(n), 1, `icon ${n} fetched ${hits.get(n) ?? 0} times`);
    const stored = (await testSql(b).prepare('SELECT count(*) AS n FROM feed_icons WHERE data IS NOT NULL').get()) as {
      n: number;
    };
    assert.equal(Number(stored.n), names.length);
    // The other process's next round, within the minute, leaves it: nothing is fetched again.
    await testSql(a).exec('DELETE FROM feed_icons');
    const idle = foundA === 0 ? a : b;
    assert.equal(await refreshFavicons(idle), 0);
    assert.equal(
      [...hits.values()].reduce((x, y) => x + y, 0),
      names.length,
    );
    // WebSub maintenance takes its own lease: held elsewhere, this process does nothing.
    assert.ok(await a.store.upkeepLeases.claim('websub', 'elsewhere', { leaseMs: 60_000, othersFinishedWithinMs: 0 }));
    assert.deepEqual(await maintainWebSub(a), { subscribed: 0, unsubscribed: 0, failed: 0 });
  } finally {
    await b.close();
    await a.close();
    await feeds.close();
  }
});
