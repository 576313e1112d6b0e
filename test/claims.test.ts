// Several processes on one database share async jobs and feed refreshes without doing any twice
// (issue 12): real `tidings serve` and `tidings refresh` processes, a real LLM-shaped HTTP server
// and real feed servers on loopback addresses, on SQLite (one data folder) or on PostgreSQL when
// TIDINGS_TEST_DATABASE_URL is set. Claims are made short (TIDINGS_CLAIM_LEASE_SECONDS=2) so a
// killed process's work is taken over within seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDataDir } from './helpers.ts';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { testSql } from '../src/store/testing.ts';

const LEASE_S = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function listen(server: Server, host = '127.0.0.1'): Promise<string> {
  return new Promise((r) =>
    server.listen(0, host, () => r(`http://${host}:${(server.address() as { port: number }).port}`)),
  );
}

/** A `tidings` process whose stderr (JSON logs) is kept; resolves once it serves, for `serve`. */
function start(
  args: string[],
  env: Record<string, string>,
): { p: ChildProcess; out: () => string; exited: Promise<number> } {
  const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], {
    // One process per command (no supervisor): the tests count processes and kill them.
    env: { ...process.env, TIDINGS_WORKERS: '1', TIDINGS_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number>((r) => p.on('close', (code) => r(code ?? -1)));
  return { p, out: () => out, exited };
}

async function serveOn(dataDir: string, env: Record<string, string>) {
  const s = start(['--data', dataDir, 'serve', '--port', '0'], env);
  let url = '';
  const served = () => {
    for (const line of s.out().split('\n')) {
      try {
        const rec = JSON.parse(line) as { msg?: string; url?: string };
        if (rec.msg === 'tidings is serving') return rec.url!;
      } catch {
        /* not a log line */
      }
    }
    return '';
  };
  try {
    await until('the server to start', () => Boolean((url = served())) || s.p.exitCode !== null, 60_000);
  } catch (e) {
    s.p.kill('SIGKILL');
    throw e;
  }
  if (!url) throw new Error(`serve did not start:\n${s.out()}`);
  return { ...s, url };
}

/** An OpenAI-compatible server whose answers can be held back (the job then hangs in its process). */
function fakeLlm() {
  const state = { hold: true, requests: 0 };
  const held: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    if (!req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
    state.requests++;
    if (state.hold) return void held.push(res);
    const body = JSON.parse(raw) as { stream?: boolean; model: string };
    const text = 'The answer is forty-two.';
    const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage,
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (o: object) =>
      res.write(
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, ...o })}\n\n`,
      );
    chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] });
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    chunk({ choices: [], usage });
    res.end('data: [DONE]\n\n');
  });
  return {
    state,
    server,
    close: () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

test('an async job submitted once completes once, even when the process running it is killed', {
  timeout: 120_000,
}, async () => {
  const llm = fakeLlm();
  const llmUrl = await listen(llm.server);
  const data = tempDataDir('tidings-claims-');
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse'])).code, 0);
  const created = await runCli(['--data', data, 'key', 'create', 'alice']);
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  const env = {
    TIDINGS_CLAIM_LEASE_SECONDS: String(LEASE_S),
    TIDINGS_LLM_BASE_URL: `${llmUrl}/v1`,
    TIDINGS_LLM_MODEL: 'fake',
    TIDINGS_SCHEDULER: 'false',
  };
  const a = await serveOn(data, env);
  let b: Awaited<ReturnType<typeof serveOn>> | undefined;
  try {
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const submitted = await fetch(`${a.url}/async/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ request: { model: 'r1-1776', messages: [{ role: 'user', content: 'What is it?' }] } }),
    });
    assert.equal(submitted.status, 200, await submitted.clone().text());
    const { id } = (await submitted.json()) as { id: string };
    // The submitting process claims it at once and asks the LLM, which holds the answer back.
    await until('the first process to start the job', () => llm.state.requests === 1);

    // A second process polls for jobs meanwhile: the job is held (its lease renewed), so it waits.
    b = await serveOn(data, env);
    const job = async () =>
      (await (await fetch(`${b!.url}/async/chat/completions/${id}`, { headers: auth })).json()) as {
        status: string;
        response: { choices: { message: { content: string } }[] } | null;
      };
    await sleep(LEASE_S * 1000 * 1.5);
    assert.equal(llm.state.requests, 1, 'a job held by a live process is not run by another');
    assert.equal((await job()).status, 'IN_PROGRESS');

    // kill -9: no shutdown, no lease given back. The second process takes the job once the lease
    // has run out, and this time the LLM answers.
    a.p.kill('SIGKILL');
    await a.exited;
    llm.state.hold = false;
    const killedAt = Date.now();
    await until('the job to complete in the second process', async () => (await job()).status === 'COMPLETED');
    assert.ok(Date.now() - killedAt < (LEASE_S + 8) * 1000, 'taken over soon after the lease ran out');
    const done = await job();
    assert.match(done.response!.choices[0]!.message.content, /forty-two/);
    assert.equal(llm.state.requests, 2, 'run once by the killed process (interrupted) and once to completion');
    await sleep(LEASE_S * 1000);
    assert.equal(llm.state.requests, 2, 'never run again once completed');
    assert.equal((await job()).status, 'COMPLETED');
  } finally {
    a.p.kill('SIGKILL');
    if (b) {
      b.p.kill('SIGTERM');
      await b.exited;
    }
    await llm.close();
  }
  // The job row: two attempts, no lease left, one usage record (only the completing run records).
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent' } }), silentLogger);
  try {
    const row = (await testSql(app).prepare('SELECT attempts, lease_owner, status FROM chat_async_jobs').get()) as {
      attempts: number;
      lease_owner: string | null;
      status: string;
    };
    assert.deepEqual({ ...row }, { attempts: 2, lease_owner: null, status: 'COMPLETED' });
    let usage: { n: number } | undefined;
    for (let i = 0; i < 50 && !usage?.n; i++) {
      usage = (await testSql(app)
        .prepare("SELECT count(*) AS n FROM chat_usage WHERE endpoint = 'async' AND status = 200")
        .get()) as { n: number };
      if (!usage.n) await sleep(100);
    }
    assert.equal(Number(usage!.n), 1);
  } finally {
    await app.close();
  }
});

/**
 * Feed servers on several loopback addresses (each one host): counts the fetches of each feed and
 * the most requests one host had in flight at once. `hold(path)` keeps a feed's answer back.
 */
async function feedHosts(hosts: number, feedsPerHost: number, opts: { delayMs?: number; gateMs?: number } = {}) {
  let firstAt = 0;
  const hits = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const held = new Set<string>();
  const parked: ServerResponse[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let h = 0; h < hosts; h++) {
    const server = createServer(async (req, res) => {
      const url = `http://${req.headers.host}${req.url}`;
      const host = req.headers.host!;
      // The end of a refresh pass looks up favicons on the site (not claimed work): feeds only here.
      if (!/^\/feed\d+\.xml$/.test(req.url ?? '')) return void res.writeHead(404).end();
      hits.set(url, (hits.get(url) ?? 0) + 1);
      inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
      maxInFlight.set(host, Math.max(maxInFlight.get(host) ?? 0, inFlight.get(host)!));
      res.on('close', () => inFlight.set(host, inFlight.get(host)! - 1));
      if (held.has(url)) return void parked.push(res);
      // The gate holds every answer until gateMs after the first request, so processes started
      // together all claim work before the first one could finish it all alone.
      firstAt ||= Date.now();
      await sleep(Math.max(opts.delayMs ?? 0, firstAt + (opts.gateMs ?? 0) - Date.now()));
      const items = Array.from(
        { length: 5 },
        (_, i) =>
          `<item><title>${req.url} post ${i}</title><link>http://${host}/post/${i}</link><guid>${url}#${i}</guid><description>Post ${i} of ${req.url}.</description><pubDate>${new Date(Date.UTC(2026, 10, 1 + i)).toUTCString()}</pubDate></item>`,
      ).join('');
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>${req.url}</title><link>http://${host}/</link>${items}</channel></rss>`,
      );
    });
    servers.push(server);
    const base = await listen(server, `127.0.0.${h + 1}`);
    for (let f = 0; f < feedsPerHost; f++) urls.push(`${base}/feed${f}.xml`);
  }
  return {
    urls,
    hits,
    maxInFlight,
    held,
    release() {
      held.clear();
      for (const r of parked.splice(0)) r.destroy();
    },
    async close() {
      for (const r of parked.splice(0)) r.destroy();
      await Promise.all(
        servers.map((s) => {
          s.closeAllConnections();
          return new Promise((r) => s.close(r));
        }),
      );
    },
  };
}

async function folderWithFeeds(urls: string[]): Promise<string> {
  const data = tempDataDir('tidings-claims-');
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse'])).code, 0);
  const opml = join(data, 'feeds.opml');
  writeFileSync(
    opml,
    `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>${urls.map((u) => `<outline type="rss" text="${u}" xmlUrl="${u}"/>`).join('')}</body></opml>`,
  );
  const r = await runCli(['--data', data, 'opml', 'import', 'alice', opml]);
  assert.equal(r.code, 0, r.stderr);
  return data;
}

const refreshEnv = {
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  TIDINGS_CLAIM_LEASE_SECONDS: String(LEASE_S),
  TIDINGS_PER_HOST_CONCURRENCY: '2',
  TIDINGS_LOG_LEVEL: 'warn',
};

/** "refreshed N feed(s)" of a `tidings refresh` output (0 when every due feed was done elsewhere). */
const refreshedCount = (out: string) => Number(/refreshed (\d+) feed\(s\)/.exec(out)?.[1] ?? 0);

test('three refresh processes on one database fetch each due feed exactly once, within the per-host limit', {
  timeout: 120_000,
}, async (t) => {
  const hosts = await feedHosts(4, 10, { delayMs: 50, gateMs: 3000 });
  try {
    const data = await folderWithFeeds(hosts.urls);
    // 4 fetches at once per process: claims of 8 feeds, so the 40 feeds are spread over the processes.
    const runs = [0, 1, 2].map(() =>
      start(['--data', data, 'refresh'], { ...refreshEnv, TIDINGS_FETCH_CONCURRENCY: '4' }),
    );
    const codes = await Promise.all(runs.map((r) => r.exited));
    const outs = runs.map((r) => r.out());
    assert.deepEqual(codes, [0, 0, 0], outs.join('\n---\n'));
    for (const u of hosts.urls) assert.equal(hosts.hits.get(u), 1, `${u} fetched ${hosts.hits.get(u) ?? 0} times`);
    const counts = outs.map(refreshedCount);
    t.diagnostic(`feeds refreshed by each process: ${counts.join(', ')}`);
    assert.ok(counts.filter((n) => n > 0).length >= 2, `the work was shared: ${counts.join(', ')}`);
    // Places go in turn (refresh_host_waits): the process whose fetch ended does not keep its
    // host's place while others wait (38/2/0 every time before; 8-18 each since).
    assert.ok(Math.max(...counts) <= 30, `no process keeps the hosts to itself: ${counts.join(', ')}`);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      hosts.urls.length,
      `each feed counted by one process: ${counts.join(' + ')}`,
    );
    for (const [host, n] of hosts.maxInFlight) assert.ok(n <= 2, `${host} had ${n} fetches in flight (limit 2)`);
    const app = await createApp(
      loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent' } }),
      silentLogger,
    );
    try {
      const stored = (await testSql(app).prepare('SELECT count(*) AS n FROM items').get()) as { n: number };
      assert.equal(Number(stored.n), hosts.urls.length * 5);
      const claimed = (await testSql(app)
        .prepare('SELECT count(*) AS n FROM feeds WHERE refresh_claimed_by IS NOT NULL')
        .get()) as { n: number };
      assert.equal(Number(claimed.n), 0, 'every claim is released');
    } finally {
      await app.close();
    }
  } finally {
    await hosts.close();
  }
});

test("a killed refresher's feeds are due again once its claims run out, and are fetched then", {
  timeout: 120_000,
}, async () => {
  const hosts = await feedHosts(2, 4);
  try {
    const data = await folderWithFeeds(hosts.urls);
    const stuck = [hosts.urls[1]!, hosts.urls[6]!];
    for (const u of stuck) hosts.held.add(u);
    const first = start(['--data', data, 'refresh'], refreshEnv);
    await until('the first refresher to fetch every feed', () => hosts.urls.every((u) => hosts.hits.get(u) === 1));
    const app = await createApp(
      loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent' } }),
      silentLogger,
    );
    try {
      await until('the first refresher to store the feeds that answered', async () => {
        const r = (await testSql(app)
          .prepare('SELECT count(*) AS n FROM feeds WHERE last_fetched_at IS NOT NULL')
          .get()) as { n: number };
        return Number(r.n) === hosts.urls.length - stuck.length;
      });
    } finally {
      await app.close();
    }
    first.p.kill('SIGKILL');
    await first.exited;
    hosts.release();

    // Started at once: the stuck feeds are still claimed by the dead process, so this run waits
    // for the claims to run out, then fetches them; the feeds the first run stored are not due.
    const second = start(['--data', data, 'refresh'], refreshEnv);
    assert.equal(await second.exited, 0, second.out());
    assert.equal(refreshedCount(second.out()), stuck.length, second.out());
    for (const u of hosts.urls)
      assert.equal(hosts.hits.get(u), stuck.includes(u) ? 2 : 1, `${u} fetched ${hosts.hits.get(u)} times`);
  } finally {
    await hosts.close();
  }
});

test('the claim repositories: leases, owners, expiry, per-host limits, fetch_host kept by triggers', async () => {
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-claims-'), logLevel: 'silent' } }),
    silentLogger,
  );
  try {
    const { feeds, subscriptions, refreshClaims, asyncJobs } = app.store;
    const user = (await app.users.create('alice', 'correct horse')).id;
    const urls = [
      'https://One.example/a.xml', // host one.example (URLs are stored as given; hosts lower-cased)
      'https://one.example/b.xml',
      'http://two.example:8080/c.xml?x=1',
      'https://one.example/d.xml',
      'https://three.example/e#f',
    ];
    const ids: number[] = [];
    for (const u of urls) {
      const f = await feeds.create(u);
      await subscriptions.subscribe(user, f.id);
      ids.push(f.id);
    }
    const hostsOf = async () =>
      ((await testSql(app).prepare('SELECT fetch_host AS h FROM feeds ORDER BY id').all()) as { h: string }[]).map(
        (r) => r.h,
      );
    assert.deepEqual(await hostsOf(), [
      'one.example',
      'one.example',
      'two.example:8080',
      'one.example',
      'three.example',
    ]);
    assert.ok(await feeds.changeUrl(ids[4]!, 'https://four.example/e.xml'));
    assert.equal((await hostsOf())[4], 'four.example', 'a moved feed gets its new host');

    const opts = { dueBy: Infinity, leaseMs: 60_000, perHost: 2, hostWaitMs: 5_000 };
    const claimedIdsOf = (r: { claimed: { id: number }[] }) => r.claimed.map((f) => f.id);
    const a = await refreshClaims.claimListed(ids.slice(0, 3), 'A', opts);
    assert.deepEqual(a.claimed.map((f) => f.id).sort(), ids.slice(0, 3).sort());
    assert.deepEqual(a.held, []);
    const b = await refreshClaims.claimListed(ids, 'B', opts);
    assert.deepEqual(
      b.claimed.map((f) => f.id),
      [ids[4]],
      'B gets only the feed on a host A does not hold',
    );
    assert.deepEqual(b.held.sort(), ids.slice(0, 4).sort(), "A's feeds and the feed on A's host wait");
    assert.deepEqual(b.hostFull, [ids[3]], 'nobody holds the feed on the full host: the host is what it waits for');
    assert.equal(await refreshClaims.claimOne(ids[0]!, 'B', 60_000), undefined, 'refresh now waits too');
    assert.ok(await refreshClaims.isClaimed(ids[0]!));

    // A finishes one.example's feeds: the host is free, B claims the feed it was kept from.
    await refreshClaims.release([ids[0]!, ids[1]!], 'A');
    await refreshClaims.release([ids[2]!], 'B'); // not B's claim: nothing happens
    const b2 = await refreshClaims.claimListed([ids[3]!, ids[2]!], 'B', opts);
    assert.deepEqual(
      b2.claimed.map((f) => f.id),
      [ids[3]],
    );
    assert.deepEqual(b2.held, [ids[2]]);
    assert.deepEqual(b2.hostFull, [], 'held by A, not refused for its host');
    // A stops renewing: once its claim has run out, B takes the feed.
    // (Its last renewal gave the claim 1 ms: leases run by the database's clock, so time must pass.)
    assert.equal(await refreshClaims.renew('A', 1), 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await refreshClaims.isClaimed(ids[2]!), false);
    const b3 = await refreshClaims.claimListed([ids[2]!], 'B', opts);
    assert.deepEqual(
      b3.claimed.map((f) => f.id),
      [ids[2]],
    );
    // A feed no longer due is neither claimed nor held (another process refreshed it).
    await refreshClaims.release(ids, 'B');
    // One claim of many feeds of one host takes no more than the host's limit.
    const five: number[] = [];
    for (const k of [1, 2, 3]) {
      const f = await feeds.create(`https://five.example/${k}.xml`);
      await subscriptions.subscribe(user, f.id);
      five.push(f.id);
    }
    const c = await refreshClaims.claimListed(five, 'C', opts);
    assert.deepEqual(c.claimed.map((f) => f.id).sort(), five.slice(0, 2));
    assert.deepEqual(c.held, [five[2]]);
    assert.deepEqual(c.hostFull, [five[2]]);
    // A claim whose fetch has ended keeps its feed but no longer its host's place (the parse and the
    // store ask nothing of the host): C's third feed gets the place, nobody else gets the fetched one.
    await refreshClaims.fetchDone(five[0]!, 'D'); // not D's claim: nothing happens
    assert.deepEqual((await refreshClaims.claimListed([five[2]!], 'C', opts)).claimed, [], 'still full');
    await refreshClaims.fetchDone(five[0]!, 'C');
    assert.deepEqual(
      (await refreshClaims.claimListed([five[2]!], 'C', opts)).claimed.map((f) => f.id),
      [five[2]],
      "the fetched feed's place went to the next feed",
    );
    assert.ok(await refreshClaims.isClaimed(five[0]!), 'the fetched feed stays claimed until its store');
    assert.deepEqual((await refreshClaims.claimListed([five[0]!], 'D', opts)).held, [five[0]], 'and is held');
    // Released and claimed again, the feed counts against its host once more.
    await refreshClaims.release([five[0]!], 'C');
    assert.deepEqual(claimedIdsOf(await refreshClaims.claimListed([five[0]!], 'D', { ...opts, perHost: 3 })), [
      five[0],
    ]);
    const fourth = (await feeds.create('https://five.example/4.xml')).id;
    await subscriptions.subscribe(user, fourth);
    assert.deepEqual(
      await refreshClaims.claimListed([fourth], 'E', { ...opts, perHost: 3 }),
      { claimed: [], held: [fourth], hostFull: [fourth] },
      'C holds two places and D one (its new claim is not "fetched"): the host is full',
    );
    await refreshClaims.endWaits('E');
    await refreshClaims.release(five, 'D');
    await refreshClaims.release(five, 'C');
    const later = await refreshClaims.claimListed(ids, 'A', { ...opts, dueBy: -1 });
    assert.deepEqual(later, { claimed: [], held: [], hostFull: [] });

    // Waiting in line: a process refused by a full host waits for it, and a place that comes free
    // goes to the longest waiting process, not back to the process whose fetch just ended there
    // (three processes split 40 feeds 38/0/2 before).
    const six: number[] = [];
    for (const k of [1, 2, 3, 4, 5, 6]) {
      const f = await feeds.create(`https://six.example/${k}.xml`);
      await subscriptions.subscribe(user, f.id);
      six.push(f.id);
    }
    const four = { ...opts, perHost: 4 };
    const claimedIds = (r: { claimed: { id: number }[] }) => r.claimed.map((f) => f.id);
    assert.deepEqual(claimedIds(await refreshClaims.claimListed(six.slice(0, 4), 'A', four)), six.slice(0, 4));
    const w = await refreshClaims.claimListed(six.slice(4), 'W', four);
    assert.deepEqual(w, { claimed: [], held: six.slice(4), hostFull: six.slice(4) }, 'the host is full: W waits');
    await new Promise((r) => setTimeout(r, 5)); // the database's clock moves on: A's wait begins after W's
    await refreshClaims.release([six[0]!], 'A');
    const a2 = await refreshClaims.claimListed(six.slice(4), 'A', four);
    assert.deepEqual(claimedIds(a2), [], "A's fetch ended, but W waits for the place");
    assert.deepEqual(a2.hostFull, six.slice(4), 'A is told the host is full, and waits behind W');
    const w2 = await refreshClaims.claimListed(six.slice(4), 'W', four);
    assert.deepEqual(claimedIds(w2), [six[4]], 'the free place goes to W');
    assert.deepEqual(w2.hostFull, [six[5]], 'the host is full again: W waits again, now behind A');
    await refreshClaims.release([six[1]!], 'A');
    assert.deepEqual(claimedIds(await refreshClaims.claimListed([six[5]!], 'W', four)), [], 'A waited longer');
    assert.deepEqual(claimedIds(await refreshClaims.claimListed([six[5]!], 'A', four)), [six[5]]);
    await refreshClaims.release(six, 'A');
    await refreshClaims.release(six, 'W');
    // W still waits (its last claim was refused): a process not waiting leaves a place for it...
    assert.deepEqual(claimedIds(await refreshClaims.claimListed(six, 'A', four)), six.slice(0, 3));
    // ...until W's pass is over (endWaits).
    await refreshClaims.endWaits('W');
    assert.deepEqual(claimedIds(await refreshClaims.claimListed(six, 'A', four)), [six[3]]);
    await refreshClaims.release(six, 'A');

    // Jobs: one holder at a time; the holder alone completes; an expired lease is taken over.
    const job = (id: string, createdAt: number) =>
      asyncJobs.create({
        id,
        keyId: 'k',
        userId: user,
        model: 'sonar',
        request: {},
        idempotencyKey: null,
        createdAt,
      });
    await job('11111111-1111-4111-8111-111111111111', 1);
    await job('22222222-2222-4222-8222-222222222222', 2);
    const minute = 60_000;
    const j1 = await asyncJobs.claimNext('A', minute, 10);
    assert.equal(j1?.id, '11111111-1111-4111-8111-111111111111');
    assert.equal(j1?.attempts, 1);
    assert.equal((await asyncJobs.claimNext('B', minute, 10))?.id, '22222222-2222-4222-8222-222222222222');
    assert.equal(await asyncJobs.claimNext('C', minute, 10), undefined, 'both held');
    assert.equal(await asyncJobs.countClaimable(), 0);
    assert.ok(await asyncJobs.renewLease(j1!.id, 'A', minute));
    assert.equal(await asyncJobs.renewLease(j1!.id, 'B', minute), false);
    // B's lease runs out (renewed for 20 ms only, as a holder that stopped renewing would let it).
    assert.ok(await asyncJobs.renewLease('22222222-2222-4222-8222-222222222222', 'B', 20));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await asyncJobs.countClaimable(), 1);
    const taken = await asyncJobs.claimNext('C', minute, 11);
    assert.equal(taken?.id, '22222222-2222-4222-8222-222222222222', "B's lease ran out: C takes its job");
    assert.equal(taken?.attempts, 2);
    assert.equal(await asyncJobs.markCompleted(taken!.id, 'B', { late: true }, 12), false, 'B lost it');
    assert.ok(await asyncJobs.markCompleted(taken!.id, 'C', { ok: true }, 12));
    assert.deepEqual((await asyncJobs.find(taken!.id))?.response, { ok: true });
    await asyncJobs.releaseLease(j1!.id, 'A');
    assert.equal((await asyncJobs.claimNext('C', minute, 13))?.id, j1!.id, 'a given-back job is claimable at once');
    assert.equal(await asyncJobs.markFailed(j1!.id, 'A', 'x', 14), false);
    assert.ok(await asyncJobs.markFailed(j1!.id, 'C', 'gave up', 14));
    assert.equal(await asyncJobs.claimNext('D', minute, 15), undefined, 'finished jobs are never claimed');
  } finally {
    await app.close();
  }
});

test("a feed's success or failure write ends its owner's refresh claim, not another owner's", async () => {
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-claims-record-'), logLevel: 'silent' } }),
    silentLogger,
  );
  try {
    const { feeds, subscriptions, refreshClaims } = app.store;
    const user = (await app.users.create('alice', 'correct horse')).id;
    const ids: number[] = [];
    for (const k of [1, 2, 3]) {
      const f = await feeds.create(`https://record${k}.example/feed.xml`);
      await subscriptions.subscribe(user, f.id);
      ids.push(f.id);
    }
    const [ok, failed, other] = ids as [number, number, number];
    const opts = { dueBy: Infinity, leaseMs: 60_000, perHost: 2, hostWaitMs: 5_000 };
    await refreshClaims.claimListed([ok, failed], 'A', opts);
    await refreshClaims.claimListed([other], 'B', opts);
    const outcome = { fetchedAt: 100, status: 200, nextFetchAt: 200, intervalSeconds: 100, error: null };
    await feeds.recordSuccess(ok, outcome, 'A');
    await feeds.recordFailure(failed, { ...outcome, status: 500, error: 'HTTP 500' }, 'A');
    await feeds.recordSuccess(other, outcome, 'A'); // B's claim: stays
    assert.equal(await refreshClaims.isClaimed(ok), false);
    assert.equal(await refreshClaims.isClaimed(failed), false);
    assert.equal(await refreshClaims.isClaimed(other), true);
    const claimOf = async (id: number) =>
      testSql(app)
        .prepare('SELECT refresh_claimed_by AS "by", refresh_claimed_until AS "until" FROM feeds WHERE id = ?')
        .get<{ by: string | null; until: number | null }>(id);
    assert.deepEqual({ ...(await claimOf(ok)) }, { by: null, until: null });
    assert.equal((await claimOf(other))?.by, 'B');
    // The writes themselves happened as without a claim.
    assert.equal((await feeds.findById(ok))?.nextFetchAt, 200);
    assert.equal((await feeds.findById(failed))?.errorCount, 1);
    assert.equal((await feeds.findById(other))?.lastStatus, 200);
    // Without an owner, nobody's claim changes.
    await refreshClaims.claimListed([ok], 'A', opts);
    await feeds.recordSuccess(ok, outcome);
    assert.equal(await refreshClaims.isClaimed(ok), true);
  } finally {
    await app.close();
  }
});

test('feed claims expire by the database clock: a process whose clock is a day off neither steals nor keeps one', async (t) => {
  const dataDir = tempDataDir('tidings-claims-clock-');
  const open = () => createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }), silentLogger);
  const a = await open();
  const b = await open();
  t.after(async () => {
    t.mock.restoreAll();
    await b.close();
    await a.close();
  });
  const { feedClaims } = await import('../src/feeds/refresh-claims.ts');
  const user = (await a.users.create('alice', 'correct horse')).id;
  const feed = await a.store.feeds.create('https://clock.example/feed.xml');
  await a.store.subscriptions.subscribe(user, feed.id);
  const claimed = await feedClaims(a).claimListed([feed.id], Infinity);
  assert.deepEqual(
    claimed.claimed.map((f) => f.id),
    [feed.id],
  );

  // B runs a day ahead: A's claim (a minute of lease left) is still A's.
  const realNow = Date.now.bind(Date);
  t.mock.method(Date, 'now', () => realNow() + 86_400_000);
  assert.deepEqual(await feedClaims(b).claimListed([feed.id], Infinity), {
    claimed: [],
    held: [feed.id],
    hostFull: [],
  });
  assert.equal(await feedClaims(b).claimOne(feed.id), undefined, 'refresh now waits for it too');
  assert.equal(await feedClaims(b).isClaimed(feed.id), true);

  // A runs a day behind and stops renewing: once the lease has run out, B takes the feed all the same.
  t.mock.method(Date, 'now', () => realNow() - 86_400_000);
  await a.store.refreshClaims.renew(
    (await testSql(a).prepare('SELECT refresh_claimed_by AS o FROM feeds').get<{ o: string }>())!.o,
    20,
  );
  await sleep(60);
  assert.equal(await feedClaims(b).isClaimed(feed.id), false);
  assert.equal((await feedClaims(b).claimOne(feed.id))?.id, feed.id);
  await feedClaims(b).release([feed.id]);
  await feedClaims(a).release([feed.id]);
});
