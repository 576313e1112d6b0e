// Full-text benchmark (`npm run bench:fulltext`; BENCH_FT_FEEDS (200), BENCH_FT_ITEMS (20),
// BENCH_FT_HOSTS (10), BENCH_FT_PAGE_DELAY_MS (20: server think time per page)).
// A refresh of N teaser feeds × M items served from a worker thread on 10 loopback hosts
// (127.0.0.1 … 127.0.0.10), measured three ways in the same run:
//   baseline  — the refresh with full text off (fetch, parse, store feeds only);
//   pages     — plain GETs of every article page with the same per-host limit (network floor);
//   full text — the refresh with full text on for every subscription (feeds + every page fetched,
//               extracted with Readability, stored), with requests per host and the most requests
//               in flight per host as the server saw them.
import { Worker } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { tempDataDir } from '../test/helpers.ts';
import { feedEngine, refreshDue } from '../src/feeds/index.ts';
import { fullTextStore } from '../src/feeds/fulltext/fulltext.ts';
import { extractArticle } from '../src/feeds/fulltext/extract.ts';
import { Semaphore } from '../src/net/concurrency.ts';
import { testSql } from '../src/store/testing.ts';

const FEEDS = Number(process.env.BENCH_FT_FEEDS ?? 200);
const ITEMS = Number(process.env.BENCH_FT_ITEMS ?? 20);
const HOSTS = Number(process.env.BENCH_FT_HOSTS ?? 10);
const PAGE_DELAY = Number(process.env.BENCH_FT_PAGE_DELAY_MS ?? 20);

const worker = new Worker(new URL('./fulltext-bench-server.ts', import.meta.url), {
  workerData: { feeds: FEEDS, items: ITEMS, hosts: HOSTS, pageDelayMs: PAGE_DELAY },
});
const port = await new Promise<number>((r) => worker.once('message', (m: { port: number }) => r(m.port)));
const hostOf = (f: number) => `127.0.0.${(f % HOSTS) + 1}`;
const stats = () =>
  new Promise<{ requests: Record<string, number>; pages: Record<string, number>; maxInFlight: Record<string, number> }>(
    (r) => {
      worker.once('message', (m) => r(m.stats));
      worker.postMessage({ stats: true });
    },
  );

async function setUp(fullText: boolean): Promise<App> {
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir: tempDataDir('tidings-ftbench-'),
        allowPrivateNetworks: true,
        ...(process.env.TIDINGS_PARSE_WORKERS ? { parseWorkers: Number(process.env.TIDINGS_PARSE_WORKERS) } : {}),
        schedulerEnabled: false,
        fullTextAuto: 'off',
        logLevel: 'silent',
      },
    }),
    silentLogger,
  );
  const { feeds, subscriptions } = feedEngine(app);
  const user = (await app.users.create('bench', 'x')).id;
  for (let f = 0; f < FEEDS; f++) {
    const feed = await feeds.create(`http://${hostOf(f)}:${port}/feeds/${f}.xml`);
    await subscriptions.subscribe(user, feed.id);
    if (fullText) await fullTextStore(app).setMode(user, feed.id, 'on');
  }
  return app;
}

const sec = (ms: number) => (ms / 1000).toFixed(2);
let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

console.log(
  `parse workers: ${process.env.TIDINGS_PARSE_WORKERS ?? 'default (-1)'}; full-text bench: ${FEEDS} teaser feeds × ${ITEMS} items on ${HOSTS} hosts, page think time ${PAGE_DELAY} ms, node ${process.version}`,
);

// Baseline: the refresh without full text.
worker.postMessage({ reset: true });
let app = await setUp(false);
let t = performance.now();
const base = await refreshDue(app, { all: true });
const baseMs = performance.now() - t;
await app.close();
console.log(`baseline (full text off): ${sec(baseMs)} s, ${base.itemsAdded} items stored`);

// Network floor: every page fetched once with the same per-host limit, no processing.
const cfg = loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-ftbench-') } });
const agent = new Agent({ connections: cfg.perHostConcurrency });
const perHost = new Map<string, Semaphore>();
const global = new Semaphore(cfg.fetchConcurrency);
t = performance.now();
let pageBytes = 0;
await Promise.all(
  Array.from({ length: FEEDS * ITEMS }, async (_, k) => {
    const f = Math.floor(k / ITEMS),
      i = k % ITEMS,
      host = hostOf(f);
    let s = perHost.get(host);
    if (!s) {
      s = new Semaphore(cfg.perHostConcurrency);
      perHost.set(host, s);
    }
    await s.run(() =>
      global.run(async () => {
        const r = await request(`http://${host}:${port}/a/${f}/${i}`, { dispatcher: agent });
        pageBytes += (await r.body.arrayBuffer()).byteLength;
      }),
    );
  }),
);
const pagesMs = performance.now() - t;
await agent.close();
console.log(
  `pages (plain GETs, ${cfg.perHostConcurrency}/host, ${cfg.fetchConcurrency} total): ${sec(pagesMs)} s for ${FEEDS * ITEMS} pages, ${(pageBytes / FEEDS / ITEMS / 1024).toFixed(1)} KiB each`,
);

// Extraction alone (CPU per page, measured on this thread; the refresh runs it on the parse pool).
const sample = await (await request(`http://127.0.0.1:${port}/a/0/0`)).body.text();
t = performance.now();
for (let k = 0; k < 100; k++) extractArticle(sample, 'http://127.0.0.1/a/0/0');
const extractMs = (performance.now() - t) / 100;
console.log(`extraction (Readability + linkedom + sanitize): ${extractMs.toFixed(1)} ms per page`);

// Full text on.
worker.postMessage({ reset: true });
app = await setUp(true);
peakRss = 0;
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
t = performance.now();
const ft = await refreshDue(app, { all: true });
const ftMs = performance.now() - t;
lag.disable();
const s = await stats();
const counts = await testSql(app).prepare(`SELECT status, count(*) AS n FROM item_full_text GROUP BY status`).all();
const errors = await testSql(app)
  .prepare(`SELECT error, count(*) AS n FROM item_full_text WHERE status = 'failed' GROUP BY error`)
  .all();
await app.close();
clearInterval(sampler);
const pageReqs = Object.values(s.pages).reduce((a, b) => a + b, 0);
console.log(
  `full text on: ${sec(ftMs)} s (${(ftMs / baseMs).toFixed(1)}× the baseline refresh, ${(ftMs / pagesMs).toFixed(2)}× the plain page GETs), ${ft.itemsAdded} items, ${JSON.stringify(counts)}${errors.length ? ` errors ${JSON.stringify(errors)}` : ''}, peak RSS ${(peakRss / 1e6).toFixed(0)} MB`,
);
console.log(
  `  event-loop delay of the thread serving the APIs during it: p50 ${(lag.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`,
);
console.log(`  article pages fetched per host: ${JSON.stringify(s.pages)}`);
console.log(`  all requests per host (feeds, pages, favicon lookups): ${JSON.stringify(s.requests)}`);
console.log(
  `  most requests in flight per host: ${JSON.stringify(s.maxInFlight)} (TIDINGS_PER_HOST_CONCURRENCY=${cfg.perHostConcurrency})`,
);
console.log(
  `  page fetches: ${pageReqs} for ${FEEDS * ITEMS} items (${(pageReqs / (FEEDS * ITEMS)).toFixed(2)} per item)`,
);
await worker.terminate();
