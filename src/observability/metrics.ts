// Prometheus metrics of one App (prom-client, one registry per App so tests and several Apps in one
// process do not mix counts), loaded by the HTTP server only. Domains report through
// ./events.ts and never touch prom-client; creating the registry subscribes it to those reports.
// Gauges that describe state (queues, database size) are read when scraped. Names follow
// Prometheus conventions: tidings_ prefix, _seconds, _bytes, _total.
import { statSync } from 'node:fs';
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import { memoryUseProbes, queueProbes, setMetricsSink } from './events.ts';

/** Latency buckets (seconds) from 5 ms (a cached Reader call) to 2 min (deep research). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

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

export const appMetrics: (app: App) => AppMetrics = perApp((app) => {
  const registry = new Registry();
  const m: AppMetrics = {
    registry,
    httpRequests: new Counter({
      name: 'tidings_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'tidings_http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    feedFetches: new Counter({
      name: 'tidings_feed_fetches_total',
      help: 'Feed fetches by outcome (updated, not_modified, failed, cancelled) and error kind',
      labelNames: ['outcome', 'error'],
      registers: [registry],
    }),
    feedFetchDuration: new Histogram({
      name: 'tidings_feed_fetch_duration_seconds',
      help: 'Time to fetch, parse and store one feed',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    refreshDuration: new Histogram({
      name: 'tidings_refresh_duration_seconds',
      help: 'Duration of one scheduled refresh pass over the due feeds',
      buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    searchDuration: new Histogram({
      name: 'tidings_search_duration_seconds',
      help: 'Search latency (local index plus web search when configured)',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    answerDuration: new Histogram({
      name: 'tidings_answer_duration_seconds',
      help: 'Time to a complete answer, by model, mode (complete, stream) and outcome',
      labelNames: ['model', 'mode', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'tidings_queue_depth',
    help: 'Work waiting or running, by queue',
    labelNames: ['queue', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [queue, probe] of queueProbes(app))
        for (const [state, n] of Object.entries(probe())) this.set({ queue, state }, n);
    },
  });
  new Gauge({
    name: 'tidings_memory_bytes',
    help: 'Memory held by parts of the server that the process metrics do not show apart (parse worker heaps, caches), by part',
    labelNames: ['part'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [part, probe] of memoryUseProbes(app)) this.set({ part }, await probe());
    },
  });
  new Gauge({
    name: 'tidings_database_bytes',
    help: 'Size of the SQLite database files',
    labelNames: ['file'],
    registers: [registry],
    // Every worker measures the same files: summed over the workers they would count N times.
    aggregator: 'max',
    collect() {
      // A database server (PostgreSQL) reports its own sizes; only SQLite's files are measured here.
      if (app.store.backend !== 'sqlite') return;
      for (const [file, path] of [
        ['db', app.store.location],
        ['wal', `${app.store.location}-wal`],
      ] as const) {
        let size = 0;
        try {
          size = statSync(path).size;
        } catch {
          /* no WAL file right now */
        }
        this.set({ file }, size);
      }
    },
  });
  setMetricsSink(app, {
    feedFetch(outcome, error, seconds) {
      m.feedFetches.inc({ outcome, error: error ?? '' });
      m.feedFetchDuration.observe({ outcome }, seconds);
    },
    refreshPass(seconds) {
      m.refreshDuration.observe(seconds);
    },
    search(seconds) {
      m.searchDuration.observe(seconds);
    },
    answer(model, mode, outcome, seconds) {
      m.answerDuration.observe({ model, mode, outcome }, seconds);
    },
  });
  return m;
});

/** How often the event-loop watches expect to run; their lateness is the time the thread was held. */
const EVENT_LOOP_TICK_MS = 100;

/** Process metrics (CPU, memory, event loop lag, GC): for the server, not for one-shot commands. */
export function collectProcessMetrics(app: App): void {
  // prom-client samples the loop every 10 ms by default: 100 wake-ups a second of an idle server's
  // main thread, 6-8 ms of CPU a second on this 2-core machine (schedstat of a serve process doing
  // nothing), taken from whatever else runs. At the watch's own 100 ms the idle cost is a tenth,
  // and a hold worth alerting on (the freeze histogram's buckets start at 10 ms late) still shows.
  collectDefaultMetrics({
    register: appMetrics(app).registry,
    prefix: 'tidings_',
    eventLoopMonitoringPrecision: EVENT_LOOP_TICK_MS,
  });
  watchEventLoop(app);
}

/**
 * A cumulative histogram of how long the main thread was held, for freezes (issue 25): one
 * request doing CPU work on untrusted input stops every other request of the process, /healthz
 * included. prom-client's `tidings_nodejs_eventloop_lag_{p50,p90,p99,max}_seconds` gauges cover
 * only the time since the previous scrape and are reset by each scrape (a second scraper, or a
 * missed scrape, hides a freeze); this histogram only grows, so
 * `increase(tidings_event_loop_blocked_seconds_bucket{le="+Inf"}) - increase(…{le="1"})` counts
 * the holds over 1 s in any window, and `…_sum` the time lost.
 */
function watchEventLoop(app: App): void {
  const blocked = new Histogram({
    name: 'tidings_event_loop_blocked_seconds',
    help: `How late the main thread ran a timer due every ${EVENT_LOOP_TICK_MS} ms: the time one task held it (every other request waited)`,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [appMetrics(app).registry],
  });
  let expected = performance.now() + EVENT_LOOP_TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    blocked.observe(Math.max(0, now - expected) / 1000);
    expected = now + EVENT_LOOP_TICK_MS;
  }, EVENT_LOOP_TICK_MS);
  timer.unref();
  app.onClose(() => clearInterval(timer));
}
