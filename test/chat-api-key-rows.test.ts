// The API key rows a process keeps to authenticate chat requests (AuthRowCache in
// src/store/portable/api-keys.ts): one read for answers in a row, and never a request let in
// after a revocation, whether this process (on PostgreSQL before its own change notification
// arrives) or another one (the CLI, a second server process) revoked, disabled, re-tiered or
// deleted the key: on PostgreSQL once its notification arrived, on SQLite at the very next request
// (PRAGMA data_version, read once per event-loop turn). Runs on SQLite, and on PostgreSQL with
// TIDINGS_TEST_DATABASE_URL.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, post, ask, openApp, type Fixture } from './chat-api-helpers.ts';
import { TEST_DATABASE_URL } from './helpers.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import type { App } from '../src/runtime/app.ts';
import { changeNumberMoved, notificationsHeldBack, steadyChangeNumber, testSql } from '../src/store/testing.ts';
import type { Sql } from '../src/store/sql.ts';

const RATE_LIMITS = { sonar: [100, 200, 300, 400, 500, 600], 'deep-research': [10, 10, 10, 10, 10, 10] };

let f: Fixture;
/** A second store on the same database: another process, as far as caches and notifications go. */
let other: App;
before(async () => {
  f = await fixture({ rateLimits: RATE_LIMITS });
  other = await openApp(f.dataDir, { rateLimits: RATE_LIMITS });
});
after(async () => {
  await other.close();
  await f.close();
});

/** PostgreSQL's second change number (migrations 095 and 135), or undefined on SQLite. */
const authGeneration = (app: App): number | undefined =>
  (app.store.changes as { authGeneration?: () => number }).authGeneration?.();

/** Waits until the change listener is up and quiet: until then every lookup reads (nothing is kept). */
const listenerSteady = (app: App) => steadyChangeNumber(() => authGeneration(app));

/**
 * Waits for another process's `auth` notification to arrive (at its commit). Not on SQLite: there
 * the next request must already see the other process's commit (its own event-loop turn reads
 * PRAGMA data_version), with no wait.
 */
async function notified(app: App, from: number | undefined, what: string): Promise<void> {
  if (from === undefined || !TEST_DATABASE_URL) return;
  await changeNumberMoved(() => authGeneration(app), from, `no change notification within 1 s after ${what}`, 1000);
}

/** The API key rows this process reads while `run` runs (on either backend). */
async function keyReads(run: () => Promise<void>): Promise<number> {
  const sql = (chatStore(f.app).keys as unknown as { s: Sql }).s;
  const prepare = sql.prepare;
  let reads = 0;
  sql.prepare = (text: string) => {
    if (/\bFROM api_keys WHERE id\b/i.test(text)) reads++;
    return prepare.call(sql, text);
  };
  try {
    await run();
  } finally {
    sql.prepare = prepare;
  }
  return reads;
}

/** Runs `run` with this process's change notifications held back (as if slow to arrive), listening. */
async function notificationsLate(app: App, run: () => Promise<void>): Promise<void> {
  await notificationsHeldBack(app, async (listening) => {
    assert.equal(listening, Boolean(TEST_DATABASE_URL), 'the change listener is up on PostgreSQL');
    await run();
  });
}

async function newKey(app: App, tier = 0): Promise<{ url: string; key: string; id: string }> {
  const { key, record } = await createApiKey(chatStore(app).keys, f.userId, 'rows', tier);
  return { url: f.url, key, id: record.id };
}

const answer = (k: { url: string; key: string }) => post(k, '/chat/completions', ask());

/**
 * Two answers; the second must use the row the first one kept (else the checks after a revocation
 * below would pass without testing what is kept).
 */
async function answeredTwice(k: { url: string; key: string }): Promise<void> {
  assert.equal((await answer(k)).status, 200);
  const reads = await keyReads(async () => assert.equal((await answer(k)).status, 200));
  assert.equal(reads, 0, 'the key row is held');
}

test('two chat answers in a row read the API key row once', async () => {
  await listenerSteady(f.app);
  const k = await newKey(f.app);
  const reads = await keyReads(async () => {
    for (let i = 0; i < 2; i++) assert.equal((await answer(k)).status, 200);
  });
  assert.equal(reads, 1, 'the second answer authenticates with the row the first one read');
});

test('a key revoked, disabled or re-tiered through this process applies on the very next request, notified or not', async () => {
  await listenerSteady(f.app);
  const keys = chatStore(f.app).keys;
  const k = await newKey(f.app);
  await answeredTwice(k);
  assert.equal((await answer(k)).headers.get('x-ratelimit-limit-requests'), '100');

  await notificationsLate(f.app, async () => {
    await keys.setTier(k.id, 3);
    let r = await answer(k);
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), '400', 'the new tier at once');

    await keys.setDisabled(k.id, true);
    assert.equal((await answer(k)).status, 403, 'disabled at once');
    await keys.setDisabled(k.id, false);
    assert.equal((await answer(k)).status, 200, 'enabled at once');

    await keys.revoke(k.id);
    r = await answer(k);
    assert.equal(r.status, 401, 'revoked at once');
    assert.match(r.json.error.message, /Invalid or revoked API key/);
  });
});

test('a key revoked, disabled or re-tiered by another process stops applying here at its commit', async () => {
  await listenerSteady(f.app);
  const theirs = chatStore(other).keys;
  const revoked = await newKey(f.app);
  const disabled = await newKey(f.app);
  const tiered = await newKey(f.app);
  for (const k of [revoked, disabled, tiered]) await answeredTwice(k);

  let g = authGeneration(f.app);
  assert.equal(await theirs.revoke(revoked.id), true);
  await notified(f.app, g, 'another process revoked the key');
  assert.equal((await answer(revoked)).status, 401, 'revoked elsewhere: refused right after the notification');
  assert.equal((await answer(disabled)).status, 200, 'the other keys still work');

  g = authGeneration(f.app);
  assert.equal(await theirs.setDisabled(disabled.id, true), true);
  await notified(f.app, g, 'another process disabled the key');
  assert.equal((await answer(disabled)).status, 403, 'disabled elsewhere: refused right after the notification');

  g = authGeneration(f.app);
  assert.equal(await theirs.setTier(tiered.id, 2), true);
  await notified(f.app, g, 'another process changed the tier');
  assert.equal((await answer(tiered)).headers.get('x-ratelimit-limit-requests'), '300', 'the new tier at once');

  // Deleted outright (by hand, or a tool that bypasses the repository): no revocation stamp at all.
  const deleted = await newKey(f.app);
  await answeredTwice(deleted);
  g = authGeneration(f.app);
  assert.equal((await testSql(other).prepare('DELETE FROM api_keys WHERE id = ?').run(deleted.id)).changes, 1);
  await notified(f.app, g, 'another process deleted the key');
  assert.equal((await answer(deleted)).status, 401, 'deleted elsewhere: refused at once');
});

test("a deleted user's keys stop working at once, deleted here or by another process", async () => {
  await listenerSteady(f.app);
  for (const [app, what] of [
    [f.app, 'this process'],
    [other, 'another process'],
  ] as const) {
    const user = await f.app.store.users.create(`gone-${what.replace(' ', '-')}`, 'x');
    const { key } = await createApiKey(chatStore(f.app).keys, user.id, 'doomed', 0);
    const k = { url: f.url, key };
    await answeredTwice(k);
    const g = authGeneration(f.app);
    if (app === other) {
      assert.equal(await app.store.users.delete(user.id), true);
      await notified(f.app, g, 'another process deleted the user');
      assert.equal((await answer(k)).status, 401, `user deleted by ${what}`);
    } else
      await notificationsLate(f.app, async () => {
        assert.equal(await app.store.users.delete(user.id), true);
        assert.equal((await answer(k)).status, 401, `user deleted by ${what}`);
      });
  }
});
