// Refresh cost against the number of feeds, for two shapes of subscriptions: every feed on one
// host (Substack, Medium, YouTube, a newspaper's section feeds; TIDINGS_PER_HOST_CONCURRENCY keeps
// 4 fetches on it at once) and every feed on its own host. Both must grow linearly: CPU per feed
// stays flat from 250 to 1,000 feeds. Feeds of ITEMS items are served by bench/feeds-bench-server.ts
// (a worker thread of this process) from 127.0.0.1, and for the many-hosts shape from one loopback
// address per feed (127.0.1.1, …: distinct fetch hosts). Each case runs in a child process (its CPU
// is the refresh's alone: process.cpuUsage, parse workers included): a first refresh (all new),
// then an unchanged one (all 304). With --baseline DIR the same cases run through DIR's sources
// (another checkout, e.g. main), alternating round by round with this tree's, for ratios from one run.
//
//   node bench/refresh-scaling.bench.ts [--sizes 250,500,1000] [--shapes one,many] [--rounds 2]
//        [--items 5] [--baseline DIR] [--backend sqlite|postgres] [--database-url URL]
//   BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" profiles each case's process;
//   BENCH_PROFILE_DIR=DIR profiles only its unchanged refresh.
//   BENCH_PG_STATEMENTS=FILE (PostgreSQL, a cluster with pg_stat_statements preloaded) appends each
//   case's statements of the unchanged refresh, by total execution time, to FILE.
// On PostgreSQL the database is vacuumed and analysed between the two refreshes (see child()).
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { benchBackend, flagValue } from './backend.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

interface CaseResult {
  firstCpuS: number;
  firstWallS: number;
  unchangedCpuS: number;
  unchangedWallS: number;
  /** PostgreSQL: the database server's CPU during the unchanged refresh (same cores), else NaN. */
  unchangedDbCpuS: number;
  feeds: number;
  notModified: number;
  failed: number;
}

/** The child: one case through the sources under `root`. */
async function child(root: string, urls: string[], dataDir: string, databaseUrl: string): Promise<CaseResult> {
  const src = (p: string) => import(pathToFileURL(join(root, 'src', p)).href);
  const { loadConfig } = await src('config/config.ts');
  // src/server/create-app.ts since the runtime and server domains were split; src/app.ts in older trees (--baseline).
  const { createApp } = await src('server/create-app.ts').catch(() => src('app.ts'));
  const { silentLogger } = await src('log/logger.ts');
  const { importOpml } = await src('feeds/opml/import-export.ts');
  const { refreshDue } = await src('feeds/refresh.ts');
  const { flushSearchIndexing } = await src('search/indexing.ts');
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir,
        allowPrivateNetworks: true,
        schedulerEnabled: false,
        ...(databaseUrl ? { databaseUrl } : {}),
      },
    }),
    silentLogger,
  );
  const user = (await app.users.create('bench', 'x')).id;
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>${urls.map((u, k) => `<outline type="rss" text="Site ${k}" xmlUrl="${u}"/>`).join('')}</body></opml>`;
  await importOpml(app, user, opml);
  const cycle = async () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const s = await refreshDue(app, { all: true });
    await flushSearchIndexing(app);
    const c = process.cpuUsage(c0);
    return { s, cpuS: (c.user + c.system) / 1e6, wallS: (performance.now() - t0) / 1000 };
  };
  const first = await cycle();
  // The database server's data folder, to read its CPU time from /proc (NaN when not readable).
  const { testSql } = await src('store/testing.ts');
  const { postgresServerCpuS } = await import('./process-cpu.ts');
  const pgData = databaseUrl
    ? ((await testSql(app).prepare("SELECT current_setting('data_directory') AS d").get()) as { d: string }).d
    : null;
  // PostgreSQL: the statistics of what the first refresh stored, before the unchanged refresh is
  // timed. Left to autovacuum (a visit per database a minute), its ANALYZE fell before the timed
  // refresh in some cases and inside or after it in others, and the plans made on the empty tables'
  // statistics cost the server 0.2-0.7 s more (BENCHMARKS.md, Bench CPU figures):
  // which tree looked cheaper followed the launcher's clock. Vacuumed too, autovacuum has nothing
  // left to do in the window either.
  if (databaseUrl) await testSql(app).exec('VACUUM ANALYZE');
  // BENCH_PG_STATEMENTS: which statements the server's time in the unchanged refresh went to
  // (pg_stat_statements, nested ones such as triggers' included with track = all).
  const statementsFile = databaseUrl ? process.env.BENCH_PG_STATEMENTS : undefined;
  if (statementsFile) {
    await testSql(app).exec('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await testSql(app).exec('SELECT pg_stat_statements_reset()');
  }
  // Backends started in the window: a new connection's first statements build its caches.
  const sessions = async () =>
    statementsFile
      ? Number(
          (
            (await testSql(app)
              .prepare('SELECT sessions FROM pg_stat_database WHERE datname = current_database()')
              .get()) as { sessions: string }
          ).sessions,
        )
      : 0;
  const sessions0 = await sessions();
  const db0 = pgData ? postgresServerCpuS(pgData) : Number.NaN;
  // BENCH_PROFILE_DIR: a CPU profile of the unchanged refresh alone (the first one is a different story).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const { Session } = await import('node:inspector/promises');
  const session = profileDir ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const unchanged = await cycle();
  const unchangedDbCpuS = pgData ? postgresServerCpuS(pgData) - db0 : Number.NaN;
  if (statementsFile) {
    const newSessions = (await sessions()) - sessions0;
    const rows = (await testSql(app)
      .prepare(
        `SELECT calls, round(total_exec_time::numeric, 1) AS ms, rows, shared_blks_hit AS hit, shared_blks_dirtied AS dirtied,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY total_exec_time DESC LIMIT 25`,
      )
      .all()) as { calls: string; ms: string; rows: string; hit: string; dirtied: string; query: string }[];
    const { appendFileSync } = await import('node:fs');
    appendFileSync(
      statementsFile,
      `${root} ${urls.length} feeds, server CPU ${unchangedDbCpuS.toFixed(2)} s, ${newSessions} sessions started\n${rows
        .map(
          (r) =>
            `  ${r.calls.toString().padStart(6)} ${r.ms.toString().padStart(8)} ms ${r.rows.toString().padStart(7)} rows ${r.hit.toString().padStart(7)} hit ${r.dirtied.toString().padStart(5)} dirtied  ${r.query}`,
        )
        .join('\n')}\n`,
    );
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(profileDir!, `unchanged-${urls.length}-${process.pid}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  await app.close();
  return {
    firstCpuS: first.cpuS,
    firstWallS: first.wallS,
    unchangedCpuS: unchanged.cpuS,
    unchangedWallS: unchanged.wallS,
    unchangedDbCpuS,
    feeds: unchanged.s.feeds,
    notModified: unchanged.s.notModified,
    failed: first.s.failed + unchanged.s.failed,
  };
}

function runChild(root: string, urls: string[], databaseUrl: string): Promise<CaseResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-scaling-'));
  return new Promise((resolveRun, reject) => {
    // BENCH_NODE_FLAGS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where a case's time goes.
    const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    const p = spawn(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), '--child'], {
      env: { ...process.env, TIDINGS_LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('close', (code) => {
      rmSync(dataDir, { recursive: true, force: true });
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`case exited ${code}: ${out}`));
      resolveRun(JSON.parse(line) as CaseResult);
    });
    p.stdin.end(JSON.stringify({ root, urls, dataDir, databaseUrl }));
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    // The header comment's usage lines, rather than a full run.
    const header = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0]!;
    console.log(header.replace(/^\/\/ ?/gm, ''));
    return;
  }
  const sizes = (flagValue(argv, 'sizes') ?? '250,500,1000').split(',').map(Number);
  const shapes = (flagValue(argv, 'shapes') ?? 'one,many').split(',') as ('one' | 'many')[];
  const rounds = Number(flagValue(argv, 'rounds') ?? 2);
  const items = Number(flagValue(argv, 'items') ?? 5);
  const baseline = flagValue(argv, 'baseline');
  for (const s of shapes) if (s !== 'one' && s !== 'many') throw new Error(`--shapes takes one and many, got ${s}`);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--sizes takes feed counts, e.g. 250,500,1000');
  const backend = await benchBackend(argv);
  const max = Math.max(...sizes);
  const worker = new Worker(new URL('./feeds-bench-server.ts', import.meta.url), {
    workerData: { feeds: max, items, hosts: shapes.includes('many') ? max : 1 },
  });
  const served = await new Promise<{ port: number; hosts: string[] }>((r) => worker.once('message', r));
  const urlsFor = (shape: 'one' | 'many', n: number) =>
    Array.from({ length: n }, (_, k) =>
      shape === 'one' ? `http://127.0.0.1:${served.port}/feed${k}.xml` : `http://${served.hosts[k]}/feed${k}.xml`,
    );
  const { freshPostgresDatabase, dropPostgresDatabase } = await import('../test/helpers.ts');
  const trees = [
    ...(baseline ? [{ name: 'baseline', root: resolve(baseline) }] : []),
    { name: 'this tree', root: ROOT },
  ];
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `refresh scaling, ${new Date().toISOString()}, node ${process.version}, ${backend.databaseUrl ? 'PostgreSQL' : 'SQLite'}, ${items} items a feed, load ${load()}`,
  );
  console.log(
    'round  shape  feeds  tree       first CPU s  first wall s  unchanged CPU s  unchanged wall s  unchanged CPU ms/feed  load1  unchanged database CPU s',
  );
  const results = new Map<string, number[]>();
  for (let round = 1; round <= rounds; round++)
    for (const shape of shapes)
      for (const n of sizes)
        for (const tree of trees) {
          const databaseUrl = backend.databaseUrl ? freshPostgresDatabase(backend.databaseUrl) : '';
          let r: CaseResult;
          try {
            r = await runChild(tree.root, urlsFor(shape, n), databaseUrl);
          } finally {
            if (databaseUrl) dropPostgresDatabase(backend.databaseUrl, databaseUrl);
          }
          if (r.failed || r.notModified !== n)
            console.log(`  (${r.failed} failed, ${r.notModified} of ${n} not modified)`);
          const key = `${shape}/${n}/${tree.name}`;
          results.set(key, [...(results.get(key) ?? []), r.unchangedCpuS]);
          console.log(
            `${String(round).padStart(5)}  ${shape.padEnd(5)}  ${String(n).padStart(5)}  ${tree.name.padEnd(9)}  ${r.firstCpuS.toFixed(2).padStart(11)}  ${r.firstWallS.toFixed(2).padStart(12)}  ${r.unchangedCpuS.toFixed(2).padStart(15)}  ${r.unchangedWallS.toFixed(2).padStart(16)}  ${((r.unchangedCpuS / n) * 1000).toFixed(2).padStart(21)}  ${loadavg()[0]!.toFixed(2).padStart(5)}  ${r.unchangedDbCpuS == null || Number.isNaN(r.unchangedDbCpuS) ? '' : r.unchangedDbCpuS.toFixed(2).padStart(24)}`,
          );
        }
  worker.postMessage({ close: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  console.log('\nunchanged refresh CPU, median of the rounds (s), and CPU per feed against the smallest size');
  for (const shape of shapes)
    for (const tree of trees) {
      const cells = sizes.map((n) => median(results.get(`${shape}/${n}/${tree.name}`)!));
      const perFeed = cells.map((c, i) => c / sizes[i]!);
      console.log(
        `  ${shape.padEnd(5)} ${tree.name.padEnd(9)} ${cells.map((c, i) => `${sizes[i]}: ${c.toFixed(2)}`).join('  ')}   per feed x${perFeed.map((p) => (p / perFeed[0]!).toFixed(2)).join(' x')}`,
      );
    }
  if (baseline)
    for (const shape of shapes)
      console.log(
        `  ${shape.padEnd(5)} baseline / this tree: ${sizes.map((n) => `${n}: ${(median(results.get(`${shape}/${n}/baseline`)!) / median(results.get(`${shape}/${n}/this tree`)!)).toFixed(2)}x`).join('  ')}`,
      );
  console.log(`load average at the end ${load()}`);
  backend.stop();
}

if (process.argv.includes('--child')) {
  let input = '';
  for await (const c of process.stdin) input += c;
  const { root, urls, dataDir, databaseUrl } = JSON.parse(input) as {
    root: string;
    urls: string[];
    dataDir: string;
    databaseUrl: string;
  };
  console.log(JSON.stringify(await child(root, urls, dataDir, databaseUrl)));
  process.exit(0);
} else await main();
