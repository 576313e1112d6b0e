// Limit counters in this process's memory: the fast path of a single server process (SQLite,
// `--workers 1`), where nobody else needs to see the counts. Maps are bounded: the least recently
// used keys leave first past MAX_KEYS, so a flood of addresses cannot grow the heap without end.
import type { BucketPour, LimitCounters } from '../repositories.ts';

const MAX_KEYS = 50_000;
/** Events kept per key: the throttles look at the newest few dozen at most. */
const MAX_EVENTS_PER_KEY = 1000;
/** A bucket untouched this long has drained (limits are per minute) and is dropped. */
const IDLE_BUCKET_MS = 3600_000;

interface Bucket {
  level: number;
  at: number;
}
interface Events {
  times: number[];
  keepMs: number;
}

export class MemoryLimitCounters implements LimitCounters {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<string, Bucket>();
  private readonly events = new Map<string, Events>();
  private readonly marks = new Map<string, { at: number; expires: number }>();
  private readonly slots = new Map<string, Map<string, number>>();
  private lastSweep = 0;

  pour(key: string, capacity: number, drainPerMs: number, nowMs: number): Promise<BucketPour> {
    let b = this.buckets.get(key);
    if (!b) {
      b = { level: 0, at: nowMs };
      this.buckets.set(key, b);
    }
    b.level = Math.max(0, b.level - Math.max(0, nowMs - b.at) * drainPerMs);
    b.at = Math.max(b.at, nowMs);
    const allowed = b.level + 1 <= capacity + 1e-9;
    if (allowed) b.level += 1;
    if (nowMs - this.lastSweep > 60_000) this.sweep(nowMs);
    return Promise.resolve({ allowed, level: b.level });
  }

  addEvent(keys: readonly { key: string; keepMs: number }[], atMs: number): Promise<void> {
    for (const { key, keepMs } of keys) {
      const e = this.events.get(key) ?? { times: [], keepMs };
      e.keepMs = Math.max(e.keepMs, keepMs);
      while (e.times.length && e.times[0]! <= atMs - e.keepMs) e.times.shift();
      e.times.push(atMs);
      if (e.times.length > MAX_EVENTS_PER_KEY) e.times.splice(0, e.times.length - MAX_EVENTS_PER_KEY);
      this.events.delete(key); // re-insert: Map order = least recently used first
      this.events.set(key, e);
      bound(this.events);
    }
    return Promise.resolve();
  }

  newestEvents(key: string, sinceMs: number, max: number): Promise<number[]> {
    const e = this.events.get(key);
    const out: number[] = [];
    if (e)
      for (let i = e.times.length - 1; i >= 0 && out.length < max && e.times[i]! > sinceMs; i--) out.push(e.times[i]!);
    return Promise.resolve(out);
  }

  clearEvents(key: string): Promise<void> {
    this.events.delete(key);
    return Promise.resolve();
  }

  setMark(key: string, atMs: number, keepMs: number): Promise<void> {
    this.marks.delete(key);
    this.marks.set(key, { at: atMs, expires: atMs + keepMs });
    bound(this.marks);
    return Promise.resolve();
  }

  markOf(key: string, nowMs: number): Promise<number | undefined> {
    const m = this.marks.get(key);
    return Promise.resolve(m && m.expires > nowMs ? m.at : undefined);
  }

  takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean> {
    const held = this.slots.get(key) ?? new Map<string, number>();
    for (const [t, expires] of held) if (expires <= nowMs) held.delete(t);
    if (held.size >= max) return Promise.resolve(false);
    held.set(token, expiresMs);
    this.slots.set(key, held);
    return Promise.resolve(true);
  }

  releaseSlot(key: string, token: string): Promise<void> {
    const held = this.slots.get(key);
    held?.delete(token);
    if (held && held.size === 0) this.slots.delete(key);
    return Promise.resolve();
  }

  prune(nowMs: number): Promise<void> {
    this.sweep(nowMs);
    for (const [k, e] of this.events)
      if (!e.times.length || e.times[e.times.length - 1]! <= nowMs - e.keepMs) this.events.delete(k);
    for (const [k, m] of this.marks) if (m.expires <= nowMs) this.marks.delete(k);
    return Promise.resolve();
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private sweep(nowMs: number): void {
    this.lastSweep = nowMs;
    for (const [k, b] of this.buckets) if (nowMs - b.at > IDLE_BUCKET_MS) this.buckets.delete(k);
  }
}

function bound(map: Map<string, unknown>): void {
  if (map.size > MAX_KEYS) map.delete(map.keys().next().value!);
}
