// The supervisor of `tidings serve --workers N` (node:cluster): it opens the database once, so
// migrations run here before any worker starts, then forks N workers that serve one port. It
// serves no request itself and holds no database connection while they run.
//
// - How connections reach the workers (TIDINGS_WORKER_BALANCING): with reuse-port (opt-in,
//   Linux only) each worker binds the port itself with SO_REUSEPORT and the kernel spreads new
//   connections over them by address hash; the supervisor is out of the data path. With
//   round-robin (the default) the supervisor accepts every connection and passes it to the
//   workers in turn, which costs it CPU per connection: measured with a new connection per
//   request, 0.22 ms of CPU per request against 0.06-0.09 (BENCHMARKS.md, "Workers").
// - A worker that dies is forked again in the same slot (same role), at once after a long life
//   and with a doubling delay after quick deaths (0.5 s, 1 s, … 30 s), each logged. Requests in
//   flight on the other workers go on: their connections are theirs.
// - SIGTERM/SIGINT: every worker is told to drain (stop accepting, finish requests and streams in
//   flight, stop background work), then the supervisor exits when the last one has. Workers that
//   have not exited TIDINGS_DRAIN_SECONDS + 10 s later are killed.
// - A worker that fails before the first start completed (port taken, bad config) stops the
//   whole server with its exit code: restarting it would fail the same way.
// - With a local model (src/answer/local/), a model host process holds the one copy of it that
//   every worker calls, started before them and stopped after the last one.
// Slot 1 has the background role (ProcessRole in ../runtime/app.ts); see src/cli/README.md, "Workers".
import cluster, { type Worker } from 'node:cluster';
import { createServer, type Server } from 'node:net';
import type { Config } from '../config/config.ts';
import { createLogger, prettyLogs, type LogFormat, type Logger } from '../log/logger.ts';
import { announceSetupLink, issueSetupSecret, setupBaseUrl, setupLink } from '../auth/setup-link.ts';
import { openStore } from '../store/open-store.ts';
import { CliError, checkDatabase } from './context.ts';
import { markServing } from './pid-file.ts';
import type { WorkerMetrics } from '../observability/cluster.ts';
import { collectStartupGarbage } from '../runtime/startup-garbage.ts';
import { selectedModelFile } from '../models/index.ts';

export const WORKER_SLOT_ENV = 'TIDINGS_WORKER_SLOT';
export const WORKER_BACKGROUND_ENV = 'TIDINGS_WORKER_BACKGROUND';
/** Set under reuse-port balancing: the port every worker binds itself (the one chosen for --port 0). */
export const WORKER_REUSE_PORT_ENV = 'TIDINGS_WORKER_REUSE_PORT';

/** Messages between the supervisor and a worker over the cluster's IPC channel. */
export type WorkerMessage =
  | { type: 'drain' }
  | { type: 'draining' }
  /** Sent once the worker listens (under reuse-port node:cluster has no 'listening' event). */
  | { type: 'listening'; host: string; port: number }
  /** New feeds wait (an OPML import on a worker): the supervisor passes it to the worker that refreshes. */
  | { type: 'refresh-soon' }
  // /metrics summed over the workers (src/observability/cluster.ts): the worker that got the
  // scrape asks (request), the supervisor collects every worker's metrics (collect, part) and
  // answers it with their sum (result).
  | { type: 'metrics-request'; id: number }
  | { type: 'metrics-collect'; id: number }
  | { type: 'metrics-part'; id: number; metrics: WorkerMetrics }
  | { type: 'metrics-result'; id: number; contentType?: string; text?: string; error?: string };

/** How long the supervisor waits for each worker's part of a scrape; later ones are left out (and counted). */
const METRICS_PART_WAIT_MS = 3000;

/** The error of a port that is taken (or not ours to take), naming what to change. */
export function cannotListen(config: Config, code: string): CliError {
  return new CliError(
    `cannot listen on ${config.host}:${config.port} (${code}): choose another port with --port <port> or TIDINGS_PORT (or another address with --host)`,
    2,
  );
}

export type WorkerBalancing = 'reuse-port' | 'round-robin';

/**
 * What TIDINGS_WORKER_BALANCING=auto means: round-robin. reuse-port saves the supervisor's CPU only
 * for clients that open a connection per request (keep-alive throughput measured the same), and
 * costs an uneven split of keep-alive connections and the accept queue of a worker that dies.
 */
export function workerBalancing(config: Config): WorkerBalancing {
  if (config.workerBalancing === 'auto') return 'round-robin';
  return config.workerBalancing as WorkerBalancing;
}

/**
 * The port the workers bind under reuse-port. For --port 0 the supervisor binds a free port
 * with SO_REUSEPORT itself and holds it until the workers listen, so no other program takes it
 * in between (nobody knows the port before "tidings is serving", so no connection lands on it).
 */
async function reservePort(config: Config): Promise<{ port: number; release(): void }> {
  const listen = (server: Server, reusePort: boolean) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(e.code === 'EADDRINUSE' || e.code === 'EACCES' ? cannotListen(config, e.code) : e),
      );
      server.listen({ host: config.host, port: config.port, reusePort }, resolve);
    });
  if (config.port !== 0) {
    // SO_REUSEPORT would let the workers share the port with another server of the same user
    // (a second `tidings serve` started by mistake would take half the connections): a bind
    // without it fails while any server holds the port.
    const probe = createServer();
    await listen(probe, false);
    await new Promise<void>((r) => probe.close(() => r()));
    return { port: config.port, release: () => {} };
  }
  const holder: Server = createServer();
  await listen(holder, true);
  const address = holder.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let held = true;
  return {
    port,
    release: () => {
      if (held) holder.close();
      held = false;
    },
  };
}

/** A worker that lived shorter than this died "quickly": the next restart waits longer. */
const QUICK_DEATH_MS = 10_000;
const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;

interface Slot {
  readonly n: number;
  worker?: Worker;
  startedAt: number;
  listening: boolean;
  /** The worker said it is draining (it got a signal of its own): its exit is expected. */
  draining: boolean;
  quickDeaths: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * A message from a worker to its supervisor. A send that fails (the channel closed under it:
 * EPIPE, ERR_IPC_CHANNEL_CLOSED) is logged and the worker serves on: without a callback Node
 * emits it as an 'error' event on the process, which nothing handled, so the worker died.
 */
export function tellSupervisor(
  log: Logger,
  m: WorkerMessage,
  proc: Pick<NodeJS.Process, 'send'> = process,
  onFailed?: (err: unknown) => void,
): void {
  const failed = (err: unknown) => {
    log.warn({ err, message: m.type }, 'could not tell the supervisor; serving on');
    onFailed?.(err);
  };
  try {
    proc.send?.(m, undefined, {}, (err: Error | null) => {
      if (err) failed(err);
    });
  } catch (err) {
    failed(err);
  }
}

/** A message to a worker; one that fails (the worker is dying: its exit is handled) is only logged. */
function tellWorker(log: Logger, w: Worker, m: WorkerMessage): boolean {
  try {
    return w.send(m, undefined, (err: Error | null) => {
      if (err) log.warn({ err, pid: w.process.pid, message: m.type }, 'message to a worker failed');
    });
  } catch (err) {
    log.warn({ err, pid: w.process.pid, message: m.type }, 'message to a worker failed');
    return false;
  }
}

function tellToDrain(w: Worker): void {
  try {
    w.send({ type: 'drain' } satisfies WorkerMessage);
  } catch {
    w.process.kill('SIGTERM');
  }
}

/** Runs the workers until stopped; resolves with the exit code for the supervisor. */
export async function superviseWorkers(config: Config, count: number): Promise<number> {
  const log = createLogger(config.logLevel, config.logFormat as LogFormat).child({ component: 'supervisor' });
  const { created } = await checkDatabase(config, { create: true });
  // Migrations once, here, before any worker opens the database.
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const migrations = store.migrationsApplied;
  // The one first-run setup link of this start, valid on every worker (src/web/setup.ts): issued
  // here, before any worker runs, and printed once they all listen.
  let setupSecret: string | undefined;
  try {
    setupSecret = await issueSetupSecret(store.webAccounts);
  } finally {
    await store.close();
  }
  if (created) log.info({ dataDir: config.dataDir }, 'created a new database');
  if (migrations.length) log.info({ migrations }, 'applied migrations');

  // The model is loaded once for the machine, before the workers that call it start.
  const machineModel = selectedModelFile(config)
    ? await (await import('../answer/local/machine.ts')).startMachineModel(config, log)
    : { env: {}, stop: async () => {} };

  const balancing = workerBalancing(config);
  const reserved = balancing === 'reuse-port' ? await reservePort(config) : undefined;
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    n: i + 1,
    startedAt: 0,
    listening: false,
    draining: false,
    quickDeaths: 0,
  }));
  let serving = false;
  let stopping = false;
  let exitCode = 0;
  let removePid: (() => void) | undefined;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((r) => {
    finish = r;
  });

  const live = () => slots.filter((s) => s.worker);

  // Scrapes being gathered: the parts received, and the slots still to answer.
  let metricsRounds = 0;
  const gathering = new Map<number, { parts: WorkerMetrics[]; waiting: Set<Slot>; missing: number; done(): void }>();
  const gatherMetrics = async () => {
    const id = ++metricsRounds;
    const targets = slots.filter((s) => s.worker && s.listening);
    const round = { parts: [] as WorkerMetrics[], waiting: new Set(targets), missing: 0, done: () => {} };
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, METRICS_PART_WAIT_MS);
      round.done = () => {
        clearTimeout(timer);
        resolve();
      };
      gathering.set(id, round);
      for (const s of targets) {
        if (!tellWorker(log, s.worker!, { type: 'metrics-collect', id })) {
          round.waiting.delete(s);
          round.missing++;
        }
      }
      if (!round.waiting.size) round.done();
    });
    gathering.delete(id);
    if (round.waiting.size)
      log.warn(
        { workers: [...round.waiting].map((s) => s.n) },
        'workers left out of a /metrics scrape: no answer in time',
      );
    const { aggregateWorkerMetrics } = await import('../observability/cluster.ts');
    return aggregateWorkerMetrics(round.parts, round.missing + round.waiting.size);
  };
  const onMetricsPart = (slot: Slot, m: { id: number; metrics: WorkerMetrics }) => {
    const round = gathering.get(m.id);
    if (!round?.waiting.delete(slot)) return;
    round.parts.push(m.metrics);
    if (!round.waiting.size) round.done();
  };
  const onMetricsRequest = (w: Worker, id: number) => {
    gatherMetrics().then(
      (r) => tellWorker(log, w, { type: 'metrics-result', id, ...r }),
      (err: Error) => {
        log.error({ err }, 'could not add up the workers’ metrics');
        tellWorker(log, w, { type: 'metrics-result', id, error: err.message });
      },
    );
  };
  const checkFinished = () => {
    if (stopping && live().length === 0 && !slots.some((s) => s.restartTimer)) {
      removePid?.();
      log.info({ exitCode }, 'all workers stopped');
      finish(exitCode);
    }
  };

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    if (stopping) return checkFinished();
    const w = cluster.fork({
      [WORKER_SLOT_ENV]: String(slot.n),
      [WORKER_BACKGROUND_ENV]: slot.n === 1 ? '1' : '0',
      ...(reserved ? { [WORKER_REUSE_PORT_ENV]: String(reserved.port) } : {}),
      ...machineModel.env,
    });
    slot.worker = w;
    slot.startedAt = Date.now();
    slot.listening = false;
    slot.draining = false;
    // A message to a worker that fails (it is dying) must not stop the supervisor: its exit is handled below.
    w.on('error', (err) => log.warn({ err, worker: slot.n }, 'message to a worker failed'));
    w.on('message', (m: WorkerMessage) => {
      if (m?.type === 'draining') slot.draining = true;
      else if (m?.type === 'listening') onListening(m);
      else if (m?.type === 'metrics-request') onMetricsRequest(w, m.id);
      else if (m?.type === 'metrics-part') onMetricsPart(slot, m);
      else if (m?.type === 'refresh-soon') {
        const background = slots.find((s) => s.n === 1)?.worker;
        if (background) tellWorker(log, background, m);
      }
    });
    const onListening = (address: { host: string; port: number }) => {
      slot.listening = true;
      if (stopping) return tellToDrain(w);
      if (serving) {
        log.info({ worker: slot.n, pid: w.process.pid }, 'worker restarted and listening');
        return;
      }
      if (slots.every((s) => s.listening)) {
        serving = true;
        reserved?.release();
        const host = address.host;
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
        try {
          removePid = markServing(config.dataDir);
        } catch (err) {
          // Only `tidings restore` reads it: serving goes on without it.
          log.error({ err, dataDir: config.dataDir }, 'could not write serve.pid in the data folder');
        }
        log.info(
          { url, dataDir: config.dataDir, workers: count, balancing, pid: process.pid, nodeFlags: process.execArgv },
          'tidings is serving',
        );
        if (setupSecret)
          announceSetupLink(
            log,
            setupLink(setupBaseUrl(config, address.port), setupSecret),
            prettyLogs(config.logFormat),
          );
        collectStartupGarbage();
      }
    };
    w.on('exit', (code, signal) => {
      if (slot.worker === w) slot.worker = undefined;
      for (const round of gathering.values()) {
        if (!round.waiting.delete(slot)) continue;
        round.missing++;
        if (!round.waiting.size) round.done();
      }
      const lived = Date.now() - slot.startedAt;
      const who = { worker: slot.n, pid: w.process.pid, code, signal, livedMs: lived };
      if (stopping) {
        if (code !== 0 && slot.listening && !slot.draining) exitCode = 1;
        log.info(who, 'worker stopped');
        return checkFinished();
      }
      if (!serving && !slot.listening) {
        // The first start failed (the worker printed why): the others would fail the same way.
        log.error(who, 'a worker could not start; stopping');
        exitCode = code || 1;
        stop('start failed');
        return;
      }
      slot.quickDeaths = lived < QUICK_DEATH_MS ? slot.quickDeaths + 1 : 0;
      const delayMs = slot.quickDeaths ? Math.min(RESTART_BASE_MS * 2 ** (slot.quickDeaths - 1), RESTART_MAX_MS) : 0;
      if (slot.draining)
        log.info({ ...who, restartInMs: delayMs }, 'worker stopped on its own signal; starting a new one');
      else log.error({ ...who, restartInMs: delayMs }, 'worker died; starting a new one');
      slot.restartTimer = setTimeout(() => fork(slot), delayMs);
    });
  };

  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    reserved?.release();
    log.info({ why, drainSeconds: config.drainSeconds }, 'stopping: draining the workers');
    for (const s of slots) {
      if (s.restartTimer) clearTimeout(s.restartTimer);
      s.restartTimer = undefined;
      const w = s.worker;
      if (!w) continue;
      // A worker still starting has nothing in flight (and may not listen for messages yet).
      if (!s.listening) w.process.kill('SIGTERM');
      else tellToDrain(w);
    }
    setTimeout(
      () => {
        for (const s of live()) {
          log.warn({ worker: s.n, pid: s.worker!.process.pid }, 'worker did not drain in time; killing it');
          s.worker!.process.kill('SIGKILL');
        }
      },
      (config.drainSeconds + 10) * 1000,
    ).unref();
    checkFinished();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  for (const s of slots) fork(s);
  const code = await finished;
  await machineModel.stop();
  return code;
}
