// Rate limits per key and model as leaky buckets: each request pours one unit in, the bucket
// drains continuously at limit/60 units per second, and a request that would overflow the
// capacity (= the per-minute limit) is refused. So a key may burst up to its limit at once and
// then sustain limit/minute. State is per process (a Map); a cluster of servers would keep the
// buckets in Redis or PostgreSQL instead.
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

interface Bucket {
  level: number;
  at: number;
}

export class LeakyBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private lastSweep = 0;
  constructor(now: () => number = () => performance.now() / 1000) {
    this.now = now;
  }

  /** Takes one unit from the bucket `key` with capacity `limit` per minute. */
  take(key: string, limit: number): RateDecision {
    const t = this.now();
    const rate = limit / 60;
    let b = this.buckets.get(key);
    if (!b) {
      b = { level: 0, at: t };
      this.buckets.set(key, b);
    }
    b.level = Math.max(0, b.level - (t - b.at) * rate);
    b.at = t;
    const allowed = b.level + 1 <= limit + 1e-9;
    if (allowed) b.level += 1;
    if (t - this.lastSweep > 60) this.sweep(t);
    return {
      allowed,
      limit,
      remaining: Math.max(0, Math.floor(limit - b.level + 1e-9)),
      resetSeconds: b.level / rate,
      retryAfterSeconds: allowed ? 0 : (b.level + 1 - limit) / rate,
    };
  }

  /** Drops buckets that have drained (keeps the map from growing with idle keys). */
  private sweep(t: number): void {
    this.lastSweep = t;
    for (const [k, b] of this.buckets) if (t - b.at > 60 * 60) this.buckets.delete(k);
  }
}

/** OpenAI-style duration for x-ratelimit-reset-requests: "0s", "1.2s", "6m0s". */
export function formatReset(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${Math.round(seconds - m * 60)}s`;
}
