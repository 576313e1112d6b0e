// /metrics (Prometheus text through prom-client), one info log line per request without secrets,
// and human-readable logs with TIDINGS_LOG_FORMAT=pretty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { startServer } from '../src/server/server.ts';
import { subscribe, refreshFeed } from '../src/feeds/index.ts';
import { searchService } from '../src/search/service.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { ROOT, tempDataDir } from './helpers.ts';
import { startFeedServer, rss } from './feeds-fixtures.ts';
import { fixture, post } from './chat-api-helpers.ts';
import { appMetrics } from '../src/observability/metrics.ts';

async function served(overrides: Partial<Config> = {}) {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'info' },
    {
      write: (s: string) => {
        lines.push(JSON.parse(s));
      },
    },
  );
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir: tempDataDir(),
      host: '127.0.0.1',
      port: 0,
      schedulerEnabled: false,
      allowPrivateNetworks: true,
      ...overrides,
    },
  });
  const app = await createApp(config, log);
  const { url } = await startServer(app);
  return { app, url, lines };
}

test('/metrics serves request, feed fetch, search, queue and database metrics in Prometheus format', async () => {
  const { app, url } = await served();
  const feeds = await startFeedServer();
  feeds.routes.set('/ok.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('OK', [{ guid: 'a', title: 'Walrus' }]));
  });
  try {
    const alice = (await app.users.create('alice', await hashPassword('correct horse'), null)).id;
    const { feedId } = await subscribe(app, alice, `${feeds.base}/ok.xml`);
    await refreshFeed(app, feedId);
    feeds.routes.delete('/ok.xml');
    await refreshFeed(app, feedId);
    await searchService(app).search({ text: 'walrus', scope: { kind: 'instance' }, filters: {}, limit: 5 });
    await fetch(`${url}/healthz`);
    await fetch(`${url}/healthz`);
    await fetch(`${url}/no/such/path`);
    const res = await fetch(`${url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^tidings_http_requests_total\{method="GET",route="\/healthz",status="200"\} 2$/m);
    assert.match(text, /^tidings_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    assert.match(
      text,
      /^tidings_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\} \d+$/m,
    );
    // subscribe fetched once, then two refreshes: one updated or unchanged, one failed with a 404.
    assert.match(text, /^tidings_feed_fetches_total\{outcome="failed",error="[a-z_]+"\} 1$/m);
    assert.match(text, /^tidings_feed_fetch_duration_seconds_count\{outcome="failed"\} 1$/m);
    assert.match(text, /^tidings_search_duration_seconds_count 1$/m);
    assert.match(text, /^tidings_queue_depth\{queue="search_index",state="waiting"\} \d+$/m);
    assert.match(text, /^tidings_queue_depth\{queue="async_jobs",state="running"\} 0$/m);
    const bytes = (file: string) =>
      Number(new RegExp(`^tidings_database_bytes\\{file="${file}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    // The database file sizes are SQLite's (a PostgreSQL server reports its own).
    if (app.store.backend === 'sqlite') assert.ok(bytes('db') >= 4096 && bytes('db') + bytes('wal') > 4096, text);
    assert.match(text, /^tidings_process_resident_memory_bytes \d+/m);
    // Memory the process metrics do not show apart: the parse workers' isolates, the search table.
    assert.match(text, /^tidings_memory_bytes\{part="parse_workers_heap"\} \d+$/m);
    const table = Number(/^tidings_memory_bytes\{part="search_article_table"\} (\d+)$/m.exec(text)?.[1]);
    assert.ok(table > 0, `the article table searched above holds memory: ${table}`);
    assert.match(text, /^# TYPE tidings_answer_duration_seconds histogram$/m);
  } finally {
    await app.close();
    await feeds.close();
  }
});

test('/metrics shows how long the main thread was held (tidings_event_loop_blocked_seconds)', async () => {
  const { app, url } = await served();
  try {
    const buckets = async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const count = (le: string) =>
        Number(
          new RegExp(
            `^tidings_event_loop_blocked_seconds_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\d+)$`,
            'm',
          ).exec(text)?.[1],
        );
      return { under: count('0.2'), all: count('+Inf'), text };
    };
    const before = await buckets();
    assert.ok(Number.isFinite(before.all), 'the histogram is exposed');
    assert.match(before.text, /^tidings_nodejs_eventloop_lag_max_seconds /m);
    // Hold the thread 400 ms, as a CPU-heavy request would, then let the watch run again.
    const until = performance.now() + 400;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 250));
    const after = await buckets();
    assert.ok(after.all - after.under >= before.all - before.under + 1, 'one hold over 200 ms was counted');
  } finally {
    await app.close();
  }
});

test("the loop-lag gauges report lateness, not the sampling period, and an idle server's watch slows down", async () => {
  const { app, url } = await served();
  try {
    // The first scrape takes the samples so far; 350 ms later (the scrape put the watch at 100 ms)
    // there are about three more, each on time.
    await (await fetch(`${url}/metrics`)).text();
    await new Promise((r) => setTimeout(r, 350));
    const text = await (await fetch(`${url}/metrics`)).text();
    const gauge = (name: string) =>
      Number(new RegExp(`^tidings_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1]);
    // prom-client's monitorEventLoopDelay recorded the whole time between its ticks: 0.1 s here.
    assert.ok(gauge('p50') < 0.05, `the median loop lag of an idle server read ${gauge('p50')} s`);
    assert.ok(gauge('min') >= 0 && gauge('max') >= gauge('min'), text);
    assert.ok(Number.isFinite(Number(/^tidings_nodejs_eventloop_lag_seconds (\S+)$/m.exec(text)?.[1])), text);
  } finally {
    await app.close();
  }
});

test('/metrics is refused outside the allowed networks and through an untrusted proxy', async () => {
  const a = await served();
  try {
    const proxied = await fetch(`${a.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(proxied.status, 403);
    // Whether the proxy is trusted (the client address is then 203.0.113.9) or not, no access.
    assert.match(await proxied.text(), /not open to .*TIDINGS_METRICS_ALLOWED_NETWORKS/);
  } finally {
    await a.app.close();
  }
  const b = await served({ metricsAllowedNetworks: ['10.0.0.0/8'] });
  try {
    assert.equal((await fetch(`${b.url}/metrics`)).status, 403);
  } finally {
    await b.app.close();
  }
  const c = await served({ metricsAllowedNetworks: [] });
  try {
    assert.equal((await fetch(`${c.url}/metrics`)).status, 404);
  } finally {
    await c.app.close();
  }
  assert.throws(
    () => loadConfig({ env: { TIDINGS_METRICS_ALLOWED_NETWORKS: 'localhost' } }),
    /TIDINGS_METRICS_ALLOWED_NETWORKS.*"localhost"/,
  );
});

test('answer latency is recorded by model, mode and outcome', async () => {
  const f = await fixture();
  try {
    // The chat plugin alone (no buildServer): create the registry as the server would.
    const metrics = appMetrics(f.app);
    const ok = await post(f, '/chat/completions', { model: 'sonar', messages: [{ role: 'user', content: 'q' }] });
    assert.equal(ok.status, 200, ok.text);
    const text = await metrics.registry.metrics();
    assert.match(text, /^tidings_answer_duration_seconds_count\{model="sonar",mode="complete",outcome="ok"\} 1$/m);
  } finally {
    await f.close();
  }
});

test('a CLI command does not load the metrics library', async () => {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    await import(${JSON.stringify(join(ROOT, 'src/cli/main.ts'))});
    const { createRequire } = await import('node:module');
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/prom-client/'));
    console.log(loaded ? 'loaded' : 'not loaded');`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.stdout.trim(), 'not loaded', r.stderr);
});

test('one info line per request with method, route, status and ms, and no secrets', async () => {
  const { app, url, lines } = await served();
  try {
    await fetch(`${url}/reader/api/0/user-info?T=sup3rsecret-token&output=json`, {
      headers: { authorization: 'GoogleLogin auth=sup3rsecret-auth' },
    });
    await fetch(`${url}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'alice', Passwd: 'sup3rsecret-password' }),
    });
    const requests = lines.filter((l) => l.msg === 'request');
    assert.equal(requests.length, 2, JSON.stringify(lines));
    assert.equal(requests[0].method, 'GET');
    assert.equal(requests[0].route, '/reader/api/0/user-info');
    assert.equal(requests[0].status, 401);
    assert.equal(typeof requests[0].ms, 'number');
    assert.equal(requests[1].route, '/accounts/ClientLogin');
    assert.ok(!JSON.stringify(lines).includes('sup3rsecret'), 'a secret reached the log');
  } finally {
    await app.close();
  }
});

test('TIDINGS_LOG_FORMAT=pretty gives human-readable lines', async () => {
  const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), '--data', tempDataDir(), 'serve', '--port', '0'], {
    env: { ...process.env, TIDINGS_LOG_FORMAT: 'pretty', TIDINGS_SCHEDULER: 'false' },
  });
  let err = '';
  await new Promise<void>((resolve, reject) => {
    p.stderr.on('data', (d) => {
      err += d;
      if (err.includes('tidings is serving')) resolve();
    });
    p.on('close', () => reject(new Error(`exited before serving: ${err}`)));
  });
  p.kill('SIGTERM');
  const line = err.split('\n').find((l) => l.includes('tidings is serving'))!;
  assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: tidings is serving/);
  assert.throws(() => JSON.parse(line));
});
