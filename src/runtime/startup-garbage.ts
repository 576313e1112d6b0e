// A server that has just started holds its start-up garbage: loading and compiling some 700
// modules grows V8's young generation to its cap (16 MB with the --max-semi-space-size=8 that
// `tidings serve` runs with, scripts/process-setup.js) and leaves the old generation padded.
// V8's own memory reducer gives it back only after ~20 s without allocation; an operator looking
// at a server that has just started sees ~17 MB more than it needs (BENCHMARKS.md, Memory).
// One memory-reducing full GC once start-up is over does the same thing at once (~20-60 ms).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor?: 'last-resort' }) => void;

let gc: GcFunction | undefined;

/**
 * Collects the garbage of start-up and shrinks the heap, as V8's memory reducer would when idle.
 * Call once, when the process is listening. The `gc` function is taken from a new context, so it
 * is not exposed to the code of this one (no global `gc` for libraries to find).
 */
export function collectStartupGarbage(): void {
  try {
    // 'last-resort' is V8's memory-reducing collection: it also shrinks the young generation.
    gcFunction()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    /* a runtime without V8's gc extension: the memory reducer does it later */
  }
}

/**
 * One ordinary full collection now (no code flushing; the young generation is left as it is).
 * `tidings refresh` calls it every 100 feeds (feeds/refresh.ts): V8 put off its full collections
 * until the main heap held 50-110 MB, most of it garbage, with the fetched bodies that garbage
 * still referenced (outside the heap). Measured in a `tidings refresh` of 1,000 feeds: 30-60 MB
 * lower peak, no longer wall time. Not in the server's scheduler: there the same collections
 * (sync or async, every 100 or 250 feeds) made a 1,000-feed first refresh take 2-3.5 times as
 * long: the main thread then spent 81 s in V8's collector against 4.7 s (a CPU profile), it
 * seems because the server's memory-reducing start-up collection above leaves V8 in a state each
 * forced collection renews (BENCHMARKS.md, Memory).
 */
export function collectGarbage(): void {
  try {
    gcFunction()({ type: 'major', execution: 'sync' });
  } catch {
    /* a runtime without V8's gc extension: V8 collects on its own schedule */
  }
}

function gcFunction(): GcFunction {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as GcFunction;
    // Only that one context: worker threads and contexts made later get no `gc`.
    setFlagsFromString('--no-expose-gc');
  }
  return gc;
}

/** The heap growing factor while a large pass runs (withCompactHeap): the old generation may grow to 1.3x what is live. */
const COMPACT_HEAP_GROWING_PERCENT = 30;

/**
 * The process's own `--heap-growing-percent` (the last one in NODE_OPTIONS, then on its command
 * line, where the server's comes from scripts/process-setup.js), which withCompactHeap restores;
 * 0 is V8's own heuristics.
 */
export function startingHeapGrowingPercent(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): number {
  let percent = 0;
  for (const arg of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const m = /^--heap[-_]growing[-_]percent=(\d+)$/.exec(arg);
    if (m) percent = Number(m[1]);
  }
  return percent;
}
let compactDepth = 0;

/**
 * Runs fn with V8's old generation kept near what is live (`--heap-growing-percent`, a
 * process-wide V8 setting, so the parse workers' heaps too), then back to V8's own heuristics.
 * Left to them, a server's 1,000-feed first refresh grew the main heap to 132 MB committed for
 * 49-63 MB in use and peaked at 413-444 MB RSS; kept near what is live, 290-303 MB in the same
 * 15-16 s. Not for serving: with it, a 1,000-item Reader page cost 1.3-2x the CPU in collections
 * (BENCHMARKS.md, Memory). Nested calls join the outermost; the last restores the process's own
 * setting (the server's 50, scripts/process-setup.js).
 */
export async function withCompactHeap<T>(fn: () => Promise<T>): Promise<T> {
  if (compactDepth++ === 0) setFlagsFromString(`--heap-growing-percent=${COMPACT_HEAP_GROWING_PERCENT}`);
  try {
    return await fn();
  } finally {
    if (--compactDepth === 0) setFlagsFromString(`--heap-growing-percent=${startingHeapGrowingPercent()}`);
  }
}

/** Whether a withCompactHeap call is running (tests). */
export function heapKeptCompact(): boolean {
  return compactDepth > 0;
}
