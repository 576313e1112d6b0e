// The whole suite (`npm test`, .ci/run): node's test runner over src/**/*.test.ts and
// test/**/*.test.ts, two files at a time, as `node --test --test-concurrency=2 --test-timeout=120000`
// runs it, with two differences that make it faster on a 2-core machine (BENCHMARKS.md, "Test
// suite"):
//
// 1. The slowest files start first. `node --test` sorts the files by name, so the slowest ones
//    (browsers, servers, the CLI as child processes: most of test/) came last, and one of them
//    often ran alone at the end while the other core idled. Longest first packs the two lanes.
// 2. Every test process, and the processes and worker threads it starts, reuses Node's on-disk
//    compile cache (NODE_COMPILE_CACHE, the folder `tidings` itself uses: scripts/process-setup.js).
//    Each of the ~150 test files otherwise type-strips and compiles the same few hundred modules
//    again; the cache is keyed by content and Node version, so a changed file is compiled afresh.
//
// Every temp folder the tests make (data folders, packed tarballs, model files, browser profiles)
// lands in one folder per run (TMPDIR, which every test process and its children inherit), removed
// when the run ends: the tests do not remove their own, and a run used to leave about 1 GB behind.
// The browser tests' screenshots still go to <tmp>/tidings-test-output (or $TIDINGS_TEST_OUTPUT).
// When the run ends, or is stopped by a signal (Ctrl-C, a CI timeout's SIGTERM), the PostgreSQL
// clusters tests started in that folder are stopped and every process still running with that
// TMPDIR is killed before the folder is removed: a stopped run used to leave clusters and servers
// running for good (cleanUpRun below).
//
// Usage: node test/run-suite.ts [file or glob …] (default: the two globs above; relative to the
// checkout's root). Options:
// --test-reporter=NAME and --test-reporter-destination=PATH (pairs, as for node --test; default
// spec to stdout), --test-concurrency=N, --test-timeout=MS.
import {
  chmodSync,
  createWriteStream,
  existsSync,
  globSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import * as reporters from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { stopCluster } from './postgres-cluster.ts';

/**
 * The files that took over 20 s in a SQLite pass (per-file wall time, BENCHMARKS.md "Test suite"),
 * slowest first; together about three quarters of the pass. A file missing here runs after these,
 * in name order; a name that no longer exists is ignored.
 */
export const SLOWEST_FIRST = [
  'test/search-durable.test.ts',
  'test/package-install.test.ts',
  'test/readme-quickstart.test.ts',
  'test/web-api-reader-features.test.ts',
  'test/web-browser.test.ts',
  'test/local-model-chat.test.ts',
  'test/web-browser-reader-features.test.ts',
  'test/web-browser-layout.test.ts',
  'test/workers.test.ts',
  'test/rules.test.ts',
  'test/web-api.test.ts',
  'test/feeds-cli.test.ts',
  'test/claims.test.ts',
  'test/worker-balancing.test.ts',
  'test/freeze-guard.test.ts',
  'test/webhooks.test.ts',
  'test/maintenance.test.ts',
  'test/observability.test.ts',
  'test/personal-server.test.ts',
  'test/cli-serve.test.ts',
  'test/feeds-engine.test.ts',
  'test/reader-clients.test.ts',
  'src/feeds/parse-pool/parse-pool.test.ts',
  'src/search/tokenizer.test.ts',
  'test/local-model-serve.test.ts',
  'src/answer/corpus.test.ts',
  'test/fever-api.test.ts',
  'test/related-questions-real-world.test.ts',
  'src/answer/tokens.test.ts',
  'test/fulltext-dns.test.ts',
  'test/serve-operations.test.ts',
  'test/models-store.test.ts',
  'test/answers-real-world.test.ts',
  'test/process-setup.test.ts',
  'test/web-browser-models.test.ts',
  'test/reader-limits.test.ts',
  'test/local-model-notes.test.ts',
  'test/auth-login-proxy.test.ts',
  'src/answer/local/local-model.test.ts',
  'test/hung-dependencies.test.ts',
  'src/feeds/parser/corpus.test.ts',
  'src/store/backends.test.ts',
  'test/reader-search.test.ts',
];

// Not from ./helpers.ts: importing it sets variables (TIDINGS_MODELS_DIR) every test process would inherit.
const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

const DEFAULT_PATTERNS = ['src/**/*.test.ts', 'test/**/*.test.ts'];

interface Options {
  patterns: string[];
  reporters: string[];
  destinations: string[];
  concurrency: number;
  timeout: number;
}

export function parseArgs(args: string[]): Options {
  const o: Options = { patterns: [], reporters: [], destinations: [], concurrency: 2, timeout: 120_000 };
  for (const a of args) {
    const m = /^(--[\w-]+)=(.*)$/.exec(a);
    if (!m) {
      if (a.startsWith('-')) throw new Error(`unknown option ${a} (see the usage at the top of test/run-suite.ts)`);
      o.patterns.push(a);
      continue;
    }
    const [, name, value] = m as unknown as [string, string, string];
    if (name === '--test-reporter') o.reporters.push(value);
    else if (name === '--test-reporter-destination') o.destinations.push(value);
    else if (name === '--test-concurrency') o.concurrency = Number(value);
    else if (name === '--test-timeout') o.timeout = Number(value);
    else throw new Error(`unknown option ${name} (see the usage at the top of test/run-suite.ts)`);
  }
  if (!o.reporters.length) o.reporters.push('spec');
  while (o.destinations.length < o.reporters.length) o.destinations.push('stdout');
  if (!(o.concurrency >= 1) || !(o.timeout >= 1))
    throw new Error('--test-concurrency and --test-timeout take a number');
  return o;
}

/** The files the patterns match, the measured slowest first, then the others in name order. */
export function orderedFiles(patterns: string[], cwd = ROOT): string[] {
  const files = [...new Set(patterns.flatMap((p) => globSync(p, { cwd })))].map((f) => relative(cwd, resolve(cwd, f)));
  const rank = (f: string) => {
    const i = SLOWEST_FIRST.indexOf(f);
    return i < 0 ? SLOWEST_FIRST.length : i;
  };
  return files.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

async function reporterStream(name: string) {
  const builtIn = (reporters as Record<string, unknown>)[name];
  if (builtIn) return builtIn;
  const mod = await import(/^[./]/.test(name) ? resolve(name) : name);
  return mod.default;
}

/** Cluster folders (holding data/postmaster.pid) up to three levels under dir, where tests make them. */
function clustersUnder(dir: string, depth = 3): string[] {
  if (existsSync(join(dir, 'data', 'postmaster.pid'))) return [dir];
  if (depth === 0) return [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isDirectory()).flatMap((e) => clustersUnder(join(dir, e.name), depth - 1));
}

/** Pids of the processes, other than this one, that inherited TMPDIR=dir (Linux /proc; none elsewhere). */
function processesOfRun(dir: string): number[] {
  const marker = `\0TMPDIR=${dir}\0`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  return pids.map(Number).filter((pid) => {
    if (pid === process.pid) return false;
    try {
      return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(marker);
    } catch {
      return false; // gone, or another user's
    }
  });
}

/** Stops what the run left behind in its temp folder (clusters, then processes), then removes it. */
export function cleanUpRun(dir: string): void {
  for (const cluster of clustersUnder(dir)) stopCluster(cluster);
  for (let round = 0; round < 3; round++) {
    const left = processesOfRun(dir);
    if (!left.length) break;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.main) {
  const o = parseArgs(process.argv.slice(2));
  process.env.NODE_COMPILE_CACHE ||= join(tmpdir(), 'node-compile-cache');
  // Screenshots are kept (one folder, overwritten by the next run); everything else goes with the run.
  process.env.TIDINGS_TEST_OUTPUT ||= join(tmpdir(), 'tidings-test-output');
  const runTemp = mkdtempSync(join(tmpdir(), 'tidings-suite-'));
  // Traversable by others: the PostgreSQL clusters that tests start there run as another user.
  chmodSync(runTemp, 0o711);
  process.env.TMPDIR = runTemp;
  process.on('exit', () => cleanUpRun(runTemp));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      console.error(`test/run-suite.ts: ${signal}, stopping the run's test processes and PostgreSQL clusters`);
      process.exit(128 + constants.signals[signal]); // the exit handler cleans up
    });
  const files = orderedFiles(o.patterns.length ? o.patterns : DEFAULT_PATTERNS);
  if (!files.length) throw new Error(`no test file matches ${o.patterns.join(' ')}`);
  const stream = run({
    files: files.map((f) => join(ROOT, f)),
    concurrency: o.concurrency,
    timeout: o.timeout,
    cwd: ROOT,
  });
  stream.on('test:fail', (ev) => {
    if (!ev.todo) process.exitCode = 1;
  });
  for (const [i, name] of o.reporters.entries()) {
    const dest = o.destinations[i]!;
    const out =
      dest === 'stdout' ? process.stdout : dest === 'stderr' ? process.stderr : createWriteStream(resolve(dest));
    stream.compose((await reporterStream(name)) as Parameters<typeof stream.compose>[0]).pipe(out);
  }
}
