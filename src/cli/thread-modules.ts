// The bodies of the worker threads a server starts (feed parsing, filter rules, the search
// index's preparation). On a cold compile cache (a checkout's first run after a
// clone, a `git pull`, a new Node, a temp folder cleared), each such thread strips the types of
// its modules itself and keeps Node's TypeScript stripper loaded (~15 MB a thread). The compile
// cache is shared on disk: written by the main thread, it serves the threads started after. So a
// server's first start, which starts over without the stripper (src/runtime/type-stripper.ts),
// loads these too before it writes the cache: 105-107 MB instead of 124-126 for a process with one
// parse thread (BENCHMARKS.md, bench/thread-stripper.bench.ts). Each body is inert on the main
// thread (no parentPort). `tidings refresh` does not start over: tried, its peak RSS on a cold
// cache stayed the same (192-197 MB against 195) for 0.6-1.3 s more CPU.

/** Loads the worker threads' bodies on this thread (nothing runs: they listen on parentPort only). */
export function loadWorkerThreadModules(): Promise<unknown> {
  return Promise.all([
    import('../feeds/parse-pool/parse-worker.ts'),
    import('../rules/match-worker.ts'),
    import('../search/prepare-worker.ts'),
  ]);
}
