// When to fetch a feed next. Pure functions of the feed's history and the server's hints, so the
// policy is testable without clocks or servers.
//
// Success: the interval follows the feed's posting frequency (the median gap between its recent
// posts, or half the age of its newest post when that is longer, so a dormant feed slows down),
// clamped to [min, max]; RSS <ttl> and Cache-Control max-age can only raise it.
// Failure: exponential back-off from the minimum (min, 2·min, 4·min …) with ±25 % jitter so
// feeds that failed together do not retry together, capped at the maximum: a failing feed is
// retried at least daily, never abandoned. Retry-After (429/503) raises either.

export interface IntervalPolicy {
  minIntervalMinutes: number;
  maxIntervalMinutes: number;
}

/** Interval when a feed has fewer than two dated posts. */
const DEFAULT_INTERVAL_S = 3600;
const SAMPLE = 20;

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** Posting-frequency interval in seconds, from publication times (any order), unclamped. */
export function postingIntervalSeconds(publishTimes: number[], now: number): number {
  const times = [...publishTimes].sort((a, b) => b - a).slice(0, SAMPLE);
  if (times.length < 2) return DEFAULT_INTERVAL_S;
  const gaps = times
    .slice(1)
    .map((t, i) => times[i]! - t)
    .sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  const median = gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2;
  const sinceNewest = Math.max(0, now - times[0]!);
  return Math.max(median, sinceNewest / 2);
}

export interface SuccessHints {
  now: number;
  publishTimes: number[];
  ttlMinutes?: number | null;
  maxAgeSeconds?: number | null;
  random?: () => number;
}

export function scheduleAfterSuccess(
  p: IntervalPolicy,
  h: SuccessHints,
): { intervalSeconds: number; nextFetchAt: number } {
  const min = p.minIntervalMinutes * 60,
    max = p.maxIntervalMinutes * 60;
  const random = h.random ?? Math.random;
  let interval = clamp(postingIntervalSeconds(h.publishTimes, h.now), min, max);
  interval = Math.max(interval, (h.ttlMinutes ?? 0) * 60, h.maxAgeSeconds ?? 0);
  // ±10 % spreads feeds added together (an OPML import) over time.
  interval = Math.round(clamp(interval * (0.9 + 0.2 * random()), min, max));
  return { intervalSeconds: interval, nextFetchAt: h.now + interval };
}

export interface FailureHints {
  now: number;
  /** Consecutive failures including this one (1 for the first). */
  errorCount: number;
  retryAfterSeconds?: number | null;
  random?: () => number;
}

export function scheduleAfterFailure(
  p: IntervalPolicy,
  h: FailureHints,
): { intervalSeconds: number; nextFetchAt: number } {
  const min = p.minIntervalMinutes * 60,
    max = p.maxIntervalMinutes * 60;
  const random = h.random ?? Math.random;
  const exp = Math.min(30, Math.max(0, h.errorCount - 1));
  let interval = Math.min(max, min * 2 ** exp) * (0.75 + 0.5 * random());
  interval = Math.max(interval, h.retryAfterSeconds ?? 0);
  interval = Math.round(Math.min(max, interval));
  return { intervalSeconds: interval, nextFetchAt: h.now + interval };
}
