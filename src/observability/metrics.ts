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
import { BUSY_TICK_MS, IDLE_TICK_MS, watchEventLoop, type EventLoopWatch } from './event-loop-watch.ts';

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

/**
 * prom-client's event-loop lag gauges, which this module reports itself from the watch of
 * ./event-loop-watch.ts (prom-client's come from monitorEventLoopDelay, a timer that ticks at all
 * times and records the whole time between its ticks: an idle server read the period, 0.1 s).
 */
const PROM_CLIENT_LAG = ['', '_min', '_max', '_mean', '_stddev', '_p50', '_p90', '_p99'].map(
  (s) => `tidings_nodejs_eventloop_lag${s}_seconds`,
);

/** Process metrics (CPU, memory, event loop lag, GC): for the server, not for one-shot commands. */
export function collectProcessMetrics(app: App): EventLoopWatch {
  const registry = appMetrics(app).registry;
  // prom-client has no switch for its loop-delay sampling; at this period (24 days) its timer
  // never runs, and its gauges are replaced below.
  collectDefaultMetrics({ register: registry, prefix: 'tidings_', eventLoopMonitoringPrecision: 2 ** 31 - 1 });
  for (const name of PROM_CLIENT_LAG) registry.removeSingleMetric(name);
  return reportEventLoop(app);
}

/**
 * A cumulative histogram of how long the main thread was held, for freezes (issue 25): one
 * request doing CPU work on untrusted input stops every other request of the process, /healthz
 * included. The `tidings_nodejs_eventloop_lag_{p50,p90,p99,max}_seconds` gauges cover only the
 * time since the previous scrape and are reset by each scrape (a second scraper, or a missed
 * scrape, hides a freeze); this histogram only grows, so
 * `increase(tidings_event_loop_blocked_seconds_bucket{le="+Inf"}) - increase(…{le="1"})` counts
 * the holds over 1 s in any window, and `…_sum` the time lost. Both come from one watch, which
 * ticks every 100 ms while the loop works and every second while it is idle.
 */
function reportEventLoop(app: App): EventLoopWatch {
  const registers = [appMetrics(app).registry];
  const blocked = new Histogram({
    name: 'tidings_event_loop_blocked_seconds',
    help: `How late the main thread ran a timer (due every ${BUSY_TICK_MS} ms while it works, every ${IDLE_TICK_MS} ms while idle): the time one task held it (every other request waited)`,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const watch = watchEventLoop((lateS) => blocked.observe(lateS));
  app.onClose(() => watch.stop());
  // One scrape reads every gauge: tidings_nodejs_eventloop_lag_seconds, registered first and so
  // collected first, takes the samples since the last scrape; the gauges after it read them.
  let taken: { min: number; max: number; mean: number; stddev: number; p50: number; p90: number; p99: number } = {
    min: 0,
    max: 0,
    mean: 0,
    stddev: 0,
    p50: 0,
    p90: 0,
    p99: 0,
  };
  const take = () => {
    const h = watch.takeSamples();
    const s = (ns: number) => (h.count ? ns / 1e9 : 0);
    taken = {
      min: s(h.min),
      max: s(h.max),
      mean: s(h.mean),
      stddev: s(h.stddev),
      p50: s(h.percentile(50)),
      p90: s(h.percentile(90)),
      p99: s(h.percentile(99)),
    };
  };
  new Gauge({
    name: 'tidings_nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds: how long an immediate waited when this scrape was served.',
    registers,
    aggregator: 'average',
    async collect() {
      take();
      const start = performance.now();
      await new Promise((r) => setImmediate(r));
      this.set((performance.now() - start) / 1000);
    },
  });
  const stat = (suffix: string, help: string, key: keyof typeof taken, aggregator: 'min' | 'max' | 'average') =>
    new Gauge({
      name: `tidings_nodejs_eventloop_lag_${suffix}_seconds`,
      help: `${help} of the event loop's lateness since the previous scrape (0 without samples).`,
      registers,
      aggregator,
      collect() {
        this.set(taken[key]);
      },
    });
  stat('min', 'The minimum', 'min', 'min');
  stat('max', 'The maximum', 'max', 'max');
  stat('mean', 'The mean', 'mean', 'average');
  stat('stddev', 'The standard deviation', 'stddev', 'average');
  stat('p50', 'The 50th percentile', 'p50', 'average');
  stat('p90', 'The 90th percentile', 'p90', 'average');
  stat('p99', 'The 99th percentile', 'p99', 'average');
  return watch;
}
