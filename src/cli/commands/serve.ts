// `tidings serve` (what `npm start` runs): both APIs on one HTTP port, feeds refreshed on schedule,
// until SIGINT/SIGTERM. It takes the same --data/--config/--set as every other command, so the
// server and the CLI cannot end up on different databases.
//
// With --workers N > 1 (TIDINGS_WORKERS; default one per CPU core) this process becomes the
// supervisor of N worker processes sharing the port (../supervisor.ts); each worker runs this
// same command again (node:cluster forks it with the same arguments) and serves. Which background
// work runs in which worker: src/cli/README.md, "Workers".
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { flushCompileCache } from 'node:module';
import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import { type CliContext, checkDatabase } from '../context.ts';
import { appDomainModules, createApp } from '../../server/create-app.ts';
import { loadStoreModule } from '../../store/open-store.ts';
import type { App, ProcessRole } from '../../runtime/app.ts';
import type { Config } from '../../config/config.ts';
import { createLogger, type LogFormat, type Logger } from '../../log/logger.ts';
import type { MetricsText } from '../../observability/cluster.ts';
import { markServing } from '../pid-file.ts';
import { collectStartupGarbage } from '../../runtime/startup-garbage.ts';
import { startOverWithoutTypeStripper } from '../../runtime/type-stripper.ts';
import { loadWorkerThreadModules } from '../thread-modules.ts';
import {
  superviseWorkers,
  WORKER_SLOT_ENV,
  WORKER_BACKGROUND_ENV,
  WORKER_REUSE_PORT_ENV,
  cannotListen,
  tellSupervisor,
  type WorkerMessage,
} from '../supervisor.ts';
import type { ListenOptions } from '../../server/server.ts';

/** The worker count --workers / TIDINGS_WORKERS asks for (0: one per CPU core). */
export function workerCount(config: Config): number {
  return config.workers === 0 ? availableParallelism() : config.workers;
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description(
      'serve the Google Reader API and the chat completions API, and refresh feeds on schedule, until stopped (SIGINT/SIGTERM)',
    )
    .option('--port <port>', 'HTTP port (TIDINGS_PORT; 0 picks a free one)')
    .option('--host <address>', 'address to listen on (TIDINGS_HOST; 0.0.0.0 for the LAN)')
    .option(
      '--workers <n>',
      'processes serving the port (TIDINGS_WORKERS; 0: one per CPU core, the default; 1: a single process)',
    )
    .action(async (o: { port?: string; host?: string; workers?: string }) => {
      const config = ctx.config({ port: o.port, host: o.host, workers: o.workers });
      if (cluster.isWorker) {
        try {
          return await serveAsWorker(config);
        } catch (e) {
          // main() prints the error and sets the exit code; the IPC channel to the supervisor must
          // not keep this process alive after it (the supervisor sees the exit code and stops).
          setImmediate(() => process.exit(process.exitCode || 1));
          throw e;
        }
      }
      const workers = workerCount(config);
      // A first start from a checkout starts over here, before it opens anything, without Node's
      // TypeScript stripper (../../runtime/type-stripper.ts). A single server loads what it will
      // load anyway first, so a stale cache entry of any of them counts; a supervisor loads the
      // workers' modules only to write them to the cache for its workers.
      if (workers <= 1) await loadServerModules(config, { scheduler: config.schedulerEnabled });
      await startOverWithoutTypeStripper(
        () => Promise.all([loadServerModules(config, { scheduler: true, worker: true }), loadWorkerThreadModules()]),
        () => {
          const log = createLogger(config.logLevel, config.logFormat as LogFormat);
          log.info(
            "first start from these sources: the compile cache is written, and the server starts over without Node's TypeScript stripper (~20 MB it would keep)",
          );
          log.flush(); // written now: the process image is replaced next
        },
      );
      if (workers > 1) {
        const code = await superviseWorkers(config, workers);
        // A worker that could not start printed why; the supervisor only passes its code on.
        if (code !== 0) process.exit(code);
        // Nothing should be left on the event loop; if a handle is, it must not keep us alive.
        setTimeout(() => process.exit(0), 2000).unref();
        return;
      }
      await serveSingle(config);
    });
}

/** One process does everything (--workers 1, or a one-core machine). */
async function serveSingle(config: Config): Promise<void> {
  const { created } = await checkDatabase(config, { create: true });
  const app = await createApp(config, createLogger(config.logLevel, config.logFormat as LogFormat));
  if (created) app.log.info({ dataDir: config.dataDir }, 'created a new database');
  await startLocalModelOf(app);
  await readAnswerTokens(app);
  const { server, url } = await listen(app, config);
  const stopped = untilStopped(app, server, config);
  app.log.info({ url, dataDir: config.dataDir, workers: 1, nodeFlags: process.execArgv }, 'tidings is serving');
  // Node writes its compile cache (scripts/process-setup.js) at exit, which a server killed or
  // stopped by its supervisor may never reach: write it now that every module is loaded.
  flushCompileCache();
  collectStartupGarbage();
  app.onClose(markServing(config.dataDir));
  if (config.schedulerEnabled) (await import('../../feeds/scheduler/scheduler.ts')).startScheduler(app);
  await warnWithoutUsers(app, config);
  await stopped;
}

/** A worker forked by the supervisor: serves, and does background work only in the background role. */
async function serveAsWorker(config: Config): Promise<void> {
  const role: ProcessRole = {
    worker: Number(process.env[WORKER_SLOT_ENV]) || 1,
    background: process.env[WORKER_BACKGROUND_ENV] === '1',
  };
  process.title = `tidings worker ${role.worker}`;
  // Listening for the supervisor's "drain" from the start: it may come while the worker starts.
  const drain = new AbortController();
  process.on('message', (m: WorkerMessage) => {
    if (m?.type === 'drain') drain.abort('supervisor');
  });
  // A supervisor killed with -9 leaves no orphans: node:cluster ends a worker whose channel to
  // the primary closes unexpectedly (at once, without draining).
  const log = createLogger(config.logLevel, config.logFormat as LogFormat).child({ worker: role.worker });
  const app = await createApp(config, log, role);
  await answerMetricsThroughSupervisor(app, log);
  await startLocalModelOf(app);
  // Under reuse-port balancing this worker binds the port itself, the one the supervisor chose.
  const reusePort = process.env[WORKER_REUSE_PORT_ENV];
  await readAnswerTokens(app);
  const { server, url } = await listen(app, config, reusePort ? { port: Number(reusePort), reusePort: true } : {});
  const tell = (m: WorkerMessage) => tellSupervisor(log, m);
  const stopped = untilStopped(app, server, config, { stopRequested: drain.signal, tell });
  app.log.info({ url, pid: process.pid, background: role.background }, 'worker listening');
  const address = server.server.address();
  tell({ type: 'listening', host: config.host, port: typeof address === 'object' && address ? address.port : 0 });
  flushCompileCache();
  collectStartupGarbage();
  if (config.schedulerEnabled) {
    // An OPML import on any worker wakes the background worker's scheduler through the supervisor.
    const { refreshSoon, setRefreshWaker } = await import('../../feeds/index.ts');
    if (role.background) {
      (await import('../../feeds/scheduler/scheduler.ts')).startScheduler(app);
      process.on('message', (m: WorkerMessage) => {
        if (m?.type === 'refresh-soon') refreshSoon(app);
      });
    } else setRefreshWaker(app, () => tell({ type: 'refresh-soon' }));
  }
  if (role.background) await warnWithoutUsers(app, config);
  await stopped;
}

/**
 * /metrics in a worker answers with the sum over every worker, which the supervisor gathers
 * (src/observability/cluster.ts); this worker sends its own part when the supervisor collects.
 */
async function answerMetricsThroughSupervisor(app: App, log: Logger): Promise<void> {
  const { setMetricsSource, workerMetrics } = await import('../../observability/cluster.ts');
  const waiting = new Map<number, { resolve(r: MetricsText): void; reject(e: Error): void }>();
  let nextId = 0;
  process.on('message', (m: WorkerMessage) => {
    if (m?.type === 'metrics-collect') {
      workerMetrics(app).then(
        (metrics) => tellSupervisor(log, { type: 'metrics-part', id: m.id, metrics }),
        (err: unknown) => log.warn({ err }, 'could not read this worker’s metrics'),
      );
    } else if (m?.type === 'metrics-result') {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.text !== undefined) w?.resolve({ contentType: m.contentType ?? 'text/plain', text: m.text });
      else w?.reject(new Error(m.error ?? 'no metrics'));
    }
  });
  setMetricsSource(
    app,
    () =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the supervisor did not answer in time'));
        }, METRICS_RESULT_WAIT_MS);
        const settle =
          <T>(f: (v: T) => void) =>
          (v: T) => {
            clearTimeout(timer);
            f(v);
          };
        waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
        tellSupervisor(log, { type: 'metrics-request', id }, process, (err) => {
          waiting.delete(id);
          settle(reject)(err instanceof Error ? err : new Error(String(err)));
        });
      }),
  );
}

/** How long a worker's /metrics waits for the supervisor's sum (which waits up to 3 s for each worker). */
const METRICS_RESULT_WAIT_MS = 10_000;

/**
 * The modules a serving process loads after start-up begins (the rest come with this module's
 * imports): the domain modules of createApp, the store's backend, the answer code, the HTTP server,
 * and the scheduler and the worker's metrics when asked.
 */
async function loadServerModules(config: Config, also: { scheduler?: boolean; worker?: boolean }): Promise<void> {
  await Promise.all([
    appDomainModules(),
    loadStoreModule(config.databaseUrl),
    import('../../answer/local/index.ts'),
    import('../../answer/tokens.ts'),
    import('../../server/server.ts'),
    import('../../server/health.ts'),
    also.scheduler && import('../../feeds/scheduler/scheduler.ts'),
    also.worker && import('../../observability/cluster.ts'),
  ]);
}

/** Loads the local model (or connects to the model host) before serving; answer code loads here, not in the supervisor. */
async function startLocalModelOf(app: App): Promise<void> {
  await (await import('../../answer/local/index.ts')).startLocalModel(app);
}

/**
 * Reads the token-count vocabulary (src/answer/tokens.ts, ~15 MB of heap, 0.2-0.7 s) before the
 * server listens: read on the first answer instead, it held every request of the process for
 * 0.3-2 s (issues 25.1 and 26.4). A server that cannot read it still serves, and reads it on the
 * first answer.
 */
async function readAnswerTokens(app: App): Promise<void> {
  try {
    await (await import('../../answer/tokens.ts')).warmTokenizer();
  } catch (e) {
    app.log.warn({ err: e }, 'the token vocabulary could not be read');
  }
}

async function listen(
  app: App,
  config: Config,
  options: ListenOptions = {},
): Promise<{ server: FastifyInstance; url: string }> {
  try {
    // Loaded here, not at the top: other commands need neither Fastify nor the metrics registry.
    const { startServer } = await import('../../server/server.ts');
    return await startServer(app, options);
  } catch (e) {
    await app.close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES') throw cannotListen(config, err.code);
    throw e;
  }
}

async function warnWithoutUsers(app: App, config: Config): Promise<void> {
  if ((await app.users.list()).length === 0) {
    app.log.warn(
      `no users yet: create one with \`tidings --data ${config.dataDir} user add <name>\`, then subscribe with \`tidings feed add <name> <url>\``,
    );
  }
}

/**
 * Serves until SIGINT/SIGTERM (or the supervisor's "drain"), then drains: /readyz turns 503, the
 * port stops accepting, requests and SSE streams in flight finish, background work stops, and the
 * process exits. Past TIDINGS_DRAIN_SECONDS the connections still open are cut.
 */
async function untilStopped(
  app: App,
  server: FastifyInstance,
  config: Config,
  worker?: { stopRequested: AbortSignal; tell: (m: WorkerMessage) => void },
): Promise<void> {
  // The signal handlers go in before anything is awaited: the caller starts this before it logs
  // that it serves, so a SIGTERM right after that line drains instead of killing the process.
  let stopNow: ((why: string) => void) | undefined;
  let stopAsked: string | undefined;
  const onSignal = (why: string) => (stopNow ? stopNow(why) : (stopAsked ??= why));
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  const { markDraining } = await import('../../server/health.ts');
  await new Promise<void>((resolve) => {
    let closing = false;
    const stop = (why: string) => {
      if (closing) return;
      closing = true;
      worker?.tell({ type: 'draining' });
      markDraining(app);
      app.log.info({ why, drainSeconds: config.drainSeconds }, 'draining: finishing requests in flight');
      const cut = setTimeout(() => {
        app.log.warn({ drainSeconds: config.drainSeconds }, 'drain time is up: closing the connections still open');
        server.server.closeAllConnections();
        // A handle left open by a library must not keep a stopped server alive.
        setTimeout(() => process.exit(process.exitCode ?? 1), 5000).unref();
      }, config.drainSeconds * 1000);
      cut.unref();
      app.close().then(
        () => {
          clearTimeout(cut);
          app.log.info('drained and stopped');
          resolve();
        },
        (err: unknown) => {
          app.log.error({ err }, 'error while shutting down');
          process.exitCode = 1;
          resolve();
        },
      );
    };
    stopNow = stop;
    if (stopAsked) stop(stopAsked);
    const requested = worker?.stopRequested;
    if (requested?.aborted) stop(String(requested.reason));
    else requested?.addEventListener('abort', () => stop(String(requested.reason)));
  });
  // A worker exits at once (its IPC channel would keep it alive); a single process ends when
  // nothing is left on the event loop, and a handle a library left open must not keep it alive.
  if (worker) process.exit(process.exitCode ?? 0);
  setTimeout(() => process.exit(process.exitCode ?? 0), 5000).unref();
}
