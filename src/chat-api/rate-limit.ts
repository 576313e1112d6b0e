// Rate limits per key and model as leaky buckets: each request pours one unit in, the bucket
// drains continuously at limit/60 units per second, and a request that would overflow the
// capacity (= the per-minute limit) is refused. So a key may burst up to its limit at once and
// then sustain limit/minute. The buckets live where app.limits counts (src/store/limit-counters.ts):
// this process's memory for a single SQLite server, else the database or Redis, so that every
// worker and machine pours into the same bucket and 50 per minute means 50 in total.
import type { LimitCounters } from '../store/repositories.ts';
import type { RateFamily } from './models.ts';

/** Requests per minute by tier 0-5 (the vendor's defaults, see the spec). */
export const DEFAULT_RATE_LIMITS: Record<RateFamily, number[]> = {
  sonar: [50, 150, 500, 1000, 4000, 4000],
  'deep-research': [5, 10, 20, 40, 60, 100],
};

export function rateLimitTable(overrides: Record<string, any> = {}): Record<RateFamily, number[]> {
  const t = structuredClone(DEFAULT_RATE_LIMITS);
  for (const [family, limits] of Object.entries(overrides)) {
    if (!(family in t))
      throw new Error(`rateLimits: unknown family "${family}" (families: ${Object.keys(t).join(', ')})`);
    if (!Array.isArray(limits) || limits.length !== 6 || !limits.every((n) => Number.isInteger(n) && n > 0)) {
      throw new Error(`rateLimits.${family} must be 6 positive integers (tiers 0-5), got ${JSON.stringify(limits)}`);
    }
    t[family as RateFamily] = limits;
  }
  return t;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is empty again (x-ratelimit-reset-requests). */
  resetSeconds: number;
  /** Seconds until one more request fits (Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
}

export class LeakyBucketLimiter {
  private readonly counters: LimitCounters;
  private readonly now: () => number;
  /** `now` in epoch milliseconds (the counters may be shared with other processes). */
  constructor(counters: LimitCounters, now: () => number = Date.now) {
    this.counters = counters;
    this.now = now;
  }

  /** Takes one unit from the bucket `key` with capacity `limit` per minute. */
  async take(key: string, limit: number): Promise<RateDecision> {
    const drainPerMs = limit / 60_000;
    const { allowed, level } = await this.counters.pour(key, limit, drainPerMs, this.now());
    const rate = limit / 60;
    return {
      allowed,
      limit,
      remaining: Math.max(0, Math.floor(limit - level + 1e-9)),
      resetSeconds: level / rate,
      retryAfterSeconds: allowed ? 0 : (level + 1 - limit) / rate,
    };
  }
}

/** OpenAI-style duration for x-ratelimit-reset-requests: "0s", "1.2s", "6m0s". */
export function formatReset(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${Math.round(seconds - m * 60)}s`;
}
