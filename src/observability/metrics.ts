// Prometheus metrics of one App (prom-client, one registry per App so tests and several Apps in one
// process do not mix counts). Domains report through the small functions below and never touch
// prom-client themselves; gauges that describe state (queues, database size) are read when
// scraped. Names follow Prometheus conventions: tidings_ prefix, _seconds, _bytes, _total.
import { statSync } from 'node:fs';
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';
import type { App } from '../app.ts';
import { perApp } from '../per-app.ts';
import type { AnswerEvent, AnswerRequest, AnswerService } from '../answer/types.ts';

/** Latency buckets (seconds) from 5 ms (a cached Reader call) to 2 min (deep research). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type QueueProbe = () => Record<string, number>;

export interface AppMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  feedFetches: Counter<'outcome' | 'error'>;
  feedFetchDuration: Histogram<'outcome'>;
  refreshDuration: Histogram<never>;
  searchDuration: Histogram<never>;
  answerDuration: Histogram<'model' | 'mode' | 'outcome'>;
}

// Kept apart from the registry so registering a queue costs nothing in CLI commands.
const queueProbes = new WeakMap<App, Map<string, QueueProbe>>();

export const appMetrics: (app: App) => AppMetrics = perApp((app) => {
  const registry = new Registry();
  const m: AppMetrics = {
    registry,
    httpRequests: new Counter({ name: 'tidings_http_requests_total', help: 'HTTP requests by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    httpDuration: new Histogram({ name: 'tidings_http_request_duration_seconds', help: 'HTTP request latency by method, route pattern and status', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers: [registry] }),
    feedFetches: new Counter({ name: 'tidings_feed_fetches_total', help: 'Feed fetches by outcome (updated, not-modified, failed, cancelled) and error kind', labelNames: ['outcome', 'error'], registers: [registry] }),
    feedFetchDuration: new Histogram({ name: 'tidings_feed_fetch_duration_seconds', help: 'Time to fetch, parse and store one feed', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers: [registry] }),
    refreshDuration: new Histogram({ name: 'tidings_refresh_duration_seconds', help: 'Duration of one scheduled refresh pass over the due feeds', buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800], registers: [registry] }),
    searchDuration: new Histogram({ name: 'tidings_search_duration_seconds', help: 'Search latency (local index plus web search when configured)', buckets: LATENCY_BUCKETS, registers: [registry] }),
    answerDuration: new Histogram({ name: 'tidings_answer_duration_seconds', help: 'Time to a complete answer, by model, mode (complete, stream) and outcome', labelNames: ['model', 'mode', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] }),
  };
  new Gauge({
    name: 'tidings_queue_depth', help: 'Work waiting or running, by queue', labelNames: ['queue', 'state'], registers: [registry],
    collect() {
      this.reset();
      for (const [queue, probe] of queueProbes.get(app) ?? []) for (const [state, n] of Object.entries(probe())) this.set({ queue, state }, n);
    },
  });
  new Gauge({
    name: 'tidings_database_bytes', help: 'Size of the SQLite database files', labelNames: ['file'], registers: [registry],
    collect() {
      // A database server (PostgreSQL) reports its own sizes; only SQLite's files are measured here.
      if (app.store.backend !== 'sqlite') return;
      for (const [file, path] of [['db', app.store.location], ['wal', `${app.store.location}-wal`]] as const) {
        let size = 0;
        try { size = statSync(path).size; } catch { /* no WAL file right now */ }
        this.set({ file }, size);
      }
    },
  });
  return m;
});

export function observeFeedFetch(app: App, outcome: string, error: string | null, seconds: number): void {
  const m = appMetrics(app);
  m.feedFetches.inc({ outcome, error: error ?? '' });
  m.feedFetchDuration.observe({ outcome }, seconds);
}

export function observeRefreshPass(app: App, seconds: number): void {
  appMetrics(app).refreshDuration.observe(seconds);
}

export function observeSearch(app: App, seconds: number): void {
  appMetrics(app).searchDuration.observe(seconds);
}

/** Registers a queue whose depth is read at each scrape. */
export function reportQueueDepth(app: App, queue: string, probe: QueueProbe): void {
  let probes = queueProbes.get(app);
  if (!probes) queueProbes.set(app, (probes = new Map()));
  probes.set(queue, probe);
}

/** Process metrics (CPU, memory, event loop lag, GC): for the server, not for one-shot commands. */
export function collectProcessMetrics(app: App): void {
  collectDefaultMetrics({ register: appMetrics(app).registry, prefix: 'tidings_' });
}

/** Wraps an AnswerService so each answer's latency (to the last event) is recorded. */
export function timedAnswers(app: App, inner: AnswerService): AnswerService {
  const done = (req: AnswerRequest, mode: string, t0: number, outcome: string) =>
    appMetrics(app).answerDuration.observe({ model: req.model, mode, outcome }, (performance.now() - t0) / 1000);
  return {
    async complete(req) {
      const t0 = performance.now();
      try { const r = await inner.complete(req); done(req, 'complete', t0, 'ok'); return r; } catch (e) { done(req, 'complete', t0, 'error'); throw e; }
    },
    stream(req): AsyncIterable<AnswerEvent> {
      return {
        async *[Symbol.asyncIterator]() {
          const t0 = performance.now();
          let outcome = 'incomplete'; // an error, or the client stopped reading
          try { yield* inner.stream(req); outcome = 'ok'; } finally { done(req, 'stream', t0, outcome); }
        },
      };
    },
  };
}
