// Feed engine benchmark (`npm run bench:feeds`; BENCH_FEEDS=200 for a quick run; BENCH_NO_LISTENERS=1
// leaves the search indexer out, BENCH_DEFER_LISTENERS=1 runs it after each cycle in batches;
// TIDINGS_PARSE_WORKERS=n sets the parse pool; BENCH_SKIP_INGEST=1 runs only the refresh cycles, BENCH_SKIP_REFRESH=1 only the ingest;
// BENCH_CONTENT=rich serves article-like bodies with links, images and entities;
// `npm run bench:feeds -- --workers N` (or BENCH_PROCESSES=1,N) measures instead the first refresh by
// 1 and then N `tidings refresh` processes on one data folder or database (feed claims share the
// work), BENCH_HOSTS feed hosts (default 50); `--backend postgres` (a throwaway cluster),
// `--database-url postgres://…` or TIDINGS_TEST_DATABASE_URL run it on fresh PostgreSQL databases;
// `--runs R` repeats it, `--baseline DIR` alternates each run with DIR's bin/tidings.js (another
// checkout) for a before/after in one run).
// (a) Ingest throughput on ../shared/corpus/feeds/real-world: our parse (charset, parse, normalise,
//     sanitize) + store (upsert, fan-out) in MB/s and items/s, beside the parser library's raw
//     parse of the same bytes in the same run (the baseline).
// (b) Refresh cycles of BENCH_FEEDS (default 1,000) generated feeds of 50 items served by a local
//     server in a worker thread: first cycle (all new), second (all 304), third (10 % changed);
//     wall time, feeds/s, items/s, peak RSS; baseline: plain GETs of the same feeds, no processing.
import { flushSearchIndexing } from '../src/search/indexing.ts';
import { postgresServerCpuS, processCpuS, reapedChildrenCpuS } from './process-cpu.ts';
import { readdirSync, readFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { testSql } from '../src/store/testing.ts';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { dropPostgresDatabase, freshPostgresDatabase, tempDataDir } from '../test/helpers.ts';
import { benchBackend, flagValue } from './backend.ts';
import { parseFeed } from '../src/feeds/parser/parse-feed.ts';
import { measureParse, formatParseMeasurement } from './feeds-parse.ts';
import { feedEngine, refreshDue, type RefreshSummary } from '../src/feeds/index.ts';
import { importOpml } from '../src/feeds/opml/import-export.ts';
import { ParsePool, parseWorkerCount } from '../src/feeds/parse-pool/parse-pool.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CORPUS = join(ROOT, '../shared/corpus/feeds/real-world');
const FEEDS = Number(process.env.BENCH_FEEDS ?? 1000);
const ITEMS = 50;
const REPS = Number(process.env.BENCH_REPS ?? 5);

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 25);
const mb = (n: number) => (n / 1e6).toFixed(1);
const sec = (ms: number) => (ms / 1000).toFixed(2);

async function ingestBench(): Promise<void> {
  if (!existsSync(CORPUS)) {
    console.log(`(a) skipped: ${CORPUS} is not present`);
    return;
  }
  const files = readdirSync(CORPUS)
    .filter((f) => /\.(xml|json|rss|atom)$/.test(f))
    .map((f) => readFileSync(join(CORPUS, f)));
  const bytes = files.reduce((a, b) => a + b.length, 0);

  // The parse step against the library's raw parse, interleaved (A2's measureParse): the baseline.
  const pm = measureParse({ millis: Number(process.env.BENCH_MILLIS ?? 3000) });
  console.log('(a) ' + formatParseMeasurement(pm).replace(/\n/g, '\n    '));
  let t = 0;

  const app = await createApp(
    loadConfig({
      env: { TIDINGS_PARSE_WORKERS: process.env.TIDINGS_PARSE_WORKERS },
      overrides: { dataDir: tempDataDir('tidings-bench-'), schedulerEnabled: false },
    }),
    silentLogger,
  );
  const { feeds, items, subscriptions } = feedEngine(app);
  const user = (await app.users.create('bench', 'x')).id;
  let parseMs = 0,
    storeMs = 0,
    stored = 0;
  for (let r = 0; r < REPS; r++) {
    for (let i = 0; i < files.length; i++) {
      const url = `https://bench.example/${r}/${i}`;
      t = performance.now();
      let parsed: ReturnType<typeof parseFeed>;
      try {
        parsed = parseFeed(files[i]!, { url });
      } catch {
        parseMs += performance.now() - t;
        continue;
      }
      const t1 = performance.now();
      parseMs += t1 - t;
      const f = await feeds.create(url, { title: parsed.title });
      await subscriptions.subscribe(user, f.id);
      stored += (await items.upsertEntries(f.id, parsed.entries, Date.now() * 1000)).added.length;
      storeMs += performance.now() - t1;
    }
  }
  parseMs /= REPS;
  storeMs /= REPS;
  stored /= REPS;
  const total = parseMs + storeMs;
  const rawMs = (bytes / 1e6 / pm.raw.mbPerSec) * 1000;
  console.log(`    ingest on one thread (parse + store with fan-out to one subscriber), mean of ${REPS} runs:`);
  console.log(
    `      parse ${parseMs.toFixed(0)} ms + store ${storeMs.toFixed(0)} ms (${(stored / (storeMs / 1000)).toFixed(0)} items/s) = ${(bytes / 1e6 / (total / 1000)).toFixed(1)} MB/s, ${(stored / (total / 1000)).toFixed(0)} items/s = ${(total / rawMs).toFixed(2)}x the raw parse time`,
  );

  // The same ingest as a refresh runs it: parsing on the parse pool (config.parseWorkers, each feed
  // on a stable worker), storing on this thread as parses come back. One warm-up round (workers
  // start, compile), then the mean of REPS rounds with fresh URLs (no sanitize memo hits).
  const workers = parseWorkerCount(app.config.parseWorkers);
  if (workers > 0) {
    const pool = new ParsePool(workers);
    const round = async (tag: string): Promise<number> => {
      let n = 0;
      await Promise.all(
        files.map(async (body, i) => {
          const url = `https://bench.example/${tag}/${i}`;
          let parsed: Awaited<ReturnType<typeof pool.parse>>;
          try {
            parsed = await pool.parse(body, { url }, i);
          } catch {
            return;
          }
          const f = await feeds.create(url, { title: parsed.title });
          await subscriptions.subscribe(user, f.id);
          n += (await items.upsertEntries(f.id, parsed.entries, Date.now() * 1000)).added.length;
        }),
      );
      return n;
    };
    await round('pool-warm-up');
    t = performance.now();
    let pooled = 0;
    for (let r = 0; r < REPS; r++) pooled += await round(`pool${r}`);
    const pooledMs = (performance.now() - t) / REPS;
    pooled /= REPS;
    await pool.close();
    console.log(`    ingest with ${workers} parse worker(s) + storing on the main thread, mean of ${REPS} runs:`);
    console.log(
      `      ${pooledMs.toFixed(0)} ms = ${(bytes / 1e6 / (pooledMs / 1000)).toFixed(1)} MB/s, ${(pooled / (pooledMs / 1000)).toFixed(0)} items/s = ${(pooledMs / rawMs).toFixed(2)}x the raw parse time (${(rawMs / pooledMs).toFixed(2)}x its speed)`,
    );
  }
  await app.close();
}

async function refreshBench(): Promise<void> {
  const worker = new Worker(new URL('./feeds-bench-server.ts', import.meta.url), {
    workerData: { feeds: FEEDS, items: ITEMS, rich: process.env.BENCH_CONTENT === 'rich' },
  });
  const ask = (msg: unknown) =>
    new Promise<any>((r) => {
      worker.once('message', r);
      if (msg) worker.postMessage(msg);
    });
  const { port, bytes } = (await ask(null)) as { port: number; bytes: number };
  const base = `http://127.0.0.1:${port}`;
  const urls = Array.from({ length: FEEDS }, (_, k) => `${base}/feed${k}.xml`);

  const config = loadConfig({
    env: { TIDINGS_PARSE_WORKERS: process.env.TIDINGS_PARSE_WORKERS },
    overrides: { dataDir: tempDataDir('tidings-bench-'), allowPrivateNetworks: true, schedulerEnabled: false },
  });
  // One local server stands in for FEEDS hosts: lift the per-host limit to the global one.
  config.perHostConcurrency = config.fetchConcurrency;

  // Baseline: plain GETs of every feed with the same concurrency, bodies read and dropped.
  const agent = new Agent({ connections: config.fetchConcurrency });
  let t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: config.fetchConcurrency }, async () => {
      while (next < urls.length) {
        const r = await request(urls[next++]!, { dispatcher: agent });
        await r.body.arrayBuffer();
      }
    }),
  );
  const baseMs = performance.now() - t;
  await agent.close();

  const app = await createApp(config, silentLogger);
  // The search indexer queues changes and indexes them in background batches during the cycle
  // (so they share the cycle's CPU); whatever is still queued when the cycle ends is drained then
  // and reported apart as "listeners s".
  let listenerMs = 0;
  // BENCH_NO_LISTENERS=1 measures the feed engine alone (no search indexing).
  if (process.env.BENCH_NO_LISTENERS) app.itemChangeListeners.length = 0;
  // BENCH_DEFER_LISTENERS=1: listeners are not called during the cycle; the changes are collected
  // and handed to them after it, in batches of 2,000 items (what indexing off the refresh path,
  // batched, would cost); the cycle's wall time then excludes them and "listeners s" is that drain.
  const defer = Boolean(process.env.BENCH_DEFER_LISTENERS);
  const deferred: { added: number[]; updated: number[]; deleted: number[] } = { added: [], updated: [], deleted: [] };
  const originals = [...app.itemChangeListeners];
  for (let i = 0; i < app.itemChangeListeners.length; i++) {
    const l = app.itemChangeListeners[i]!;
    app.itemChangeListeners[i] = defer
      ? (c) => {
          if (i === 0) {
            deferred.added.push(...c.added);
            deferred.updated.push(...c.updated);
            deferred.deleted.push(...c.deleted);
          }
        }
      : (c) => {
          const t0 = performance.now();
          try {
            l(c);
          } finally {
            listenerMs += performance.now() - t0;
          }
        };
  }
  const drainDeferred = () => {
    const t0 = performance.now();
    const { added, updated, deleted } = deferred;
    for (let k = 0; k < Math.max(added.length, updated.length, deleted.length); k += 2000) {
      const batch = {
        added: added.slice(k, k + 2000),
        updated: updated.slice(k, k + 2000),
        deleted: deleted.slice(k, k + 2000),
      };
      for (const l of originals) l(batch);
    }
    deferred.added = [];
    deferred.updated = [];
    deferred.deleted = [];
    listenerMs = performance.now() - t0;
  };
  const user = (await app.users.create('bench', 'x')).id;
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>${urls.map((u, k) => `<outline type="rss" text="Site ${k}" xmlUrl="${u}"/>`).join('')}</body></opml>`;
  t = performance.now();
  await importOpml(app, user, opml);
  const importMs = performance.now() - t;

  const rows: { name: string; s: RefreshSummary; peak: number; listeners: number }[] = [];
  const cycle = async (name: string) => {
    peakRss = process.memoryUsage().rss;
    listenerMs = 0;
    const s = await refreshDue(app, { all: true });
    if (defer) drainDeferred();
    else {
      const t0 = performance.now();
      await flushSearchIndexing(app);
      listenerMs += performance.now() - t0;
    }
    rows.push({ name, s, peak: peakRss, listeners: listenerMs });
  };
  await cycle('1 all new');
  await cycle('2 all 304');
  await ask({ bump: Array.from({ length: Math.round(FEEDS / 10) }, (_, i) => i * 10) });
  await cycle('3 10% changed');
  await app.close();
  worker.postMessage({ close: true });

  console.log(
    `(b) refresh of ${FEEDS} feeds x ${ITEMS} items (${mb(bytes)} MB${process.env.BENCH_CONTENT === 'rich' ? ', rich content' : ''}) from a local server (worker thread), fetchConcurrency ${config.fetchConcurrency}, parse workers ${feedEngine(app).parsePool.size}${process.env.BENCH_NO_LISTENERS ? ', item-change listeners removed' : defer ? ', item-change listeners deferred to after each cycle (batches of 2,000)' : ''}`,
  );
  console.log(`    OPML import of ${FEEDS} feeds: ${importMs.toFixed(0)} ms`);
  console.log(
    `    baseline, plain GETs without processing: ${sec(baseMs)} s (${(FEEDS / (baseMs / 1000)).toFixed(0)} feeds/s)`,
  );
  console.log(
    '    cycle            wall s   feeds/s   items/s   new    changed  failed  peak RSS MB  x baseline  listeners s',
  );
  for (const { name, s, peak, listeners } of rows) {
    console.log(
      `    ${name.padEnd(16)} ${sec(s.durationMs).padStart(6)}  ${(s.feeds / (s.durationMs / 1000)).toFixed(0).padStart(8)}  ${((s.itemsAdded + s.itemsUpdated) / (s.durationMs / 1000)).toFixed(0).padStart(8)}  ${String(s.itemsAdded).padStart(6)}  ${String(s.itemsUpdated).padStart(7)}  ${String(s.failed).padStart(6)}  ${mb(peak).padStart(11)}  ${(s.durationMs / baseMs).toFixed(1).padStart(10)}  ${sec(listeners).padStart(11)}`,
    );
  }
}

/**
 * (c) The first refresh of FEEDS new feeds by N `tidings refresh` processes started together on one
 * fresh data folder (or PostgreSQL database), for each N of the list, measured in the same run so
 * N = 1 is the baseline. The feeds are spread over BENCH_HOSTS loopback hosts: claims keep a host
 * to one process at a time (politeness), so one host would leave the second process idle. Wall
 * time is from spawning to the last exit (process start-up, fetch, parse, store, search indexing,
 * favicon look-ups and shutdown); peak RSS is each process's high-water mark (VmHWM, parse worker
 * threads included). With --baseline DIR, the same runs also go through DIR's bin/tidings.js
 * (another checkout), alternating with this one, for before/after figures from one run.
 */
async function processesBench(counts: number[]): Promise<void> {
  const hosts = Number(process.env.BENCH_HOSTS ?? 50);
  const runs = Number(flagValue(process.argv, 'runs') ?? 1);
  const baselineRoot = flagValue(process.argv, 'baseline');
  const trees = baselineRoot ? [{ name: 'baseline', root: resolve(baselineRoot) }] : [];
  trees.push({ name: baselineRoot ? 'this tree' : '', root: ROOT });
  const backend = await benchBackend(
    process.env.TIDINGS_TEST_DATABASE_URL && !process.argv.includes('--database-url')
      ? [...process.argv, '--database-url', process.env.TIDINGS_TEST_DATABASE_URL]
      : process.argv,
  );
  const worker = new Worker(new URL('./feeds-bench-server.ts', import.meta.url), {
    workerData: { feeds: FEEDS, items: ITEMS, rich: process.env.BENCH_CONTENT === 'rich', hosts },
  });
  const served = await new Promise<{ hosts: string[]; bytes: number }>((r) => worker.once('message', r));
  const urls = Array.from({ length: FEEDS }, (_, k) => `http://${served.hosts[k % hosts]}/feed${k}.xml`);
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>${urls.map((u, k) => `<outline type="rss" text="Site ${k}" xmlUrl="${u}"/>`).join('')}</body></opml>`;
  // Each run gets its own database (PostgreSQL) or data folder, dropped once counted: a run
  // leaves ~200 MB behind, and on a server of your own (--database-url) nothing else would remove it.
  const databases = new Map<string, string>();
  const freshDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-bench-'));
    if (backend.databaseUrl) {
      const databaseUrl = freshPostgresDatabase(backend.databaseUrl);
      databases.set(dir, databaseUrl);
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ databaseUrl }));
    }
    return dir;
  };
  const dropDataDir = (dir: string) => {
    rmSync(dir, { recursive: true, force: true });
    const url = databases.get(dir);
    if (url) dropPostgresDatabase(backend.databaseUrl, url);
  };
  const rows: string[] = [];
  const firstWall = new Map<string, number>();
  const loads: string[] = [];
  for (let run = 1; run <= runs; run++) {
    for (const tree of trees) {
      for (const n of counts) {
        const dataDir = freshDataDir();
        const setup = await createApp(
          loadConfig({ env: {}, overrides: { dataDir, schedulerEnabled: false } }),
          silentLogger,
        );
        await importOpml(setup, (await setup.users.create('bench', 'x')).id, opml);
        // The server's data folder, to read its CPU time from /proc (only a superuser may see it).
        const pgDataDirectory = backend.databaseUrl
          ? await testSql(setup)
              .prepare("SELECT current_setting('data_directory') AS d")
              .get<{ d: string }>()
              .then((r) => r!.d)
              .catch(() => null)
          : null;
        await setup.close();
        loads.push(loadavg()[0]!.toFixed(2));
        const serverCpu0 = pgDataDirectory === null ? null : postgresServerCpuS(pgDataDirectory);
        // The exact CPU of the N refresh processes: the kernel adds each one's whole usage (every
        // thread, up to its exit) to ours when it is reaped, and no other child of ours ends meanwhile.
        const reaped0 = reapedChildrenCpuS();
        const t0 = performance.now();
        const outs = await Promise.all(
          Array.from(
            { length: n },
            () =>
              new Promise<{ code: number; out: string; ms: number; peakKb: number; cpuS: number }>((resolve) => {
                const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
                const p = spawn(
                  process.execPath,
                  [...nodeFlags, join(tree.root, 'bin/tidings.js'), '--data', dataDir, 'refresh'],
                  {
                    env: { ...process.env, TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true', TIDINGS_LOG_LEVEL: 'warn' },
                    stdio: ['ignore', 'pipe', 'pipe'],
                  },
                );
                let out = '';
                let peakKb = 0;
                let cpuS = 0;
                // VmHWM is the process's own peak; read it (and its CPU time, all threads) until the
                // process is gone: its share of the total below, short of its last 50 ms at most.
                const sample = setInterval(() => {
                  try {
                    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
                    if (m) peakKb = Math.max(peakKb, Number(m[1]));
                  } catch {}
                  const c = processCpuS(p.pid!);
                  if (c >= cpuS) cpuS = c;
                }, 50);
                p.stdout.on('data', (d) => (out += d));
                p.stderr.on('data', (d) => (out += d));
                p.on('close', (code) => {
                  clearInterval(sample);
                  resolve({ code: code ?? -1, out, ms: performance.now() - t0, peakKb, cpuS });
                });
              }),
          ),
        );
        const wallMs = performance.now() - t0;
        const refreshCpuS = reapedChildrenCpuS() - reaped0;
        // The refresh processes' connections are gone (their backends reaped into the postmaster's
        // children times) once they exited.
        const serverCpu = pgDataDirectory === null ? null : postgresServerCpuS(pgDataDirectory) - serverCpu0!;
        const check = await createApp(
          loadConfig({ env: {}, overrides: { dataDir, schedulerEnabled: false } }),
          silentLogger,
        );
        const stored = (await testSql(check).prepare('SELECT count(*) AS n FROM items').get()) as { n: number };
        await check.close();
        dropDataDir(dataDir);
        const per = outs.map((o) => {
          const m = /refreshed (\d+) feed\(s\) in ([\d.]+) s/.exec(o.out);
          return m
            ? `${m[1]} feeds, refresh ${m[2]} s, exit ${sec(o.ms)} s, CPU ${o.cpuS.toFixed(1)} s, peak ${(o.peakKb / 1024).toFixed(0)} MB`
            : `exit ${o.code}: ${o.out.trim().split('\n').pop()}`;
        });
        // x speed: against 1 process of the same tree and run; with --baseline, against the baseline tree.
        const key = baselineRoot ? `${run}/${n}` : `${run}`;
        if (!firstWall.has(key)) firstWall.set(key, wallMs);
        rows.push(
          `    ${String(run).padStart(3)}  ${tree.name.padEnd(9)}  ${String(n).padStart(9)}  ${sec(wallMs).padStart(6)}  ${(FEEDS / (wallMs / 1000)).toFixed(0).padStart(7)}  ${String(stored.n).padStart(7)}  ${(firstWall.get(key)! / wallMs).toFixed(2).padStart(9)}  ${loads.at(-1)!.padStart(5)}  refresh processes CPU ${refreshCpuS.toFixed(1)} s (${per.join('; ')})${serverCpu === null ? '' : `; PostgreSQL server CPU ${serverCpu.toFixed(1)} s`}`,
        );
        console.log(rows.at(-1));
      }
    }
  }
  worker.postMessage({ close: true });
  console.log(
    `(c) first refresh of ${FEEDS} feeds x ${ITEMS} items (${mb(served.bytes)} MB) on ${hosts} local hosts by N \`tidings refresh\` processes on one ${backend.databaseUrl ? 'PostgreSQL database' : 'data folder (SQLite)'}; load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '    run  tree       processes  wall s  feeds/s  items   x speed   load1  CPU of the N processes, reaped (each: sampled from /proc)',
  );
  for (const r of rows) console.log(r);
  backend.stop();
}

console.log(`feeds bench, ${new Date().toISOString()}, node ${process.version}`);
const workersFlag = flagValue(process.argv, 'workers');
const processCounts = workersFlag ? [1, Number(workersFlag)] : process.env.BENCH_PROCESSES?.split(',').map(Number);
if (processCounts?.length) await processesBench(processCounts);
else {
  if (!process.env.BENCH_SKIP_INGEST) await ingestBench();
  if (!process.env.BENCH_SKIP_REFRESH) await refreshBench();
}
clearInterval(sampler);
