// What the domains report for metrics (a feed fetched, a search done, a queue's depth), free of
// any metrics library: the server's Prometheus registry (./metrics.ts) subscribes; a CLI command,
// which has no /metrics, never loads prom-client and its reports cost a WeakMap lookup.
import type { App } from '../runtime/app.ts';

export interface MetricsSink {
  feedFetch(outcome: string, error: string | null, seconds: number): void;
  refreshPass(seconds: number): void;
  search(seconds: number): void;
  answer(model: string, mode: 'complete' | 'stream', outcome: string, seconds: number): void;
}

export type QueueProbe = () => Record<string, number>;
/** Bytes one part of the process holds (a cache, the parse workers' heaps), read at each scrape. */
export type MemoryProbe = () => number | Promise<number>;

const sinks = new WeakMap<App, MetricsSink>();
const probes = new WeakMap<App, Map<string, QueueProbe>>();
const memoryProbes = new WeakMap<App, Map<string, MemoryProbe>>();

export function setMetricsSink(app: App, sink: MetricsSink): void {
  sinks.set(app, sink);
}

export function observeFeedFetch(app: App, outcome: string, error: string | null, seconds: number): void {
  sinks.get(app)?.feedFetch(outcome, error, seconds);
}

export function observeRefreshPass(app: App, seconds: number): void {
  sinks.get(app)?.refreshPass(seconds);
}

export function observeSearch(app: App, seconds: number): void {
  sinks.get(app)?.search(seconds);
}

/** Registers a queue whose depth is read at each scrape. */
export function reportQueueDepth(app: App, queue: string, probe: QueueProbe): void {
  let byName = probes.get(app);
  if (!byName) probes.set(app, (byName = new Map()));
  byName.set(queue, probe);
}

export function queueProbes(app: App): ReadonlyMap<string, QueueProbe> {
  return probes.get(app) ?? new Map();
}

/**
 * Registers a part of the server's memory for /metrics (tidings_memory_bytes{part}), so the
 * process's RSS can be accounted for: what V8's own metrics do not show (worker threads' heaps,
 * caches of Buffers and typed arrays).
 */
export function reportMemoryUse(app: App, part: string, probe: MemoryProbe): void {
  let byName = memoryProbes.get(app);
  if (!byName) memoryProbes.set(app, (byName = new Map()));
  byName.set(part, probe);
}

export function memoryUseProbes(app: App): ReadonlyMap<string, MemoryProbe> {
  return memoryProbes.get(app) ?? new Map();
}

/** One answer's latency (to its last event) and outcome; answer/timed-answers.ts reports each. */
export function observeAnswer(
  app: App,
  model: string,
  mode: 'complete' | 'stream',
  outcome: string,
  seconds: number,
): void {
  sinks.get(app)?.answer(model, mode, outcome, seconds);
}
