// The bodies of the worker threads a serving or refreshing process starts (feed parsing, filter
// rules, the search index's preparation). On a cold compile cache (a checkout's first run after a
// clone, a `git pull`, a new Node, a temp folder cleared), each such thread strips the types of
// its modules itself and keeps Node's TypeScript stripper loaded (~15 MB a thread). The compile
// cache is shared on disk: written by the main thread, it serves the threads started after. So a
// first start that starts over without the stripper (src/runtime/type-stripper.ts: `tidings serve`,
// `tidings refresh`) loads these too before it writes the cache. Each body is inert on the main
// thread (no parentPort).

/** Loads the worker threads' bodies on this thread (nothing runs: they listen on parentPort only). */
export function loadWorkerThreadModules(): Promise<unknown> {
  return Promise.all([
    import('../feeds/parse-pool/parse-worker.ts'),
    import('../rules/match-worker.ts'),
    import('../search/prepare-worker.ts'),
  ]);
}
