// Google Reader API latency and throughput on a realistic library.
//
//   npm run bench:reader                          # 500 feeds, 100,000 items, one user
//   npm run bench:reader -- --items 1000000       # the 1M-item run
//   options: --items N  --feeds N  --runs N (per call, default 30)  --seconds N (throughput, default 5)  --keep (keep the data dir)
//            --search-index (let the server build the search index over the generated items before serving)
//            --compare DIR (another checkout, e.g. the commit before a change: both servers on copies of
//            the same library, calls alternating between them each round; prints the ratios, and each
//            server process's CPU per call, measured over bursts of each call in turns (--cpu-burst-ms,
//            default 600): on a busy machine latency swings with the share of the cores a server gets,
//            its CPU per call much less. A PostgreSQL server's own CPU is not in that figure.)
//            --database-url postgres://… (an empty database: the generated library is copied there with
//            `tidings db copy`'s code and the server runs on PostgreSQL)
//            --workers N (only throughput: stream/contents n=20 and /healthz at 16 clients, served by
//            `tidings serve --workers 1` and `--workers N` alternating --rounds times (2), with the
//            ratio; the client is wrk when installed, else the Node client: the output says which)
//            --backend sqlite|postgres|both (postgres without --database-url: a throwaway cluster in a temp
//            folder, test/postgres-cluster.ts; both: a SQLite server and a PostgreSQL server on the same
//            library, calls alternating between them each round, ratios printed, then each one's throughput)
//
// Generates the library directly in SQLite (bench/library.ts, shared with bench:web: no ANALYZE,
// the search index left out unless --search-index), starts
// the real server (`src/main.ts`) as a child process, logs in with ClientLogin, then measures each
// call with an undici Pool from this process. Baselines measured in the same run: GET /healthz
// (the server's floor) and JSON.stringify of the same n=1000 payload (serialization floor).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { openDatabase } from '../src/store/sqlite/db.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { freshPostgresDatabase, tempDataDir } from '../test/helpers.ts';
import { testSql } from '../src/store/testing.ts';
import { needsSort, pageOrder, pageWhere } from '../src/store/sqlite/stream-filter-sql.ts';
import type { StreamPageQuery } from '../src/model/stream.ts';
import { postgresServerCpuS, processTreeCpuMs } from './process-cpu.ts';
import { benchBackend, type BenchBackend } from './backend.ts';
import { generateLibrary } from './library.ts';
import { waitForServingUrl } from './server-log.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
// --help prints the usage at the top of this file; it used to start a full 100k-item run.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const head = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  console.log(
    head
      .slice(
        0,
        head.findIndex((l) => !l.startsWith('//')),
      )
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n'),
  );
  process.exit(0);
}
/** Set by main() from --backend / --database-url (bench/backend.ts). */
let BACKEND: BenchBackend = 'sqlite';
let DATABASE_URL = '';
/** The PostgreSQL server's data directory when it runs on this machine (for its CPU time), else ''. */
let PG_DATA_DIRECTORY = '';
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ITEMS = arg('items', 100_000);
const FEEDS = arg('feeds', 500);
const RUNS = arg('runs', 30);
const SECONDS = arg('seconds', 5);
/** Length of each side's turn when measuring the server CPU of one call (--cpu-burst-ms). */
const CPU_BURST_MS = arg('cpu-burst-ms', 600);
const USER = 'bench',
  PASS = 'bench-password';

/** The shared generated library (bench/library.ts), with --items/--feeds and --search-index. */
function generate(dataDir: string): void {
  generateLibrary(dataDir, {
    feeds: FEEDS,
    items: ITEMS,
    username: USER,
    passwordHash: PASSWORD_HASH,
    searchIndex: process.argv.includes('--search-index'),
  });
}

let PASSWORD_HASH = '';

function explain(dataDir: string): void {
  const db = openDatabase(join(dataDir, 'tidings.db'));
  const base: StreamPageQuery = {
    userId: 1,
    where: [],
    newestFirst: true,
    limit: 1001,
    after: { crawledUs: Number.MAX_SAFE_INTEGER, itemId: 1 },
  };
  const folderFeeds = (
    db
      .prepare(
        'SELECT s.feed_id AS id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id WHERE sl.label_id = 1',
      )
      .all() as { id: number }[]
  ).map((r) => r.id);
  const shapes: [string, StreamPageQuery][] = [
    ['reading list', base],
    ['unread', { ...base, where: [{ kind: 'state', column: 'read', value: 0 }] }],
    ['starred', { ...base, where: [{ kind: 'state', column: 'starred', value: 1 }] }],
    ['one feed', { ...base, where: [{ kind: 'feeds', feedIds: [3], negate: false }] }],
    [
      'one feed unread',
      {
        ...base,
        where: [
          { kind: 'feeds', feedIds: [3], negate: false },
          { kind: 'state', column: 'read', value: 0 },
        ],
      },
    ],
    ['folder', { ...base, where: [{ kind: 'feeds', feedIds: folderFeeds, negate: false }] }],
    ['oldest first since ot', { ...base, newestFirst: false, after: undefined, minCrawledUs: 0 }],
  ];
  console.log('\nquery plans (EXPLAIN QUERY PLAN):');
  for (const [name, q] of shapes) {
    const w = pageWhere(q);
    // Shapes with no index order pick page ids first (see statesPage): show that inner query.
    const sql = needsSort(q.where)
      ? `SELECT ui.item_id, ui.crawled_us FROM user_items ui WHERE ${w.sql} ${pageOrder(q)} LIMIT ?`
      : `SELECT ui.item_id, ui.read, ui.starred FROM user_items ui WHERE ${w.sql} ${pageOrder(q)} LIMIT ?`;
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...w.params, q.limit) as { detail: string }[];
    console.log(`  ${name.padEnd(22)} ${rows.map((r) => r.detail).join(' | ')}`);
  }
  db.close();
}

const WORKERS = arg('workers', 0);

/** The Reader API's authorization header from a ClientLogin answer. */
function readerHeaders(clientLoginAnswer: string): { authorization: string } {
  const auth = clientLoginAnswer
    .split('\n')
    .find((l) => l.startsWith('Auth='))!
    .slice(5);
  return { authorization: `GoogleLogin auth=${auth}` };
}

const api = (p: string) => `/reader/api/0/${p}`;
const RL = encodeURIComponent('user/-/state/com.google/reading-list'),
  READ = encodeURIComponent('user/-/state/com.google/read');
const FOLDER = encodeURIComponent('user/-/label/Folder 1');

/** `--baseline-env K=V` pairs (repeatable): environment of the baseline server in --compare. */
const BASELINE_ENV = Object.fromEntries(
  process.argv.flatMap((a, i) => {
    if (process.argv[i - 1] !== '--baseline-env') return [];
    const eq = a.indexOf('=');
    return eq > 0 ? [[a.slice(0, eq), a.slice(eq + 1)]] : [];
  }),
);

async function startServer(
  dataDir: string,
  root = ROOT,
  databaseUrl = DATABASE_URL,
  extraEnv: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  // bin/tidings.js serve, as users run it (it sets the server's memory flags: scripts/process-setup.js).
  // A --compare checkout from before `tidings serve` existed (e.g. 224318e, the commit before the
  // storage layer) is started the way it was then: node src/main.ts.
  const hasServe = existsSync(join(root, 'src/cli/commands/serve.ts'));
  const entry = hasServe ? [join(root, 'bin/tidings.js'), 'serve'] : [join(root, 'src/main.ts')];
  const child = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      // One process unless asked: the per-call figures are of one server process.
      TIDINGS_WORKERS: '1',
      ...extraEnv,
      TIDINGS_DATABASE_URL: databaseUrl,
      TIDINGS_DATA: dataDir,
      TIDINGS_PORT: '0',
      TIDINGS_HOST: '127.0.0.1',
      TIDINGS_SCHEDULER: 'false',
      TIDINGS_LOG_LEVEL: 'info',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await waitForServingUrl(child, 'tidings is serving');
  return { child, url };
}

const q = (a: number[], p: number) => a[Math.min(a.length - 1, Math.floor(a.length * p))];

async function main(): Promise<void> {
  PASSWORD_HASH = await hashPassword(PASS);
  const dataDir = tempDataDir('tidings-bench-reader-');
  generate(dataDir);
  explain(dataDir);
  const backend = await benchBackend(process.argv, ['sqlite', 'postgres', 'both']);
  BACKEND = backend.backend;
  DATABASE_URL = backend.databaseUrl;
  try {
    await onBackends(dataDir);
  } finally {
    backend.stop();
  }
}

/** The library in `dataDir` copied into the empty PostgreSQL database `url` (tidings db copy), analyzed. */
async function copiedToPostgres(dataDir: string, url: string): Promise<string> {
  const { copyDatabase } = await import('../src/store/copy.ts');
  await copyDatabase(`sqlite:${join(dataDir, 'tidings.db')}`, url, { dataDir });
  const { openStore } = await import('../src/store/open-store.ts');
  const pg = await openStore({ databaseUrl: url, dataDir });
  await testSql(pg).exec('ANALYZE');
  await pg.close();
  return url;
}

async function onBackends(dataDir: string): Promise<void> {
  if (BACKEND !== 'sqlite') {
    const t0 = performance.now();
    await copiedToPostgres(dataDir, DATABASE_URL);
    const { openStore } = await import('../src/store/open-store.ts');
    const pg = await openStore({ databaseUrl: DATABASE_URL, dataDir });
    // The server's data folder, to read its CPU time from /proc (only a superuser may see it).
    PG_DATA_DIRECTORY = await testSql(pg)
      .prepare("SELECT current_setting('data_directory') AS d")
      .get<{ d: string }>()
      .then((r) => r!.d)
      .catch(() => '');
    await pg.close();
    console.log(
      `backend: PostgreSQL (library copied in ${((performance.now() - t0) / 1000).toFixed(1)} s, then ANALYZE)`,
    );
  }
  const COMPARE = process.argv.includes('--compare') ? process.argv[process.argv.indexOf('--compare') + 1]! : '';
  if (COMPARE) return compare(dataDir, COMPARE);
  if (WORKERS) return workersRun(dataDir);
  if (BACKEND === 'both') return compareBackends(dataDir);
  const { child, url } = await startServer(dataDir);
  const side = await callsOf(url);
  const { pool, fetchBytes, headers: H } = side;
  try {
    const request = async (method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: string) =>
      (await fetchBytes(method, path, headers, body)).toString();
    // Goals: p50 in ms.
    const GOALS: Record<string, number> = {
      'stream/contents n=1000': 15,
      'stream/contents n=1000 unread': 20,
      'stream/contents n=20': 2,
      'items/ids n=10000 unread': 15,
      'unread-count': 5,
      'edit-tag 1000 ids read': 50,
      'edit-tag 1000 ids unread': 50,
    };
    const calls: [string, () => Promise<unknown>, number?][] = side.calls.map(([name, fn]) => [
      name === 'GET /healthz' ? 'baseline GET /healthz' : name,
      fn,
      GOALS[name],
    ]);
    const results: Record<string, { p50: number; p99: number; goal?: number }> = {};
    console.log(
      `\n${ITEMS} items, ${FEEDS} feeds, ${RUNS} rounds (after 3 warm-up rounds); each round calls every endpoint once, so load swings hit all lines alike`,
    );
    const times = new Map<string, number[]>(calls.map(([name]) => [name, []]));
    for (let round = 0; round < RUNS + 3; round++) {
      for (const [name, fn] of calls) {
        const s = performance.now();
        await fn();
        if (round >= 3) times.get(name)!.push(performance.now() - s);
      }
    }
    for (const [name, , goal] of calls) {
      const t = times.get(name)!.sort((a, b) => a - b);
      results[name] = { p50: q(t, 0.5), p99: q(t, 0.99), goal };
      const verdict =
        goal === undefined ? '' : q(t, 0.5) < goal ? `  goal < ${goal} ms: met` : `  goal < ${goal} ms: MISSED`;
      console.log(
        `${name.padEnd(32)} p50 ${q(t, 0.5).toFixed(2).padStart(8)} ms   p99 ${q(t, 0.99).toFixed(2).padStart(8)} ms${verdict}`,
      );
    }

    // Serialization floor: JSON.stringify of the same 1000-item payload, in this process.
    const payload = JSON.parse(await request('GET', api(`stream/contents/${RL}?output=json&n=1000`), H));
    const st: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      JSON.stringify(payload);
      st.push(performance.now() - s);
    }
    st.sort((a, b) => a - b);
    const bytes = JSON.stringify(payload).length;
    console.log(
      `${'baseline JSON.stringify n=1000'.padEnd(32)} p50 ${q(st, 0.5).toFixed(2).padStart(8)} ms   (${(bytes / 1e6).toFixed(1)} MB payload)`,
    );

    // Transport floor: the same bytes served by a bare node:http server in another process.
    const payloadFile = join(dataDir, 'payload.json');
    writeFileSync(payloadFile, await request('GET', api(`stream/contents/${RL}?output=json&n=1000`), H));
    const staticServer = spawn(
      process.execPath,
      [
        '-e',
        `const b=require('fs').readFileSync(${JSON.stringify(payloadFile)});
      const s=require('http').createServer((q,r)=>{r.writeHead(200,{'content-type':'application/json'});r.end(b)}).listen(0,'127.0.0.1',()=>console.log(s.address().port))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const staticPort = await new Promise<string>((res) =>
      staticServer.stdout!.once('data', (d: Buffer) => res(d.toString().trim())),
    );
    const staticPool = new Pool(`http://127.0.0.1:${staticPort}`, { connections: 1 });
    const tt: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const s = performance.now();
      const r = await staticPool.request({ method: 'GET', path: '/' });
      await r.body.arrayBuffer();
      if (i >= 3) tt.push(performance.now() - s);
    }
    tt.sort((a, b) => a - b);
    await staticPool.close();
    staticServer.kill();
    console.log(
      `${'baseline static same bytes, HTTP'.padEnd(32)} p50 ${q(tt, 0.5).toFixed(2).padStart(8)} ms   p99 ${q(tt, 0.99).toFixed(2).padStart(8)} ms`,
    );

    // Throughput at 16 concurrent clients: stream/contents n=20, and GET /healthz as the floor of
    // this server, client and machine in the same run.
    const throughput = async (path: string, headers: Record<string, string>) => {
      let done = 0;
      const end = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < end) {
            await fetchBytes('GET', path, headers);
            done++;
          }
        }),
      );
      return done / SECONDS;
    };
    const healthRps = await throughput('/healthz', {});
    const rps = await throughput(api(`stream/contents/${RL}?output=json&n=20`), H);
    console.log(`baseline GET /healthz, 16 clients: ${healthRps.toFixed(0)} req/s`);
    console.log(
      `stream/contents n=20, 16 clients: ${rps.toFixed(0)} req/s (${((rps / healthRps) * 100).toFixed(0)}% of healthz)  goal > 2000: ${rps > 2000 ? 'met' : 'MISSED'}`,
    );

    // Memory of the server process (Linux /proc): now, and its peak over the whole run.
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
      console.log(
        `server memory after serving ${ITEMS} items: RSS ${kb('VmRSS').toFixed(0)} MB (anonymous ${kb('RssAnon').toFixed(0)}, ` +
          `file-backed ${kb('RssFile').toFixed(0)}: SQLite's memory-mapped database), peak RSS ${kb('VmHWM').toFixed(0)} MB`,
      );
    } catch {
      /* not Linux */
    }

    const base = results['baseline GET /healthz'].p50;
    console.log(
      `\nratios: n=1000 / healthz = ${(results['stream/contents n=1000'].p50 / base).toFixed(1)}x;` +
        ` n=1000 / JSON.stringify(same payload) = ${(results['stream/contents n=1000'].p50 / q(st, 0.5)).toFixed(2)}x;` +
        ` n=1000 / static same bytes = ${(results['stream/contents n=1000'].p50 / q(tt, 0.5)).toFixed(2)}x;` +
        ` n=20 / healthz = ${(results['stream/contents n=20'].p50 / base).toFixed(1)}x`,
    );
  } finally {
    await pool.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
  }
}

/**
 * Throughput of `serve --workers 1` and `--workers N` on the same library in the same run,
 * alternating ROUNDS times: 16 clients on 16 keep-alive connections for SECONDS each, after a
 * warm-up that reaches every worker. The client is wrk when installed: this bench's Node client
 * costs about as much CPU per request as the server's 0.25 ms and, on 2 cores, was the bottleneck
 * (1,322 req/s where wrk measured 4,700). Without wrk the Node client runs, and the table says so.
 */
async function workersRun(dataDir: string): Promise<void> {
  const { loadavg, availableParallelism } = await import('node:os');
  const { runWrk, wrkAvailable } = await import('./wrk-client.ts');
  const client = wrkAvailable() ? 'wrk' : 'node';
  const rows: string[] = [];
  const counts = [...new Set([1, WORKERS])];
  const rounds = arg('rounds', 2);
  const load1 = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(`load average before: ${load1()}; ${availableParallelism()} cores`);
  const measured = new Map<number, { n20: number[]; health: number[] }>();
  const path = `/reader/api/0/stream/contents/${encodeURIComponent('user/-/state/com.google/reading-list')}?output=json&n=20`;
  try {
    for (let round = 1; round <= rounds; round++) {
      let one = { n20: 0, health: 0 };
      for (const w of counts) {
        const { child, url } = await startServer(dataDir, ROOT, DATABASE_URL, { TIDINGS_WORKERS: String(w) });
        const pool = new Pool(url, { connections: 16, pipelining: 1 });
        try {
          const lr = await pool.request({
            method: 'POST',
            path: '/accounts/ClientLogin',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `Email=${USER}&Passwd=${PASS}`,
          });
          const H = readerHeaders(await lr.body.text());
          const get = async (p: string, headers: Record<string, string> = {}) => {
            const r = await pool.request({ method: 'GET', path: p, headers });
            await r.body.arrayBuffer();
            if (r.statusCode !== 200) throw new Error(`GET ${p}: HTTP ${r.statusCode}`);
          };
          const dbCpuMs = () => (PG_DATA_DIRECTORY ? postgresServerCpuS(PG_DATA_DIRECTORY) * 1000 : Number.NaN);
          const run = async (p: string, headers: Record<string, string>, seconds: number) => {
            const cpu0 = processTreeCpuMs(child.pid!);
            const db0 = dbCpuMs();
            if (client === 'wrk') {
              const r = await runWrk(url, { method: 'GET', path: p, headers }, { connections: 16, seconds });
              if (r.errors) throw new Error(`GET ${p}: ${r.errors} failed requests in the wrk run`);
              const cpuMs = (processTreeCpuMs(child.pid!) - cpu0) / r.requests;
              return {
                rps: r.rps,
                cpuMs,
                clientCpuMs: r.clientCpuMsPerRequest,
                dbCpuMs: (dbCpuMs() - db0) / r.requests,
              };
            }
            let done = 0;
            const end = performance.now() + seconds * 1000;
            const t0 = performance.now();
            const own0 = process.cpuUsage();
            await Promise.all(
              Array.from({ length: 16 }, async () => {
                while (performance.now() < end) {
                  await get(p, headers);
                  done++;
                }
              }),
            );
            const own = process.cpuUsage(own0);
            return {
              rps: done / ((performance.now() - t0) / 1000),
              cpuMs: (processTreeCpuMs(child.pid!) - cpu0) / done,
              clientCpuMs: (own.user + own.system) / 1000 / done,
              dbCpuMs: (dbCpuMs() - db0) / done,
            };
          };
          await run(path, H, 3); // warm-up: every worker's caches and statements
          const health = await run('/healthz', {}, SECONDS);
          // A new connection per request (clients without keep-alive; nginx's default upstream):
          // what handing connections to the workers costs (TIDINGS_WORKER_BALANCING). wrk only:
          // undici refuses a connection header.
          const fresh = client === 'wrk' ? await run('/healthz', { connection: 'close' }, SECONDS) : undefined;
          const n20 = await run(path, H, SECONDS);
          if (w === 1) one = { n20: n20.rps, health: health.rps };
          const m = measured.get(w) ?? { n20: [], health: [] };
          m.n20.push(n20.rps);
          m.health.push(health.rps);
          measured.set(w, m);
          rows.push(
            `| ${round} | ${w} | ${n20.rps.toFixed(0)} | ${(n20.rps / one.n20).toFixed(2)}x | ${n20.cpuMs.toFixed(2)}${Number.isNaN(n20.dbCpuMs) ? '' : ` + PostgreSQL ${n20.dbCpuMs.toFixed(2)}`} | ${n20.clientCpuMs.toFixed(3)} | ${health.rps.toFixed(0)} | ${(health.rps / one.health).toFixed(2)}x | ${fresh ? `${fresh.rps.toFixed(0)} (${fresh.cpuMs.toFixed(3)} ms)` : '—'} | ${loadavg()[0]!.toFixed(2)} |`,
          );
        } finally {
          await pool.close();
          child.kill('SIGTERM');
          await new Promise((r) => child.once('exit', r));
        }
      }
    }
  } finally {
    if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio =
    counts.length > 1
      ? `median over the rounds: stream/contents n=20 ${counts.map((w) => `${w} worker(s) ${med(measured.get(w)!.n20).toFixed(0)} req/s`).join(', ')}: **${(med(measured.get(WORKERS)!.n20) / med(measured.get(1)!.n20)).toFixed(2)}x**`
      : '';
  console.log(
    [
      `\nbackend: ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, worker balancing ${process.env.TIDINGS_WORKER_BALANCING || 'auto'}, ${ITEMS} items, 16 clients (${client === 'wrk' ? 'wrk -t1 -c16' : 'the Node client in this process; install wrk for a client that costs little CPU'}), ${SECONDS} s each, ${rounds} alternating round(s)`,
      '',
      '| round | workers | stream/contents n=20 req/s | vs 1 worker (same round) | server CPU ms per n=20 request | client CPU ms per request | GET /healthz req/s | vs 1 worker | GET /healthz, a new connection each: req/s (server CPU ms per request) | load average (1 min) |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      ratio,
      `load average after: ${load1()}`,
    ].join('\n'),
  );
}

/** The calls of one server (logged in), for the paired comparison. */
/** The Reader API calls every mode of this bench makes, on a logged-in connection pool to `url`. */
async function callsOf(url: string): Promise<{
  pool: Pool;
  /** Bodies as bytes (as greader-bench.mjs takes them): decoding 1 MB of text here would be timed as server latency. */
  fetchBytes: (
    method: 'GET' | 'POST',
    path: string,
    headers?: Record<string, string>,
    body?: string,
  ) => Promise<Buffer>;
  headers: Record<string, string>;
  n20: () => Promise<unknown>;
  calls: [string, () => Promise<unknown>][];
}> {
  const pool = new Pool(url, { connections: 16, pipelining: 1 });
  const fetchBytes = async (
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ) => {
    const r = await pool.request({ method, path, headers, body });
    const bytes = Buffer.from(await r.body.arrayBuffer());
    if (r.statusCode !== 200)
      throw new Error(`${method} ${path}: HTTP ${r.statusCode} ${bytes.toString().slice(0, 200)}`);
    return bytes;
  };
  const login = (
    await fetchBytes(
      'POST',
      '/accounts/ClientLogin',
      { 'content-type': 'application/x-www-form-urlencoded' },
      `Email=${USER}&Passwd=${PASS}`,
    )
  ).toString();
  const H = readerHeaders(login);
  const FORM = { ...H, 'content-type': 'application/x-www-form-urlencoded' };
  const unreadIds = (
    JSON.parse((await fetchBytes('GET', api(`stream/items/ids?s=${RL}&xt=${READ}&n=1000`), H)).toString()).itemRefs as {
      id: string;
    }[]
  ).map((r) => r.id);
  const body150 = unreadIds
    .slice(0, 150)
    .map((i) => 'i=' + i)
    .join('&');
  const body1000 = unreadIds
    .slice(0, 1000)
    .map((i) => 'i=' + i)
    .join('&');
  return {
    pool,
    fetchBytes,
    headers: H,
    n20: () => fetchBytes('GET', api(`stream/contents/${RL}?output=json&n=20`), H),
    calls: [
      ['GET /healthz', () => fetchBytes('GET', '/healthz')],
      ['stream/contents n=1000', () => fetchBytes('GET', api(`stream/contents/${RL}?output=json&n=1000`), H)],
      [
        'stream/contents n=1000 unread',
        () => fetchBytes('GET', api(`stream/contents/${RL}?output=json&n=1000&xt=${READ}`), H),
      ],
      [
        'stream/contents n=1000 folder',
        () => fetchBytes('GET', api(`stream/contents/${FOLDER}?output=json&n=1000`), H),
      ],
      ['stream/contents n=20', () => fetchBytes('GET', api(`stream/contents/${RL}?output=json&n=20`), H)],
      [
        'items/ids n=10000 unread',
        () => fetchBytes('GET', api(`stream/items/ids?output=json&s=${RL}&xt=${READ}&n=10000`), H),
      ],
      ['items/contents 150 ids', () => fetchBytes('POST', api('stream/items/contents?output=json'), FORM, body150)],
      ['items/contents 1000 ids', () => fetchBytes('POST', api('stream/items/contents?output=json'), FORM, body1000)],
      ['unread-count', () => fetchBytes('GET', api('unread-count?output=json'), H)],
      ['edit-tag 1000 ids read', () => fetchBytes('POST', api('edit-tag'), FORM, body1000 + '&a=' + READ)],
      ['edit-tag 1000 ids unread', () => fetchBytes('POST', api('edit-tag'), FORM, body1000 + '&r=' + READ)],
    ],
  };
}

/** Both checkouts on copies of one library, each call alternating between them: load hits both alike. */
async function compare(dataDir: string, other: string): Promise<void> {
  const { cpSync } = await import('node:fs');
  const otherDir = tempDataDir('tidings-bench-reader-other-');
  cpSync(join(dataDir, 'tidings.db'), join(otherDir, 'tidings.db'));
  // On PostgreSQL the baseline gets a database of its own too: on one database each side's
  // edit-tag writes were the other's to notice and catch up with (edit-tag came out 5x either way).
  const otherUrl = DATABASE_URL ? await copiedToPostgres(otherDir, freshPostgresDatabase(DATABASE_URL)) : '';
  try {
    await paired(
      [
        { label: 'baseline', start: () => startServer(otherDir, resolve(other), otherUrl, BASELINE_ENV) },
        { label: 'this', start: () => startServer(dataDir) },
      ],
      `${other} (baseline${Object.keys(BASELINE_ENV).length ? `, ${JSON.stringify(BASELINE_ENV)}` : ''}) vs this checkout`,
      true,
    );
  } finally {
    if (!process.argv.includes('--keep')) {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(otherDir, { recursive: true, force: true });
    }
  }
}

/** A SQLite server and a PostgreSQL server on the same library (copied), calls alternating. */
async function compareBackends(dataDir: string): Promise<void> {
  try {
    await paired(
      [
        { label: 'SQLite', start: () => startServer(dataDir, ROOT, '') },
        { label: 'PostgreSQL', start: () => startServer(dataDir, ROOT, DATABASE_URL) },
      ],
      'SQLite vs PostgreSQL',
      true,
    );
  } finally {
    if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function paired(
  specs: { label: string; start: () => Promise<{ child: ChildProcess; url: string }> }[],
  title: string,
  withThroughput: boolean,
): Promise<void> {
  const servers: { child: ChildProcess; url: string }[] = [];
  try {
    for (const spec of specs) servers.push(await spec.start());
    const sides = [await callsOf(servers[0]!.url), await callsOf(servers[1]!.url)];
    const times = sides.map(() => new Map<string, number[]>());
    for (let round = 0; round < RUNS + 3; round++) {
      for (let c = 0; c < sides[0]!.calls.length; c++) {
        for (const i of (round + c) % 2 ? [0, 1] : [1, 0]) {
          const [name, fn] = sides[i]!.calls[c]!;
          const t0 = performance.now();
          await fn();
          if (round >= 3) {
            const l = times[i]!.get(name) ?? [];
            l.push(performance.now() - t0);
            times[i]!.set(name, l);
          }
        }
      }
    }
    // Server CPU per call: each side's process CPU over bursts of one call, the sides in turns (A B A B).
    // On a shared machine latency follows the share of the cores the scheduler gives each server;
    // the CPU a call costs does not, so this is the ratio to read when the machine is busy.
    const cpuPerCall = sides.map(() => new Map<string, number>());
    for (let c = 0; c < sides[0]!.calls.length; c++) {
      const used = [0, 0];
      const count = [0, 0];
      for (let turn = 0; turn < 4; turn++) {
        const i = turn % 2;
        const pid = servers[i]!.child.pid!;
        const fn = sides[i]!.calls[c]![1];
        const cpu0 = processTreeCpuMs(pid);
        const end = performance.now() + CPU_BURST_MS;
        while (performance.now() < end || count[i]! < 2 * (1 + (turn >> 1))) {
          await fn();
          count[i]!++;
        }
        used[i]! += processTreeCpuMs(pid) - cpu0;
      }
      for (const i of [0, 1]) cpuPerCall[i]!.set(sides[i]!.calls[c]![0], used[i]! / count[i]!);
    }
    const [a, b] = specs.map((s) => s.label);
    console.log(`\npaired: ${title}, ${ITEMS} items, ${RUNS} rounds, calls alternating`);
    for (const [name] of sides[0]!.calls) {
      const [pa, pb] = times.map((m) => m.get(name)!.sort((x, y) => x - y));
      const [ca, cb] = cpuPerCall.map((m) => m.get(name)!);
      console.log(
        `${name.padEnd(30)} ${a} p50 ${q(pa!, 0.5)!.toFixed(2).padStart(7)} p99 ${q(pa!, 0.99)!.toFixed(1).padStart(6)} ms   ` +
          `${b} p50 ${q(pb!, 0.5)!.toFixed(2).padStart(7)} p99 ${q(pb!, 0.99)!.toFixed(1).padStart(6)} ms   ratio p50 ${(q(pb!, 0.5)! / q(pa!, 0.5)!).toFixed(2)}x   ` +
          `server CPU ms/call ${ca!.toFixed(2)} vs ${cb!.toFixed(2)} (${(cb! / ca!).toFixed(2)}x)`,
      );
    }
    if (withThroughput) {
      // 16 clients on stream/contents n=20, each side twice in turns (A B A B): drift hits both alike.
      const done = [0, 0];
      const cpu = [0, 0];
      for (let turn = 0; turn < 4; turn++) {
        const i = turn % 2;
        const end = performance.now() + (SECONDS * 1000) / 2;
        const cpu0 = processTreeCpuMs(servers[i]!.child.pid!);
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (performance.now() < end) {
              await sides[i]!.n20();
              done[i]!++;
            }
          }),
        );
        cpu[i]! += processTreeCpuMs(servers[i]!.child.pid!) - cpu0;
      }
      const [ra, rb] = done.map((d) => d / SECONDS);
      const [ca, cb] = cpu.map((u, i) => u / done[i]!);
      console.log(
        `${'stream/contents n=20, 16 clients'.padEnd(30)} ${a} ${ra!.toFixed(0)} req/s   ${b} ${rb!.toFixed(0)} req/s   ratio ${(ra! / rb!).toFixed(2)}x   ` +
          `server CPU ms/request ${ca!.toFixed(3)} vs ${cb!.toFixed(3)} (${(cb! / ca!).toFixed(2)}x)`,
      );
    }
    const rss = servers.map(({ child }) => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const mb = (k: string) => (Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024).toFixed(0);
      return `RSS ${mb('VmRSS')} MB (anonymous ${mb('RssAnon')}), peak ${mb('VmHWM')} MB`;
    });
    console.log(`server memory after the calls: ${a} ${rss[0]}; ${b} ${rss[1]}`);
    console.log(`load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    for (const s of sides) await s.pool.close();
  } finally {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
  }
}

await main();
