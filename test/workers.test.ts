// `tidings serve --workers N` with real processes and real HTTP clients, on the backend the suite
// runs on (SQLite file; PostgreSQL with TIDINGS_TEST_DATABASE_URL): limits hold in total across
// workers, a killed worker is replaced while the others finish what they serve, SIGTERM lets an
// SSE stream run to its end, and unread counts stay exact under writes spread over the workers.
// Every request goes on a connection of its own, so the supervisor spreads them over the workers;
// each answer names its worker (x-tidings-worker), which the assertions use.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDataDir } from './helpers.ts';
import { request, serveWorkers, workerPids, type PlainResponse, type Served } from './serve-helper.ts';
import { FeedServer, S } from './reader-harness.ts';
import { openApp } from './chat-api-helpers.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { subscribe } from '../src/feeds/subscriptions.ts';
import { subscriptionList } from '../src/reader-api/labels-and-counts.ts';

const PASSWORD = 'correct horse battery';
const WORKERS = 3;
const SLOW_FEEDS = 6;
const RATE_LIMIT = 5;

/** An OpenAI-compatible server that streams `words` words, one every `everyMs` (both settable). */
async function slowLlm(): Promise<{ url: string; words: number; everyMs: number; close(): Promise<void> }> {
  const llm = {
    url: '',
    words: 1,
    everyMs: 1,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const timer = setInterval(() => {
        if (i < llm.words) res.write(chunk({ content: `w${i++} ` }, null));
        else {
          clearInterval(timer);
          res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
        }
      }, llm.everyMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  llm.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return llm;
}

// One server for the whole file (starting workers is the slow part): the tests run in order and
// the last one stops it.
let s: Served;
let key: string;
let llm: Awaited<ReturnType<typeof slowLlm>>;
let feeds: FeedServer;
let slowArrived = 0;
let dataDir: string;
let allSlowArrived!: () => void;
const slowInFlight = new Promise<void>((r) => (allSlowArrived = r));

before(async () => {
  llm = await slowLlm();
  feeds = await new FeedServer().start();
  feeds.addItems('news', 40);
  // Slow feeds: each subscription request waits ~2 s on its fetch, so all are in flight at once.
  for (let i = 0; i < SLOW_FEEDS; i++) {
    feeds.addItems(`slow${i}`, 2);
    feeds.routes.set(`/slow/${i}.xml`, (_req, res) => {
      if (++slowArrived === SLOW_FEEDS) allSlowArrived();
      setTimeout(
        () =>
          http.get(feeds.url(`slow${i}`), (up) => {
            res.writeHead(200, { 'content-type': 'application/rss+xml' });
            up.pipe(res);
          }),
        2000,
      );
    });
  }
  dataDir = tempDataDir('tidings-workers-');
  const app = await openApp(dataDir, { allowPrivateNetworks: true });
  try {
    const user = await app.users.create('alice', await hashPassword(PASSWORD), null);
    key = (await createApiKey(chatStore(app).keys, user.id, 'test', 0)).key;
    await subscribe(app, user.id, feeds.url('news'));
  } finally {
    await app.close();
  }
  // Round-robin (the default, named here because the assertions need every worker to get
  // connections in turn; under reuse-port the kernel picks by address hash: worker-balancing.test.ts).
  s = await serveWorkers(dataDir, WORKERS, {
    TIDINGS_WORKER_BALANCING: 'round-robin',
    TIDINGS_LOG_LEVEL: 'info',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    TIDINGS_LLM_BASE_URL: llm.url,
    TIDINGS_LLM_MODEL: 'm',
    TIDINGS_RATE_LIMITS: JSON.stringify({ sonar: [RATE_LIMIT, 150, 500, 1000, 4000, 4000] }),
    TIDINGS_LOGIN_FAILURES_PER_MINUTE: '3',
  });
});

after(async () => {
  if (s && s.process.exitCode === null && s.process.signalCode === null) await s.stop('SIGKILL');
  await llm?.close();
  await feeds?.close();
});

const chat = (url: string, body: Record<string, unknown>) =>
  request(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      model: 'sonar',
      disable_search: true,
      messages: [{ role: 'user', content: 'What is new?' }],
      ...body,
    }),
  });

async function clientLogin(url: string, password: string, user = 'alice') {
  return request(`${url}/accounts/ClientLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Email: user, Passwd: password }).toString(),
  });
}

test('a rate limit of N per minute and the login throttle hold in total across the workers', async () => {
  const replies = await Promise.all(Array.from({ length: 16 }, () => chat(s.url, {})));
  assert.deepEqual(
    replies.map((r) => r.status).sort(),
    [...Array(RATE_LIMIT).fill(200), ...Array(16 - RATE_LIMIT).fill(429)],
    replies.map((r) => `${r.status} ${r.body.slice(0, 200)}`).join('\n'),
  );
  assert.ok(new Set(replies.map((r) => r.worker)).size >= 2, 'the requests were served by several workers');
  const limited = replies.find((r) => r.status === 429)!;
  assert.ok(Number(limited.headers['retry-after']) >= 1);

  // Failed logins (of a user who does not exist, as a guesser's), one after another, land on
  // different workers: the fourth is refused wherever it lands.
  const logins = [];
  for (let i = 0; i < 6; i++) logins.push(await clientLogin(s.url, 'wrong password', 'bob'));
  assert.deepEqual(
    logins.map((r) => r.status),
    [401, 401, 401, 429, 429, 429],
    logins.map((r) => `${r.worker}: ${r.status} ${r.body}`).join('\n'),
  );
  assert.ok(new Set(logins.map((r) => r.worker)).size >= 2, 'the logins were served by several workers');
});

async function readerAuth(): Promise<string> {
  const login = await clientLogin(s.url, PASSWORD);
  assert.equal(login.status, 200, login.body);
  return `GoogleLogin auth=${/Auth=(.+)/.exec(login.body)![1]}`;
}

test('unread counts stay exact while clients spread over the workers mark items read at once', async () => {
  const auth = await readerAuth();
  const api = `${s.url}/reader/api/0`;
  const get = async (path: string) => {
    const r = await request(`${api}/${path}`, { headers: { authorization: auth } });
    assert.equal(r.status, 200, r.body);
    return r;
  };
  const token = (await get('token')).body.trim();
  const ids = (
    JSON.parse((await get(`stream/items/ids?s=${S.readingList}&n=100`)).body) as { itemRefs: { id: string }[] }
  ).itemRefs.map((r) => r.id);
  assert.equal(ids.length, 40);
  const unread = async () => {
    const j = JSON.parse((await get('unread-count?output=json')).body) as {
      unreadcounts: { id: string; count: number }[];
    };
    return j.unreadcounts.find((u) => u.id === S.readingList)?.count ?? 0;
  };
  assert.equal(await unread(), 40);
  // 30 items marked read, each by two clients at once: 60 writes at the same moment.
  const toRead = ids.slice(0, 30);
  const replies = await Promise.all(
    [...toRead, ...toRead].map((id) =>
      request(`${api}/edit-tag`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ i: id, a: S.read, T: token }).toString(),
      }),
    ),
  );
  assert.deepEqual(
    [...new Set(replies.map((r) => r.status))],
    [200],
    replies
      .filter((r) => r.status !== 200)
      .map((r) => r.body)
      .join('\n'),
  );
  assert.ok(new Set(replies.map((r) => r.worker)).size >= 2, 'the writes went through several workers');
  // Asked on several connections, so several workers answer: every one says 10.
  assert.deepEqual(await Promise.all(Array.from({ length: 6 }, () => unread())), Array(6).fill(10));
  const stillUnread = JSON.parse((await get(`stream/items/ids?s=${S.readingList}&xt=${S.read}&n=100`)).body) as {
    itemRefs: unknown[];
  };
  assert.equal(stillUnread.itemRefs.length, 10);
});

test('a killed worker is replaced, and the requests in flight on the other workers finish', async () => {
  const auth = await readerAuth();
  const subscriptions = Array.from({ length: SLOW_FEEDS }, (_, i) =>
    request(`${s.url}/reader/api/0/subscription/quickadd`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ quickadd: `${feeds.base}/slow/${i}.xml` }).toString(),
    }).catch((e: Error) => e),
  );
  await slowInFlight;
  const victim = 2;
  const oldPid = workerPids(s).get(victim)!;
  process.kill(oldPid, 'SIGKILL');
  const results = await Promise.all(subscriptions);
  const ok = results.filter((r): r is PlainResponse => !(r instanceof Error));
  assert.ok(ok.length < SLOW_FEEDS, 'the killed worker had connections (they are handed out in turn)');
  assert.ok(ok.length >= 1, 'the other workers had connections');
  for (const r of ok) {
    assert.equal(r.status, 200, r.body);
    assert.notEqual(r.worker, victim, 'answered by a surviving worker');
  }
  await s.waitForLog((l) => l.msg === 'worker died; starting a new one' && l.worker === victim);
  const back = await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === victim && l.pid !== oldPid);
  assert.notEqual(back.pid, oldPid);
  const seen = new Set<number | undefined>();
  for (let i = 0; i < 3 * WORKERS && !seen.has(victim); i++) seen.add((await request(`${s.url}/healthz`)).worker);
  assert.ok(seen.has(victim), 'the replacement serves again');
});

test('SIGTERM drains: an SSE stream in flight runs to its end, then every worker exits', async () => {
  // A client that gave up: its quickadd is still fetching the feed (4 s) when the signal comes. The
  // worker must finish it before closing its store, though no connection is left to wait for.
  let abandonedArrived!: () => void;
  const arrived = new Promise<void>((r) => (abandonedArrived = r));
  feeds.addItems('abandoned', 2);
  feeds.routes.set('/abandoned.xml', (_req, res) => {
    abandonedArrived();
    setTimeout(
      () =>
        http.get(feeds.url('abandoned'), (up) => {
          res.writeHead(200, { 'content-type': 'application/rss+xml' });
          up.pipe(res);
        }),
      4000,
    );
  });
  const gaveUp = http.request(`${s.url}/reader/api/0/subscription/quickadd`, {
    method: 'POST',
    headers: { authorization: await readerAuth(), 'content-type': 'application/x-www-form-urlencoded' },
    // Keep-alive, as apps and browsers connect: the server goes on reading the connection and sees it close.
    agent: new http.Agent({ keepAlive: true }),
  });
  gaveUp.on('error', () => {});
  gaveUp.end(new URLSearchParams({ quickadd: `${feeds.base}/abandoned.xml` }).toString());
  await arrived;
  gaveUp.destroy();

  llm.words = 20;
  llm.everyMs = 100;
  let firstBytes!: () => void;
  const streaming = new Promise<void>((r) => (firstBytes = r));
  const reply = request(`${s.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      model: 'sonar-pro',
      stream: true,
      disable_search: true,
      messages: [{ role: 'user', content: 'Count for me' }],
    }),
    onResponse: (res) => res.once('data', () => firstBytes()),
  });
  await streaming;
  const requestsBefore = await usageRequests();
  const signalled = Date.now();
  s.process.kill('SIGTERM');
  const r = await reply;
  assert.equal(r.status, 200);
  assert.ok(Date.now() - signalled > 500, 'the stream went on after the signal');
  const text = r.body
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
    .join('');
  for (let i = 0; i < 20; i++) assert.match(text, new RegExp(`\\bw${i}\\b`), `word ${i} arrived`);
  assert.match(r.body, /data: \[DONE\]/);
  assert.equal(await s.exited, 0, s.lines.slice(-20).join('\n'));
  assert.equal(s.lines.filter((l) => l.includes('drained and stopped')).length, WORKERS, 'every worker drained');
  // The stream's usage row is written after it ends, while the server drains: before the store closes.
  assert.ok(!s.lines.some((l) => l.includes('could not record chat usage')), s.lines.slice(-20).join('\n'));
  assert.equal(await usageRequests(), requestsBefore + 1, 'the drained stream has its usage row');
  assert.equal(await subscribedTo(`${feeds.base}/abandoned.xml`), true, 'the abandoned quickadd was finished');
  assert.ok(!s.lines.some((l) => /not open|after calling end/.test(l)), s.lines.slice(-20).join('\n'));
});

async function subscribedTo(url: string): Promise<boolean> {
  const app = await openApp(dataDir, { allowPrivateNetworks: true });
  try {
    const user = await app.users.findByName('alice');
    return (await subscriptionList(app, user!.id)).some((sub) => sub.url === url);
  } finally {
    await app.close();
  }
}

async function usageRequests(): Promise<number> {
  const app = await openApp(dataDir, { allowPrivateNetworks: true });
  try {
    return (await chatStore(app).usage.totals({})).reduce((n, t) => n + t.requests, 0);
  } finally {
    await app.close();
  }
}
