// Liveness and readiness, for load balancers, systemd and orchestrators:
// - GET /healthz: the process serves HTTP (liveness). Always 200 while it answers at all.
// - GET /readyz: this process can do useful work (readiness): 200 while the database answers
//   (and Redis, when limits count there), 503 with Retry-After while it does not or while the
//   process drains for shutdown, so a balancer sends requests to the other workers or machines.
// Both name the worker (`serve --workers N`) and pid, so a check can tell which process answered.
// /readyz's `model` says which engine answers (local, remote, extractive) and, for a local model,
// where it runs (backend, GPU layers, the host's pid) or why it failed to load (`error`): a
// failed model does not make the server unready, it answers with the next engine.
// The reason for a 503 stays generic (the details, with the database's location, go to the log).
import type { FastifyInstance } from 'fastify';
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import { modelRuntimeStatus } from '../models/index.ts';

const state = perApp(() => ({ draining: false, lastError: '' }));

/**
 * A readiness probe answers within this, whatever the stores' own time limits: a balancer
 * checking every few seconds must learn that a hung database makes this process useless now,
 * not after the 60 s a legitimately slow statement may take.
 */
const READY_CHECK_MS = 3000;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  p.catch(() => {}); // its failure after the deadline matters to no one
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** From now on /readyz answers 503 (the server is shutting down and finishing what is in flight). */
export function markDraining(app: App): void {
  state(app).draining = true;
}

export function healthRoutes(server: FastifyInstance, app: App): void {
  const who = () => ({ worker: app.role.worker, pid: process.pid });
  server.get('/healthz', async () => ({ ok: true, ...who() }));
  server.get('/readyz', async (_req, reply) => {
    const s = state(app);
    if (s.draining)
      return reply
        .code(503)
        .header('retry-after', '5')
        .send({ ok: false, reason: 'draining', ...who() });
    try {
      await within(app.store.ping(), READY_CHECK_MS, 'the database');
      if (app.limits.kind === 'redis') await within(app.limits.ping(), READY_CHECK_MS, 'Redis');
    } catch (err) {
      const message = (err as Error).message;
      if (message !== s.lastError) app.log.error({ err }, 'not ready: a store does not answer');
      s.lastError = message;
      const reason =
        app.limits.kind === 'redis' && /redis/i.test(message) ? 'redis unreachable' : 'database unreachable';
      return reply
        .code(503)
        .header('retry-after', '5')
        .send({ ok: false, reason, ...who() });
    }
    if (s.lastError) app.log.info('ready again: the stores answer');
    s.lastError = '';
    return { ok: true, ...who(), model: await modelRuntimeStatus() };
  });
}
