// How long the main thread is held, measured by a timer's lateness, without waking an idle server
// ten times a second. A hold needs JavaScript to run, and an idle server runs none: the watch
// ticks every BUSY_TICK_MS while the loop does work, slows to IDLE_TICK_MS once it has seen a
// second of nothing but its own ticks (event-loop utilization, read from libuv without a timer),
// and is back to BUSY_TICK_MS at the first slow tick that finds work done since the last, or at
// once when a request arrives (`busy()`, the HTTP server's onRequest hook): a request doing CPU
// work on untrusted input, the freeze of issue 25, is watched at full resolution from its start.
// Before this, prom-client's monitorEventLoopDelay and a 100 ms interval both ticked at all times
// (10-15 wake-ups a second of an idle serve; BENCHMARKS.md, "The idle server's wake-ups").
import { createHistogram, performance, type EventLoopUtilization, type RecordableHistogram } from 'node:perf_hooks';

export const BUSY_TICK_MS = 100;
export const IDLE_TICK_MS = 1000;
/** Quiet busy ticks in a row (a second of them) before the watch slows down. */
const QUIET_TICKS = Math.round(IDLE_TICK_MS / BUSY_TICK_MS);
/**
 * A tick counts as quiet when the loop was active no more than this share of it, or QUIET_FLOOR_MS:
 * the tick's own run takes a few hundred microseconds, but on a loaded machine the thread can be
 * preempted inside it for a scheduler slice (a few ms), which counts as active time.
 */
const QUIET_SHARE = 0.02;
const QUIET_FLOOR_MS = 5;

export interface EventLoopWatch {
  /** Work arrived (a request): tick at BUSY_TICK_MS from now on, until the loop is quiet again. */
  busy(): void;
  /** Lateness samples (ns, at least 1) since the last call, which starts a new set. */
  takeSamples(): RecordableHistogram;
  /** The period the watch ticks at now, ms: BUSY_TICK_MS or IDLE_TICK_MS. */
  readonly periodMs: number;
  stop(): void;
}

/** Starts the watch; `observe` gets each tick's lateness in seconds (0 when on time). */
export function watchEventLoop(observe: (lateS: number) => void): EventLoopWatch {
  let period = BUSY_TICK_MS;
  let due = 0;
  let timer: NodeJS.Timeout | undefined;
  let quiet = 0;
  let elu: EventLoopUtilization = performance.eventLoopUtilization();
  let samples = createHistogram();
  let stopped = false;

  const schedule = (ms: number) => {
    period = ms;
    due = performance.now() + ms;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    const now = performance.now();
    const late = Math.max(0, now - due);
    observe(late / 1000);
    samples.record(Math.max(1, Math.round(late * 1e6)));
    const current = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(current, elu);
    elu = current;
    const elapsed = since.active + since.idle;
    const worked = since.active > Math.max(QUIET_FLOOR_MS, elapsed * QUIET_SHARE);
    if (worked) quiet = 0;
    else quiet++;
    schedule(worked || (period === BUSY_TICK_MS && quiet < QUIET_TICKS) ? BUSY_TICK_MS : IDLE_TICK_MS);
  };
  schedule(BUSY_TICK_MS);

  return {
    busy() {
      quiet = 0;
      if (stopped || period === BUSY_TICK_MS) return;
      // The slow tick's lateness so far is not a hold (nothing ran): start a busy period from now.
      clearTimeout(timer);
      elu = performance.eventLoopUtilization();
      schedule(BUSY_TICK_MS);
    },
    takeSamples() {
      const taken = samples;
      samples = createHistogram();
      return taken;
    },
    get periodMs() {
      return period;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
