// Concurrent read changes on PostgreSQL: the unread counters' triggers lock a user's subscriptions
// in one order (migration 170), and a statement that still loses a deadlock is run again instead
// of answering 500. test/reader-isolation.test.ts's 41 concurrent edit-tag and mark-all-as-read calls
// saw a 500 once in CI; under two busy loops the same calls deadlocked in the counter trigger.
// Runs with TIDINGS_TEST_DATABASE_URL (.ci/run's second pass). (pg_stat_activity is read on a
// connection of its own: inside a transaction it would show the same snapshot every time.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from '../../../test/reader-harness.ts';
import { check, ItemIds } from '../../../test/reader-schemas.ts';
import { TEST_DATABASE_URL } from '../../../test/helpers.ts';

const skip = TEST_DATABASE_URL
  ? false
  : 'skipped on SQLite: one writer at a time there (set TIDINGS_TEST_DATABASE_URL)';

let h: Harness;
let alice: ReaderClient;
let sub: { shared: number; other: number };
let item: { shared: string; other: string };

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: h.app.config.databaseUrl });
  await c.connect();
  return c;
}

/** Resolves once a backend of the app waits on a lock in `UPDATE user_items` (the edit-tag statement). */
async function editWaitingOnLock(c: pg.Client): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await c.query(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE user_items%' AND pid <> pg_backend_pid()",
    );
    if (r.rowCount) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the edit-tag statement never waited on the subscription locked by the test');
}

before(async () => {
  if (skip) return;
  h = await startHarness();
  h.feeds.addItems('shared', 5, 'Shared Feed');
  h.feeds.addItems('other', 5, 'Other Feed');
  await addUser(h.app, 'alice', 'pw-alice-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  const stream = async (name: string) =>
    (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url(name)]])).json().streamId as string;
  const streams = { shared: await stream('shared'), other: await stream('other') };
  const first = async (s: string) =>
    check(ItemIds, (await alice.get('stream/items/ids', [['s', s]])).json(), 'ids').itemRefs[0]!.id;
  item = { shared: await first(streams.shared), other: await first(streams.other) };
  const c = await connect();
  try {
    const ids = (
      await c.query<{ id: string; url: string }>(
        'SELECT s.id, f.url FROM subscriptions s JOIN feeds f ON f.id = s.feed_id ORDER BY s.id',
      )
    ).rows;
    sub = {
      shared: Number(ids.find((r) => r.url === h.feeds.url('shared'))!.id),
      other: Number(ids.find((r) => r.url === h.feeds.url('other'))!.id),
    };
  } finally {
    await c.end();
  }
});
after(async () => {
  if (!skip) await h.close();
});

const markBoth = (tag: 'a' | 'r') =>
  alice.post('edit-tag', [
    ['i', item.shared],
    ['i', item.other],
    [tag, S.read],
  ]);

test("the counter trigger locks a user's subscriptions in id order, not in the order a scan finds them", {
  skip,
}, async () => {
  const [first, second] = [Math.min(sub.shared, sub.other), Math.max(sub.shared, sub.other)];
  const holder = await connect();
  const prober = await connect();
  try {
    // A new version of the first subscription row lands after the second's in the page: a
    // sequential scan now meets the second first.
    await holder.query('UPDATE subscriptions SET unread_count = unread_count WHERE id = $1', [first]);
    const scanOrder = (await holder.query('SELECT id FROM subscriptions ORDER BY ctid')).rows.map((r) => Number(r.id));
    assert.ok(scanOrder.indexOf(second) < scanOrder.indexOf(first), `scan order ${scanOrder}`);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE', [second]);
    const edit = markBoth('a');
    await editWaitingOnLock(prober);
    // Waiting for the second, the statement already holds the first.
    await assert.rejects(
      prober.query('SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE NOWAIT', [first]),
      (e: { code?: string }) => e.code === '55P03',
      'the first subscription was not locked while the statement waited for the second',
    );
    await holder.query('COMMIT');
    assert.equal((await edit).status, 200);
  } finally {
    await holder.query('ROLLBACK').catch(() => {});
    await holder.end();
    await prober.end();
  }
});

test('an edit-tag statement that loses a deadlock is run again: 200, counters exact', { skip }, async () => {
  const [first, second] = [Math.min(sub.shared, sub.other), Math.max(sub.shared, sub.other)];
  const other = await connect();
  const prober = await connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE', [second]);
    const edit = markBoth('r');
    await editWaitingOnLock(prober);
    // The statement holds the first and waits for the second; taking the first here closes the
    // cycle. PostgreSQL aborts the one that has waited longer (deadlock_timeout): the statement.
    await other.query('SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE', [first]);
    await other.query('COMMIT');
    const reply = await edit;
    assert.equal(reply.status, 200, reply.text);
    const counts = (await alice.get('unread-count')).json() as { unreadcounts: { id: string; count: number }[] };
    const unread = (await other.query<{ n: string }>('SELECT count(*) AS n FROM user_items WHERE read = 0')).rows[0]!.n;
    assert.equal(counts.unreadcounts.find((u) => u.id === S.readingList)?.count, Number(unread));
  } finally {
    await other.query('ROLLBACK').catch(() => {});
    await other.end();
    await prober.end();
  }
});
