// /metrics under `tidings serve --workers N`. Whichever worker gets the connection answers, so it
// answered with its own counters only, and a scrape saw one worker's requests at a time. Now the
// worker asks its supervisor (src/cli/supervisor.ts), which gathers every worker's metrics over
// the cluster's IPC channel (`workerMetrics`, as JSON) and sums them with prom-client's
// AggregatorRegistry.aggregate: counters and histograms add up; each metric's `aggregator` says
// otherwise (prom-client's process metrics: event-loop lag averaged, start time omitted, version
// the first; the SQLite file sizes, which every worker sees alike: the largest). A worker that does
// not answer in time is left out, and `tidings_metrics_workers{state="missing"}` says so.
import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { App } from '../runtime/app.ts';
import { appMetrics } from './metrics.ts';

/** One worker's metrics as it sends them to the supervisor. */
export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

export interface MetricsText {
  contentType: string;
  text: string;
}

export function workerMetrics(app: App): Promise<WorkerMetrics> {
  return appMetrics(app).registry.getMetricsAsJSON();
}

/** The workers' metrics summed into one exposition (run by the supervisor). */
export async function aggregateWorkerMetrics(parts: WorkerMetrics[], missing: number): Promise<MetricsText> {
  const registry = AggregatorRegistry.aggregate(parts);
  const workers = new Gauge({
    name: 'tidings_metrics_workers',
    help: 'Workers whose metrics this scrape adds up (reporting), and those that did not answer in time (missing)',
    labelNames: ['state'],
    registers: [registry],
  });
  workers.set({ state: 'reporting' }, parts.length);
  workers.set({ state: 'missing' }, missing);
  return { contentType: registry.contentType, text: await registry.metrics() };
}

/** Where /metrics gets its answer in a worker: the supervisor's sum (set by `tidings serve` in each worker). */
const sources = new WeakMap<App, () => Promise<MetricsText>>();

export function setMetricsSource(app: App, source: () => Promise<MetricsText>): void {
  sources.set(app, source);
}

export function metricsSource(app: App): (() => Promise<MetricsText>) | undefined {
  return sources.get(app);
}
