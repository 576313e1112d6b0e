// A server run from a checkout loads TypeScript sources, whose types Node strips with its
// TypeScript stripper (amaro, an swc build in WebAssembly) unless the compile cache
// (scripts/process-setup.js) already holds the stripped source of every module. Once loaded, the
// stripper stays for the life of the process: its WebAssembly memory (7 MB, process.memoryUsage's
// `external`), the pages of the node binary it ran (5.5 MB, file-backed) and 3-6 MB of malloc
// heap. A server's first start from a checkout (after a clone, a `git pull` that changed sources,
// a new Node, or a temp folder cleared by a reboot or systemd's PrivateTmp) idled at 126-130 MB
// against 108-116 MB for the next start on the same data (BENCHMARKS.md, "The first server's
// idle memory"). Node cannot unload it, so such a server writes the compile cache for every
// module it will load and starts over in place (process.execve: same pid, so systemd, `kill` and
// the pid file see one process), before it opens the database or a port. The second image finds
// every module in the cache and never loads the stripper. The installed package (dist/, plain
// JavaScript) never loads it.
import { flushCompileCache, getCompileCacheDir } from 'node:module';

/** Set in the environment of the image started over, so that it never starts over again. */
export const STARTED_OVER_ENV = 'TIDINGS_STARTED_OVER';

/** Whether Node's TypeScript stripper is loaded in this thread (from Node's list of its own modules loaded). */
export function typeStripperLoaded(
  loaded: readonly string[] = (process as { moduleLoadList?: string[] }).moduleLoadList ?? [],
): boolean {
  return loaded.some((m) => m.endsWith('internal/deps/amaro/dist/index'));
}

/**
 * When this process has loaded the stripper, a compile cache is on and it has not started over
 * already: loads `modules` (what the process will load later, so the cache holds them too),
 * writes the cache and replaces the process with the same command started again; `before` runs
 * just before (a log line). Returns false, having done nothing else, when there is no need or no
 * way (no process.execve, no compile cache: starting over would load the stripper again).
 */
export async function startOverWithoutTypeStripper(
  modules: () => Promise<unknown>,
  before: () => void = () => {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (!typeStripperLoaded() || env[STARTED_OVER_ENV] === '1' || typeof process.execve !== 'function') return false;
  if (!getCompileCacheDir()) return false;
  await modules();
  flushCompileCache();
  before();
  return process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...env,
    [STARTED_OVER_ENV]: '1',
  });
}
