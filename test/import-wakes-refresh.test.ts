// An OPML import is fetched in seconds, not at the scheduler's next tick, whichever worker of
// `tidings serve --workers 2` took the request: the background worker runs the refresh loop, and
// an import on the other one reaches it through the supervisor. Real processes, a real feed
// server, the Reader API's subscription/import; the tick is an hour, so only the wake can fetch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDataDir } from './helpers.ts';
import { request, serveWorkers, type Served } from './serve-helper.ts';
import { FeedServer } from './reader-harness.ts';
import { openApp } from './chat-api-helpers.ts';
import { hashPassword } from '../src/auth/passwords.ts';

const PASSWORD = 'correct horse battery';
let s: Served;
let feeds: FeedServer;

before(async () => {
  feeds = await new FeedServer().start();
  for (let i = 0; i < 6; i++) feeds.addItems(`imported${i}`, 2 + i);
  const dataDir = tempDataDir('tidings-import-wake-');
  const app = await openApp(dataDir, { allowPrivateNetworks: true });
  try {
    await app.users.create('alice', await hashPassword(PASSWORD), null);
  } finally {
    await app.close();
  }
  s = await serveWorkers(dataDir, 2, {
    TIDINGS_SCHEDULER: 'true',
    TIDINGS_SCHEDULER_TICK_SECONDS: '3600',
    TIDINGS_WORKER_BALANCING: 'round-robin',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    TIDINGS_LOG_LEVEL: 'info',
  });
});

after(async () => {
  if (s && s.process.exitCode === null && s.process.signalCode === null) await s.stop('SIGKILL');
  await feeds?.close();
});

test('feeds imported through either worker are fetched within seconds', async () => {
  // The scheduler's first pass (at start, nothing due) is over before the imports.
  await new Promise((r) => setTimeout(r, 500));
  const login = await request(`${s.url}/accounts/ClientLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD }).toString(),
  });
  assert.equal(login.status, 200, login.body);
  const auth = `GoogleLogin auth=${/Auth=(.+)/.exec(login.body)![1]}`;
  const api = `${s.url}/reader/api/0`;
  // One feed per import, until each worker has taken one (round-robin: two or three imports).
  const importedBy = new Map<number, string>();
  for (let i = 0; i < 6 && importedBy.size < 2; i++) {
    const url = feeds.url(`imported${i}`);
    const r = await request(`${api}/subscription/import`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'text/xml' },
      body: `<?xml version="1.0"?><opml version="2.0"><body><outline type="rss" text="Feed ${i}" xmlUrl="${url}"/></body></opml>`,
    });
    assert.equal(r.status, 200, r.body);
    if (!importedBy.has(r.worker!)) importedBy.set(r.worker!, url);
  }
  assert.deepEqual([...importedBy.keys()].sort(), [1, 2], 'both workers took an import');
  const unread = async () => {
    const r = await request(`${api}/unread-count?output=json`, { headers: { authorization: auth } });
    assert.equal(r.status, 200, r.body);
    const j = JSON.parse(r.body) as { unreadcounts: { id: string; count: number }[] };
    return new Map(j.unreadcounts.map((u) => [u.id, u.count]));
  };
  const deadline = Date.now() + 20_000;
  let counts = await unread();
  while (Date.now() < deadline && [...importedBy.values()].some((u) => !counts.get(`feed/${u}`))) {
    await new Promise((r) => setTimeout(r, 200));
    counts = await unread();
  }
  for (const [worker, url] of importedBy)
    assert.ok(counts.get(`feed/${url}`), `the feed imported through worker ${worker} was fetched: ${[...counts]}`);
  await s.waitForLog((l) => l.msg === 'scheduled feed refresh done', 1000);
});
