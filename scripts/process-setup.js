// What every `tidings` process sets up before it loads the CLI (plain JavaScript: it runs before
// anything else, in a checkout and in the installed package alike).
//
// 1. Node's on-disk compile cache (module.enableCompileCache, in the OS temp folder unless
//    NODE_COMPILE_CACHE names one): later starts reuse the compiled code and, in a checkout, the
//    type-stripped sources, so Node's TypeScript stripper is not even loaded. Measured: a server
//    idle at 176 MB RSS without it, 157 MB with a warm cache, and each CLI command starts sooner.
//    The cache is keyed by the file's content and the Node version; a stale entry is never used.
//    A server that had to strip types (a cold cache) starts over once it has written the cache,
//    without the stripper (src/runtime/type-stripper.ts).
//    (Enabled at run time it serves only this thread and only a JavaScript entry point, hence
//    NODE_COMPILE_CACHE in the environment of a relaunched server, below.)
//
// 2. `tidings serve` and `tidings refresh` only: V8 settings for a long-running server (and for a
//    refresh, which allocates as fast: 186 MB of main heap at the peak of a 1,000-feed first
//    refresh against 72 MB with the flag, BENCHMARKS.md, Memory), applied by relaunching the
//    process in place (process.execve: same pid, so systemd, `kill` and the pid file see one
//    process) because V8 reads them only at start. The young generation grows with the allocation
//    rate up to 128 MB (64 MB semi-spaces) and keeps that memory: parsing a big refresh or serving
//    MB-sized pages pushed an idle-looking server from 170 to 600+ MB. --max-semi-space-size=8
//    bounds it at 16 MB (BENCHMARKS.md, Memory: throughput measured in the same run).
//    --heap-growing-percent=50 lets the old generation grow to 1.5x what is live before a full
//    collection, where V8's own heuristics let a busy server's grow to about 4x: chat answers on
//    100k items kept 35 MB live in a 130 MB heap. With it the server held 207-218 MB after 300
//    answers instead of 260-274, for the same CPU per answer (BENCHMARKS.md, Chat memory).
//    TIDINGS_SERVE_NODE_FLAGS replaces the flags ("" for none); a --max-semi-space-size given in
//    NODE_OPTIONS or on node's command line wins over the default.
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** V8 flags `tidings serve` runs with unless told otherwise (see above). */
export const DEFAULT_SERVE_NODE_FLAGS = '--max-semi-space-size=8 --heap-growing-percent=50';

/** The commands relaunched with those flags (the long-running and the allocation-heavy ones). */
const RELAUNCHED_COMMANDS = new Set(['serve', 'refresh']);

/** Global options of the CLI that take a value (`--data DIR`): their value is not the command. */
const OPTIONS_WITH_VALUE = new Set(['--data', '--config', '--set']);

/** The subcommand in argv (after node and the script), skipping global options and their values. */
export function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** The node flags to relaunch `serve` with, or [] when there is nothing to change. */
export function serveNodeFlags(env = process.env, execArgv = process.execArgv) {
  const wanted = (env.TIDINGS_SERVE_NODE_FLAGS ?? DEFAULT_SERVE_NODE_FLAGS).split(/\s+/).filter(Boolean);
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const name = (flag) => flag.split('=')[0].replace(/_/g, '-');
  const givenNames = new Set(given.filter(Boolean).map(name));
  return wanted.filter((f) => !givenNames.has(name(f)));
}

/**
 * Call first thing with process.argv (`serve` may be implied, as by src/main.ts). Relaunching
 * does not return: the process image is replaced and starts over with the flags.
 */
export function setUpProcess(argv = process.argv, { serve = RELAUNCHED_COMMANDS.has(commandOf(argv.slice(2))) } = {}) {
  // What `ps` and `top` show instead of "node …" or "MainThread" (a worker of `serve --workers N`
  // renames itself "tidings worker N"). On Linux it replaces the command line in /proc/PID/cmdline
  // (the node flags a server runs with are in its "tidings is serving" log line instead) and the
  // 15-character name top shows.
  process.title = 'tidings';
  try {
    module.enableCompileCache?.();
  } catch {
    /* a read-only temp folder: start without the cache */
  }
  // The marker stops a second relaunch (the flags are then in execArgv anyway).
  if (!serve || process.env.TIDINGS_RELAUNCHED === '1' || typeof process.execve !== 'function') return;
  const flags = serveNodeFlags();
  if (!flags.length) return;
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...argv.slice(1)], {
    // Given in the environment (not only enabled by the call above), the compile cache also serves
    // the parse worker threads and a .ts entry point (src/main.ts): each would otherwise load its
    // own TypeScript stripper (~15 MB a thread).
    NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'),
    ...process.env,
    TIDINGS_RELAUNCHED: '1',
  });
}
