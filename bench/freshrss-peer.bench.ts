// FreshRSS beside Tidings in one run: the same feeds, the same Google Reader API calls, the same
// machine and minutes, so the comparison in BENCHMARKS.md can be reproduced. FreshRSS's code is
// not part of this repository: bring a copy first, e.g. with the search tool's fetch of
// github:FreshRSS/FreshRSS (or `git clone https://github.com/FreshRSS/FreshRSS`), into a folder
// outside the checkout, and install Debian's PHP:
//
//   apt-get install -y php8.2-cli php8.2-sqlite3 php8.2-xml php8.2-mbstring php8.2-curl php8.2-intl php8.2-zip
//   node bench/freshrss-peer.bench.ts --freshrss /work/peers/FreshRSS [--feeds 1000 --items 100]
//   options: --runs N (per call, default 20)  --seconds N (throughput, default 5)
//            --freshrss-data DIR --feed-port P (reuse a FreshRSS data folder loaded by an earlier run
//            from the feeds served on port P, which this run serves again there: FreshRSS's first
//            refresh takes long)
//            --tidings-data DIR (reuse a Tidings data folder kept by an earlier run: no import, no
//            first refresh; with --freshrss-data and --feed-port too, the unchanged rounds and the
//            calls are measured again, e.g. on a quiet machine; add --rounds 0 for the calls alone)
//            --keep (keep both data folders)
//            --rounds N (unchanged refreshes of each side, alternating, default 3)
//            --skip-calls (only the refreshes: no Reader calls)
//            --tidings-only (no FreshRSS at all: Tidings' first refresh and unchanged rounds alone, its
//            CLI output printed with the second each line came at; cheap to repeat while working on
//            Tidings' side; --freshrss is not needed then)
//
// Setup of each side (what the figures depend on):
// - Feeds: bench/feeds-bench-server.ts (N feeds x M items, ~1.5 KB of HTML each) in a worker
//   thread of this process, on 127.0.0.1.
// - FreshRSS: its CLI (prepare, do-install --api-enabled --db-type sqlite, create-user with an API
//   password, the OPML placed as DATA_PATH/opml.xml so create-user subscribes to it), then
//   `cli/actualize-user.php` for the first refresh (timed; peak RSS from /proc), then PHP's
//   built-in server (`php -S`, ONE process, one request at a time; production runs php-fpm
//   behind nginx with several workers) serving p/, with the API at /api/greader.php. Default
//   FreshRSS settings (SQLite in rollback-journal mode), production environment, PHP's default
//   OPcache settings for the CLI server.
// - Tidings: a user made with the store, the OPML imported with `tidings opml import`, the first
//   refresh by `tidings refresh --all` (a CLI process like FreshRSS's actualize-user.php; default
//   settings: 4 fetches a host at once; its search indexing included, as the process drains it
//   before it exits), then `bin/tidings.js serve` for the calls, its scheduler off.
// - Refreshes: the wall time and CPU (user + system, from the kernel's count of waited-for children
//   in /proc/self/stat: all threads, so Tidings' parse workers too) of each CLI process. Then
//   --rounds unchanged refreshes, alternating FreshRSS / Tidings, each a new CLI process like the
//   first. Every feed must be fetched and answered 304: the feed server counts its answers, and a
//   round where not every feed was answered 304 stops the run. FreshRSS skips a feed it refreshed
//   within the feed's TTL (1 h) and serves it from SimplePie's cache for 800 s
//   (limits.cache_duration): before each of its unchanged rounds its feeds' lastUpdate goes back 2 h
//   (what an hour passing does), and before the first refresh cache_duration is set to 0 in its
//   config.php (each feed's cache records its expiry when written), so SimplePie sends
//   If-None-Match/If-Modified-Since at once. A reused FreshRSS folder must come from a run that did
//   this (the check of 304s says so otherwise). Tidings' `refresh --all`
//   fetches every feed with its stored validators.
// - Calls: those of ../shared/tools/greader-bench.mjs (p50/p99 over --runs, after 2 warm-ups),
//   then stream/contents n=20 at 16 clients for --seconds. Memory: VmRSS and VmHWM of the
//   serving process (for FreshRSS the php -S process; php-fpm would have one such per worker).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { openStore } from '../src/store/open-store.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from '../test/helpers.ts';
import { waitForServingUrl } from './server-log.ts';
import { fetchCall, readerCalls } from './greader-calls.ts';
import { memOf } from './process-memory.ts';
import { reapedChildrenCpuS } from './process-cpu.ts';
import { Agent, setGlobalDispatcher } from 'undici';

// FreshRSS marks 1,000 items read in 40-100 s under load, past fetch's default 300 s header
// timeout once a few runs queue behind each other: no timeout for this bench's calls.
setGlobalDispatcher(new Agent({ headersTimeout: 0, bodyTimeout: 0 }));

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const opt = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const num = (name: string, dflt: number) => Number(opt(name) ?? dflt);
const FRESHRSS = opt('freshrss') ?? '';
const FEEDS = num('feeds', 1000);
const ITEMS = num('items', 100);
const RUNS = num('runs', 20);
const SECONDS = num('seconds', 5);
const USER = 'bench',
  PASS = 'bench-password';

const TIDINGS_ONLY = process.argv.includes('--tidings-only');
if (!TIDINGS_ONLY && (!FRESHRSS || !existsSync(join(FRESHRSS, 'cli/create-user.php')))) {
  console.error(
    'usage: node bench/freshrss-peer.bench.ts --freshrss DIR (a FreshRSS checkout; see the top of this file)',
  );
  process.exit(2);
}
if (!TIDINGS_ONLY && spawnSync('php', ['-v']).status !== 0) {
  console.error('php not found: apt-get install -y php8.2-cli php8.2-sqlite3 php8.2-xml php8.2-mbstring php8.2-curl');
  process.exit(2);
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function opml(feedPort: number): string {
  const outlines = Array.from(
    { length: FEEDS },
    (_, k) => `<outline type="rss" text="Site ${k}" xmlUrl="http://127.0.0.1:${feedPort}/feed${k}.xml"/>`,
  ).join('\n');
  return `<?xml version="1.0"?>\n<opml version="2.0"><head><title>bench</title></head><body>\n${outlines}\n</body></opml>\n`;
}

interface Run {
  seconds: number;
  cpuS: number;
  peakMb: number;
  out: string;
}

/** Runs a CLI process; returns its wall time, CPU and peak RSS (sampled from /proc). */
async function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const cpu0 = reapedChildrenCpuS();
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Each chunk of output stamped with the second it came at (--tidings-only prints them: where the
  // wall time goes, e.g. the CLI's own "refreshed N feed(s) in X s" against the process's time).
  const stamp = (d: Buffer) =>
    (out += TIDINGS_ONLY ? `[${((performance.now() - t0) / 1000).toFixed(1)} s] ${d}` : String(d));
  child.stdout.on('data', stamp);
  child.stderr.on('data', stamp);
  let peakMb = 0;
  const sampler = setInterval(() => {
    try {
      // A process on its way out has no VmHWM line any more (NaN): keep the last reading.
      peakMb = Math.max(peakMb, memOf(child.pid!).peak || 0);
    } catch {
      /* exited */
    }
  }, 200);
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out.slice(-3000)}`);
  return { seconds, cpuS: reapedChildrenCpuS() - cpu0, peakMb, out };
}

/** A PHP CLI script of FreshRSS. */
const php = (args: string[], env: NodeJS.ProcessEnv) => run('php', args, FRESHRSS, env);

/** A command of Tidings' CLI on the bench's data folder. */
const tidings = (args: string[], env: NodeJS.ProcessEnv) =>
  run(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], ROOT, env);

const fmtRun = (r: Run) => `${r.seconds.toFixed(1)} s, CPU ${r.cpuS.toFixed(2)} s, peak RSS ${r.peakMb.toFixed(0)} MB`;

/** The Google Reader calls of ../shared/tools/greader-bench.mjs against one server (bench/greader-calls.ts), timed. */
async function readerCallTimes(base: string): Promise<{ lines: Record<string, string>; rps: number }> {
  const { ids, calls: list } = await readerCalls(base, USER, PASS);
  const call = (name: string) => () => fetchCall(list.get(name)!);
  const calls: Record<string, () => Promise<Response>> = {
    'stream/contents n=1000': call('stream/contents n=1000'),
    'stream/contents n=1000 unread': call('stream/contents n=1000 unread'),
    'stream/contents n=20': call('stream/contents n=20'),
    'items/ids n=10000 unread': call('items/ids n=10000 unread'),
    'items/contents 150 ids': call('items/contents 150 ids'),
    'unread-count': call('unread-count'),
    'edit-tag 1000 read+unread': async () => {
      await (await fetchCall(list.get('edit-tag 1000 read')!)).text();
      return fetchCall(list.get('edit-tag 1000 unread')!);
    },
  };
  const q = (a: number[], p: number) => a[Math.min(a.length - 1, Math.floor(a.length * p))]!;
  const lines: Record<string, string> = { 'items in the reading list (ids n=1000 page)': String(ids.length) };
  for (const [name, fn] of Object.entries(calls)) {
    const t: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const s = performance.now();
      const r = await fn();
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`${name} at ${base}: HTTP ${r.status}`);
      if (i >= 2) t.push(performance.now() - s);
    }
    t.sort((a, b) => a - b);
    lines[name] = `${q(t, 0.5).toFixed(1)} / ${q(t, 0.99).toFixed(1)} ms`;
  }
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < end) {
        await (await calls['stream/contents n=20']!()).arrayBuffer();
        done++;
      }
    }),
  );
  return { lines, rps: done / SECONDS };
}

/** The feed server's answers since the last call (it resets them). */
async function answered(feedServer: Worker | undefined): Promise<{ ok: number; notModified: number } | undefined> {
  if (!feedServer) return undefined;
  const reply = new Promise<{ answered: { ok: number; notModified: number } }>((r) => {
    const on = (m: { answered?: unknown }) => {
      if (m.answered) {
        feedServer.off('message', on);
        r(m as { answered: { ok: number; notModified: number } });
      }
    };
    feedServer.on('message', on);
  });
  feedServer.postMessage({ stats: true });
  return (await reply).answered;
}

/** A refresh that must have been answered 304 for every feed, to be an "unchanged" one. */
function checkUnchanged(side: string, a: { ok: number; notModified: number } | undefined): void {
  if (a && (a.notModified !== FEEDS || a.ok !== 0))
    throw new Error(
      `${side}'s unchanged refresh was answered ${a.notModified} times 304 and ${a.ok} times 200 (expected ${FEEDS} times 304): not an unchanged refresh`,
    );
}

/**
 * Makes FreshRSS's next actualize fetch every feed: lastUpdate 2 h back (past the 1 h TTL; what an
 * hour passing does). The SimplePie cache is out of the way since cache_duration is 0.
 */
function ageFreshRssFeeds(frData: string): void {
  // Through PHP's PDO: FreshRSS's database, and the project's drivers stay in src/store/.
  const r = spawnSync(
    'php',
    [
      '-r',
      '$db = new PDO("sqlite:" . $argv[1]); $db->exec("UPDATE feed SET lastUpdate = lastUpdate - 7200") !== false || exit(1);',
      join(frData, 'users', USER, 'db.sqlite'),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`could not move FreshRSS's lastUpdate back: ${r.stderr || r.stdout}`);
}

/**
 * SimplePie's cache of each feed expires at once: config.php's limits (merged over
 * config.default.php's with array_replace_recursive) get cache_duration and cache_duration_min 0.
 */
function expireFreshRssCacheAtOnce(frData: string): void {
  const file = join(frData, 'config.php');
  const before = readFileSync(file, 'utf8');
  if (before.includes("'cache_duration'")) return; // done by an earlier run on this folder
  if (/'limits'\s*=>/.test(before) || !/return array \(/.test(before))
    throw new Error(
      `${file}: not the config.php this bench knows (a limits entry, or no "return array ("): set limits.cache_duration to 0 by hand`,
    );
  writeFileSync(
    file,
    before.replace(
      /return array \(/,
      "return array (\n  'limits' => array ('cache_duration' => 0, 'cache_duration_min' => 0),",
    ),
  );
}

async function main(): Promise<void> {
  const results: Record<string, Record<string, string>> = { FreshRSS: {}, Tidings: {} };
  const ratios: string[] = [];
  let feedServer: Worker | undefined;
  let feedPort = num('feed-port', 0);
  const reuseTidings = opt('tidings-data');
  const rounds = num('rounds', 3);
  // Served unless both sides reuse their data and no refresh is measured; on --feed-port's port
  // when given, the one the reused FreshRSS folder's subscriptions name (Tidings then subscribes
  // to the same URLs).
  if (!(reuseTidings && opt('freshrss-data') && rounds === 0)) {
    feedServer = new Worker(new URL('./feeds-bench-server.ts', import.meta.url), {
      workerData: { feeds: FEEDS, items: ITEMS, port: feedPort },
    });
    ({ port: feedPort } = await new Promise<{ port: number }>((r) => feedServer!.once('message', r)));
  }
  const children: ChildProcess[] = [];
  const reuse = opt('freshrss-data');
  const frData = reuse ?? mkdtempSync(join(tmpdir(), 'freshrss-bench-'));
  const tiData = reuseTidings ?? tempDataDir('tidings-bench-peer-');
  const env = { ...process.env, DATA_PATH: frData };
  const tiEnv = {
    ...process.env,
    TIDINGS_DATA: tiData,
    TIDINGS_LOG_LEVEL: 'warn',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  try {
    // FreshRSS: install, user, subscriptions, first refresh.
    if (TIDINGS_ONLY) results.FreshRSS['first refresh'] = 'not run (--tidings-only)';
    else if (!reuse) {
      await php(['cli/prepare.php'], env);
      await php(
        [
          'cli/do-install.php',
          '--default-user',
          'admin',
          '--api-enabled',
          '--db-type',
          'sqlite',
          '--environment',
          'production',
        ],
        env,
      );
      writeFileSync(join(frData, 'opml.xml'), opml(feedPort));
      await php(
        // Keep every item (the generated ones are older than FreshRSS's default 3-month purge).
        [
          'cli/create-user.php',
          '--user',
          USER,
          '--password',
          PASS,
          '--api-password',
          PASS,
          '--max-posts-per-rss',
          '1000',
          '--purge-after-months',
          '1200',
        ],
        env,
      );
      expireFreshRssCacheAtOnce(frData);
      await answered(feedServer);
      const first = await php(['cli/actualize-user.php', '--user', USER], env);
      const a = await answered(feedServer);
      results.FreshRSS['first refresh (cli/actualize-user.php)'] =
        `${fmtRun(first)}; ${a?.ok} feeds answered 200, load ${load()}`;
    } else results.FreshRSS['first refresh'] = `reused ${reuse}`;

    // Tidings: the same feeds, imported and refreshed by its CLI.
    if (!reuseTidings) {
      const store = await openStore({ databaseUrl: '', dataDir: tiData });
      await store.users.create(USER, await hashPassword(PASS));
      await store.close();
      const opmlFile = join(tiData, 'bench.opml');
      writeFileSync(opmlFile, opml(feedPort));
      await tidings(['opml', 'import', USER, opmlFile], tiEnv);
      await answered(feedServer);
      const first = await tidings(['refresh', '--all'], tiEnv);
      const a = await answered(feedServer);
      if (TIDINGS_ONLY) console.log(`Tidings' first refresh, its output:\n${first.out}`);
      results.Tidings['first refresh (tidings refresh --all)'] =
        `${fmtRun(first)}; ${a?.ok} feeds answered 200, load ${load()}`;
      const fr = /(\d+(?:\.\d+)?) s, CPU (\d+(?:\.\d+)?) s/.exec(
        results.FreshRSS['first refresh (cli/actualize-user.php)'] ?? '',
      );
      if (fr)
        ratios.push(
          `first refresh: FreshRSS / Tidings wall ${(Number(fr[1]) / first.seconds).toFixed(1)}x, CPU ${(Number(fr[2]) / first.cpuS).toFixed(1)}x`,
        );
    } else results.Tidings['first refresh'] = `reused ${reuseTidings}`;

    // Unchanged refreshes (every feed answered 304), alternating.
    for (let round = 1; round <= rounds; round++) {
      const none: Run = { seconds: Number.NaN, cpuS: Number.NaN, peakMb: 0, out: '' };
      if (!TIDINGS_ONLY) ageFreshRssFeeds(frData);
      await answered(feedServer);
      const f = TIDINGS_ONLY ? none : await php(['cli/actualize-user.php', '--user', USER], env);
      if (!TIDINGS_ONLY) checkUnchanged('FreshRSS', await answered(feedServer));
      const t = await tidings(['refresh', '--all'], tiEnv);
      checkUnchanged('Tidings', await answered(feedServer));
      const key = `unchanged refresh, round ${round} (all ${FEEDS} feeds 304)`;
      results.FreshRSS[key] = fmtRun(f);
      results.Tidings[key] = fmtRun(t);
      ratios.push(
        `unchanged refresh round ${round} (load ${load()}): CPU FreshRSS / Tidings ${(f.cpuS / t.cpuS).toFixed(2)}x, wall ${(f.seconds / t.seconds).toFixed(2)}x`,
      );
    }

    if (!process.argv.includes('--skip-calls') && !TIDINGS_ONLY) {
      const phpPort = await freePort();
      // Its output is read and only the end kept: php -S logs every request, and once a pipe nobody
      // reads is full it blocks mid-response (the calls stalled for 13 minutes that way, idle).
      const phpServer = spawn('php', ['-S', `127.0.0.1:${phpPort}`, '-t', 'p'], {
        cwd: FRESHRSS,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let phpOutput = '';
      const keepTail = (d: Buffer) => {
        phpOutput = (phpOutput + d.toString()).slice(-4000);
      };
      phpServer.stdout!.on('data', keepTail);
      phpServer.stderr!.on('data', keepTail);
      phpServer.once('exit', (code) => {
        if (code) console.error(`php -S exited with ${code}; its last output:\n${phpOutput}`);
      });
      children.push(phpServer);
      await sleep(1000);
      const frBase = `http://127.0.0.1:${phpPort}/api/greader.php`;
      const before = memOf(phpServer.pid!);
      const fr = await readerCallTimes(frBase);
      const after = memOf(phpServer.pid!);
      Object.assign(results.FreshRSS, fr.lines);
      results.FreshRSS['stream/contents n=20, 16 clients'] = `${fr.rps.toFixed(0)} req/s`;
      results.FreshRSS['serving process RSS before / after the calls, peak'] =
        `${before.rss.toFixed(0)} / ${after.rss.toFixed(0)} MB, peak ${after.peak.toFixed(0)} MB (php -S, one process)`;
      phpServer.kill('SIGTERM');

      const server = spawn(
        process.execPath,
        // One process, like php -S (serve forks one worker per core by default, and the RSS read
        // below is this pid's).
        [join(ROOT, 'bin/tidings.js'), 'serve', '--workers', '1', '--port', '0', '--host', '127.0.0.1'],
        {
          env: { ...tiEnv, TIDINGS_LOG_LEVEL: 'info', TIDINGS_LOG_FORMAT: 'json', TIDINGS_SCHEDULER: 'false' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      children.push(server);
      const url = await waitForServingUrl(server);
      const ti = await readerCallTimes(url);
      const served = memOf(server.pid!);
      Object.assign(results.Tidings, ti.lines);
      results.Tidings['stream/contents n=20, 16 clients'] = `${ti.rps.toFixed(0)} req/s`;
      results.Tidings['serving process RSS after the calls, peak'] =
        `${served.rss.toFixed(0)} MB, peak ${served.peak.toFixed(0)} MB`;
    }

    console.log(
      `\nFreshRSS (${FRESHRSS}, ${spawnSync('git', ['-C', FRESHRSS, 'log', '-1', '--format=%h %cs']).stdout?.toString().trim() || 'not a git checkout'}; ` +
        `${TIDINGS_ONLY ? 'not run' : spawnSync('php', ['-r', 'echo PHP_VERSION;']).stdout.toString()}) vs Tidings, ${FEEDS} feeds x ${ITEMS} items, ` +
        `${RUNS} runs a call, ${new Date().toISOString()}, load ${load()}`,
    );
    console.log(`| | FreshRSS | Tidings |\n|---|---|---|`);
    // The first refreshes first (each side's own row name), then the rounds and the calls.
    const keys = [...new Set([...Object.keys(results.FreshRSS!), ...Object.keys(results.Tidings!)])];
    for (const key of [...keys.filter((k) => k.startsWith('first')), ...keys.filter((k) => !k.startsWith('first'))])
      console.log(`| ${key} | ${results.FreshRSS![key] ?? ''} | ${results.Tidings![key] ?? ''} |`);
    for (const r of ratios) console.log(`- ${r}`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await feedServer?.terminate();
    if (!process.argv.includes('--keep')) {
      rmSync(tiData, { recursive: true, force: true });
      if (!reuse) rmSync(frData, { recursive: true, force: true });
    } else console.log(`kept: FreshRSS data ${frData}, Tidings data ${tiData}`);
  }
}

await main();
