// Memory of the real server process (`bin/tidings.js serve` as a child, as an operator runs it),
// against the budgets of issue #10: idle, during and after a first refresh of N feeds, and while
// serving the stored items.
//
//   npm run bench:memory                       # 1,000 feeds x 50 items (50,000 items), --workers 1
//   options: --feeds N  --items N (per feed)  --pages N (stream/contents n=1000 pages served, default 200)
//            --workers N (default 1: one process; with N > 1 the figures are the sums over the
//            supervisor and its workers, each process also printed)
//
//   npm run bench:memory -- --idle             # idle only, empty database: `--workers 1` and the
//                                              # default (one worker per core), several starts each
//   options: --workers-list 1,0 (0: serve's default)  --rounds N (starts per case, default 3)
//            --settle S (the second sample, default 30 s after start)
//            --compare DIR (another checkout, e.g. main: its starts alternate with this one's, same run)
//
// Idle RSS with workers: `serve --workers N` is a supervisor plus N worker processes. Each
// process's RSS counts the pages it shares with the others (the node binary's code, mapped once
// in the page cache) in full, so the sum of RSS overstates what the machine gives the server; the
// sum of PSS (proportional set size: shared pages split between the processes sharing them) is
// what it costs. Both are printed, with each process's RSS; the budget (idle < 120 MB) is for
// `--workers 1`, a single process.
//
// The feeds are generated and served by bench/feeds-bench-server.ts in a worker thread of this
// process, so their memory is not billed to the server. The subscriptions are imported through
// the Reader API (subscription/import); the server's own scheduler (1 s tick) then fetches them
// all. RSS comes from /proc/<pid>/status (Linux): VmRSS now, VmHWM the peak so far; anonymous and
// file-backed (SQLite's memory-mapped database) are shown apart. Baseline in the same run: a bare
// `node -e` process holding an HTTP server.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { openStore } from '../src/store/open-store.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from '../test/helpers.ts';
import { waitForServingUrl } from './server-log.ts';
import { memOf, type ProcessMemory } from './process-memory.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const FEEDS = arg('feeds', 1000);
const ITEMS = arg('items', 50);
const PAGES = arg('pages', 200);
const WORKERS = arg('workers', 1);
const USER = 'bench',
  PASS = 'bench-password';

type Mem = ProcessMemory;
/** Proportional set size (MB): the process's share of the pages it shares with others. */
function pssOf(pid: number): number {
  const s = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)/m.exec(s)?.[1] ?? NaN) / 1024;
}
/** The process and its children (the workers of `serve --workers N`), from /proc. */
function processTree(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return [pid, ...children];
}
/** The memory of a process tree: sums, peak of the sum of peaks. */
function memOfTree(pid: number): Mem {
  const all = processTree(pid).map(memOf);
  const sum = (k: keyof Mem) => all.reduce((a, m) => a + m[k], 0);
  return { rss: sum('rss'), anon: sum('anon'), file: sum('file'), peak: sum('peak') };
}
const show = (m: Mem) =>
  `RSS ${m.rss.toFixed(0)} MB (anonymous ${m.anon.toFixed(0)}, file-backed ${m.file.toFixed(0)}), peak ${m.peak.toFixed(0)} MB`;
/**
 * Where the memory is, from the server's own /metrics: the main thread's V8 heap (committed, of
 * which the young generation, and in use), memory V8 tracks outside its heap (Buffers), and the
 * parts the server reports (parse workers' heaps, caches). The rest of the RSS is native: the
 * node binary's code pages, SQLite's page cache and memory map, malloc arenas.
 */
async function breakdown(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string, labels = '') => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) / 1048576 : 0;
  };
  const parts = [...text.matchAll(/^tidings_memory_bytes\{part="([^"]+)"\} (\S+)$/gm)]
    .map(([, part, v]) => `${part} ${(Number(v) / 1048576).toFixed(0)}`)
    .join(', ');
  return (
    `main V8 heap ${metric('tidings_nodejs_heap_size_total_bytes').toFixed(0)} MB committed ` +
    `(young generation ${metric('tidings_nodejs_heap_space_size_total_bytes', 'space="new"').toFixed(0)}, ` +
    `in use ${metric('tidings_nodejs_heap_size_used_bytes').toFixed(0)}), ` +
    `external ${metric('tidings_nodejs_external_memory_bytes').toFixed(0)}; ${parts || 'no parts reported yet'}`
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const feedServer = new Worker(new URL('./feeds-bench-server.ts', import.meta.url), {
    workerData: { feeds: FEEDS, items: ITEMS },
  });
  const { port } = await new Promise<{ port: number }>((r) => feedServer.once('message', r));
  const dataDir = tempDataDir('tidings-bench-memory-');
  const store = await openStore({ databaseUrl: '', dataDir });
  await store.users.create(USER, await hashPassword(PASS));
  await store.close();

  // Baseline: the smallest Node process serving HTTP, same machine, same minute.
  const bare = spawn(
    process.execPath,
    ['-e', "require('http').createServer((q,r)=>r.end('ok')).listen(0,'127.0.0.1')"],
    { stdio: 'ignore' },
  );
  await sleep(1500);
  const bareMem = memOf(bare.pid!);
  bare.kill();

  const child = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), 'serve', '--workers', String(WORKERS)], {
    env: {
      ...serveEnv(dataDir),
      TIDINGS_SCHEDULER_TICK_SECONDS: '1',
      TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
      // One local server stands in for every feed host: the per-host limit would serialise it.
      TIDINGS_PER_HOST_CONCURRENCY: process.env.TIDINGS_FETCH_CONCURRENCY ?? '32',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await waitForServingUrl(child);
    await sleep(5000);
    const idle = memOfTree(child.pid!);
    const idleParts = await breakdown(url);

    const login = await (
      await fetch(`${url}/accounts/ClientLogin`, {
        method: 'POST',
        body: new URLSearchParams({ Email: USER, Passwd: PASS }),
      })
    ).text();
    const H = {
      authorization: `GoogleLogin auth=${login
        .split('\n')
        .find((l) => l.startsWith('Auth='))!
        .slice(5)}`,
    };
    const opml = `<?xml version="1.0"?><opml version="2.0"><body>${Array.from(
      { length: FEEDS },
      (_, k) => `<outline type="rss" text="Site ${k}" xmlUrl="http://127.0.0.1:${port}/feed${k}.xml"/>`,
    ).join('')}</body></opml>`;
    const t0 = performance.now();
    const imported = await fetch(`${url}/reader/api/0/subscription/import`, {
      method: 'POST',
      headers: { ...H, 'content-type': 'text/xml' },
      body: opml,
    });
    if (imported.status !== 200) throw new Error(`import: ${imported.status} ${await imported.text()}`);

    // Wait until every item of every feed is in the user's reading list (all unread).
    const items = FEEDS * ITEMS;
    let stored = 0;
    // The sample with the highest RSS during the refresh, with its breakdown.
    let top = { mem: memOfTree(child.pid!), parts: '' };
    while (stored < items) {
      await sleep(500);
      const now = memOfTree(child.pid!);
      if (now.rss >= top.mem.rss) top = { mem: now, parts: await breakdown(url) };
      const counts = (await (await fetch(`${url}/reader/api/0/unread-count?output=json`, { headers: H })).json()) as {
        unreadcounts: { id: string; count: number }[];
      };
      stored = counts.unreadcounts.find((c) => c.id.endsWith('/state/com.google/reading-list'))?.count ?? 0;
      if (performance.now() - t0 > 30 * 60_000)
        throw new Error(`only ${stored} of ${items} items stored after 30 minutes`);
    }
    const refreshS = (performance.now() - t0) / 1000;
    const refreshed = memOfTree(child.pid!);
    const refreshedParts = await breakdown(url);
    await sleep(10_000);
    const settled = memOfTree(child.pid!);
    const settledParts = await breakdown(url);

    const RL = encodeURIComponent('user/-/state/com.google/reading-list');
    let continuation = '';
    for (let i = 0; i < PAGES; i++) {
      const r = await fetch(
        `${url}/reader/api/0/stream/contents/${RL}?output=json&n=1000${continuation ? `&c=${continuation}` : ''}`,
        { headers: H },
      );
      const page = (await r.json()) as { continuation?: string };
      continuation = page.continuation ?? '';
    }
    const served = memOfTree(child.pid!);
    const servedParts = await breakdown(url);

    console.log(
      `memory bench, ${new Date().toISOString()}, node ${process.version}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    console.log(`baseline: bare node HTTP server          ${show(bareMem)}`);
    console.log(
      `server: --workers ${WORKERS}${WORKERS > 1 ? ' (sums over the supervisor and workers; breakdowns: one worker)' : ''}`,
    );
    console.log(`server idle (no feeds), 5 s after start  ${show(idle)}\n    ${idleParts}`);
    console.log(`highest sample during the refresh        ${show(top.mem)}\n    ${top.parts}`);
    console.log(
      `first refresh of ${FEEDS} feeds (${items} items) in ${refreshS.toFixed(0)} s: at the end ${show(refreshed)}\n    ${refreshedParts}`,
    );
    console.log(`10 s later                               ${show(settled)}\n    ${settledParts}`);
    console.log(`after ${PAGES} pages of stream/contents n=1000 ${show(served)}\n    ${servedParts}`);
    console.log(
      `ratios to the bare process: idle ${(idle.rss / bareMem.rss).toFixed(1)}x, peak over the run ${(served.peak / bareMem.rss).toFixed(1)}x`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await feedServer.terminate();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The environment of a benchmarked `serve`: its own data folder, a free port, info logs on stderr. */
function serveEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TIDINGS_DATA: dataDir,
    TIDINGS_PORT: '0',
    TIDINGS_HOST: '127.0.0.1',
    TIDINGS_LOG_LEVEL: 'info',
    NODE_NO_WARNINGS: '1',
  };
}

/** One start of `serve` on an empty database: each process's memory 5 s and SETTLE s after start. */
async function idleStart(checkout: string, workers: number): Promise<{ at5: ProcMem[]; settled: ProcMem[] }> {
  const dataDir = tempDataDir('tidings-bench-idle-');
  const args = [join(checkout, 'bin/tidings.js'), 'serve', ...(workers ? ['--workers', String(workers)] : [])];
  const child = spawn(process.execPath, args, {
    env: serveEnv(dataDir),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await waitForServingUrl(child);
    const sample = () =>
      processTree(child.pid!).map((pid, i) => ({ role: i === 0 ? 'main' : 'worker', ...memOf(pid), pss: pssOf(pid) }));
    await sleep(5000);
    const at5 = sample();
    await sleep((SETTLE - 5) * 1000);
    return { at5, settled: sample() };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ProcMem extends Mem {
  role: string;
  pss: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Idle memory, `--workers 1` and the default, this checkout against --compare DIR, alternating. */
async function idleMain(): Promise<void> {
  const compareIdx = process.argv.indexOf('--compare');
  const checkouts = [ROOT, ...(compareIdx > 0 ? [resolve(process.argv[compareIdx + 1]!)] : [])];
  const listIdx = process.argv.indexOf('--workers-list');
  const workerCases = (listIdx > 0 ? process.argv[listIdx + 1]! : '1,0').split(',').map(Number);
  const loads: string[] = [];
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  // A first start of each checkout fills Node's compile cache (scripts/process-setup.js): without
  // it a checkout's first start also loads the TypeScript stripper (~20 MB), which no later start does.
  for (const c of checkouts) await idleStart(c, 1).catch(() => undefined);
  const results = new Map<string, { at5: ProcMem[]; settled: ProcMem[] }[]>();
  loads.push(load());
  for (let round = 0; round < ROUNDS; round++) {
    for (const workers of workerCases) {
      for (const c of round % 2 ? [...checkouts].reverse() : checkouts) {
        const key = `${c}\t${workers}`;
        results.set(key, [...(results.get(key) ?? []), await idleStart(c, workers)]);
      }
    }
    loads.push(load());
  }
  console.log(
    `idle memory bench, ${new Date().toISOString()}, node ${process.version}, ${ROUNDS} starts per case, load ${loads.join(' / ')}`,
  );
  const fmt = (runs: ProcMem[][]) => {
    // Per process (by position: the supervisor or single process first, then the workers).
    const n = runs[0]!.length;
    const per = Array.from({ length: n }, (_, i) => median(runs.map((r) => r[i]?.rss ?? NaN)).toFixed(0)).join(' + ');
    const sum = (k: 'rss' | 'anon' | 'pss') => median(runs.map((r) => r.reduce((a, m) => a + m[k], 0))).toFixed(0);
    return `RSS ${n > 1 ? `${per} = ${sum('rss')}` : sum('rss')} MB (anonymous ${sum('anon')}), PSS ${sum('pss')} MB`;
  };
  for (const workers of workerCases) {
    for (const c of checkouts) {
      const runs = results.get(`${c}\t${workers}`)!;
      const label = `${c === ROOT ? 'this checkout' : c} --workers ${workers || 'default'} (${runs[0]!.at5.length} process${runs[0]!.at5.length > 1 ? 'es' : ''})`;
      console.log(
        `${label}\n    5 s after start:  ${fmt(runs.map((r) => r.at5))}\n    ${SETTLE} s after start: ${fmt(runs.map((r) => r.settled))}`,
      );
    }
  }
  console.log('medians over the starts; per process: the supervisor (or the single process) first, then each worker');
}

const ROUNDS = arg('rounds', 3);
const SETTLE = arg('settle', 30);

if (process.argv.includes('--idle')) await idleMain();
else await main();
