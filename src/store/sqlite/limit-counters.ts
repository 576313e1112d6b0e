// Limit counters in the SQLite file, shared by every process that opens it (`tidings serve
// --workers N`). Each method is one statement (or one IMMEDIATE transaction), so it holds SQLite's
// write lock from its first read to its last write: no other process can slip in between. A
// process that finds the lock taken waits (busy_timeout) instead of failing.
import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { BucketPour, LimitCounters } from '../repositories.ts';
import type { SqliteChangeSignal } from './change-signal.ts';

const IDLE_BUCKET_MS = 3600_000;

export class SqliteLimitCounters implements LimitCounters {
  readonly kind = 'database' as const;
  private readonly s: StatementCache;
  private readonly db: Db;
  /** Every write here leaves the change signal put (SqliteChangeSignal.quietWrite): no cache reads these tables. */
  private readonly quiet: <T>(write: () => T) => T;
  constructor(db: Db, changes?: SqliteChangeSignal) {
    this.db = db;
    this.s = new StatementCache(db);
    this.quiet = changes ? (write) => changes.quietWrite(write) : (write) => write();
  }

  async pour(key: string, capacity: number, drainPerMs: number, nowMs: number): Promise<BucketPour> {
    // The SET expressions all read the row as it was (SQL semantics), so `drained` is computed
    // from the old level and time in each of them.
    const drained = 'max(0, level - max(0, :now - updated_ms) * :drain)';
    const pour = this.s.get(
      `INSERT INTO limit_buckets (key, level, updated_ms, allowed)
         VALUES (:key, CASE WHEN 1 <= :cap + 1e-9 THEN 1 ELSE 0 END, :now, 1 <= :cap + 1e-9)
         ON CONFLICT (key) DO UPDATE SET
           level = ${drained} + CASE WHEN ${drained} + 1 <= :cap + 1e-9 THEN 1 ELSE 0 END,
           allowed = ${drained} + 1 <= :cap + 1e-9,
           updated_ms = max(updated_ms, :now)
         RETURNING level, allowed`,
    );
    const r = this.quiet(() => pour.get({ key, cap: capacity, now: nowMs, drain: drainPerMs })) as {
      level: number;
      allowed: number;
    };
    return { allowed: r.allowed === 1, level: r.level };
  }

  async addEvent(keys: readonly { key: string; keepMs: number }[], atMs: number): Promise<void> {
    const insert = this.s.get('INSERT INTO limit_events (key, at_ms, expires_ms) VALUES (?, ?, ?)');
    this.quiet(() =>
      transaction(this.db, () => {
        for (const { key, keepMs } of keys) insert.run(key, atMs, atMs + keepMs);
      }),
    );
  }

  async newestEvents(key: string, sinceMs: number, max: number): Promise<number[]> {
    const rows = this.s
      .get('SELECT at_ms FROM limit_events WHERE key = ? AND at_ms > ? ORDER BY at_ms DESC LIMIT ?')
      .all(key, sinceMs, max) as { at_ms: number }[];
    return rows.map((r) => r.at_ms);
  }

  async clearEvents(key: string): Promise<void> {
    const clear = this.s.get('DELETE FROM limit_events WHERE key = ?');
    this.quiet(() => clear.run(key));
  }

  async setMark(key: string, atMs: number, keepMs: number): Promise<void> {
    const mark = this.s.get(
      `INSERT INTO limit_marks (key, at_ms, expires_ms) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET at_ms = excluded.at_ms, expires_ms = excluded.expires_ms`,
    );
    this.quiet(() => mark.run(key, atMs, atMs + keepMs));
  }

  async markOf(key: string, nowMs: number): Promise<number | undefined> {
    const r = this.s.get('SELECT at_ms FROM limit_marks WHERE key = ? AND expires_ms > ?').get(key, nowMs) as
      | { at_ms: number }
      | undefined;
    return r?.at_ms;
  }

  async takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean> {
    return this.quiet(() =>
      transaction(this.db, () => {
        this.s.get('DELETE FROM limit_slots WHERE key = ? AND expires_ms <= ?').run(key, nowMs);
        const r = this.s
          .get(
            `INSERT INTO limit_slots (key, token, expires_ms)
           SELECT ?1, ?2, ?3 WHERE (SELECT count(*) FROM limit_slots WHERE key = ?1) < ?4`,
          )
          .run(key, token, expiresMs, max);
        return Number(r.changes) === 1;
      }),
    );
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    const release = this.s.get('DELETE FROM limit_slots WHERE key = ? AND token = ?');
    this.quiet(() => release.run(key, token));
  }

  async prune(nowMs: number): Promise<void> {
    this.quiet(() =>
      transaction(this.db, () => {
        this.s.get('DELETE FROM limit_buckets WHERE updated_ms < ?').run(nowMs - IDLE_BUCKET_MS);
        this.s.get('DELETE FROM limit_events WHERE expires_ms <= ?').run(nowMs);
        this.s.get('DELETE FROM limit_marks WHERE expires_ms <= ?').run(nowMs);
        this.s.get('DELETE FROM limit_slots WHERE expires_ms <= ?').run(nowMs);
      }),
    );
  }

  /** Readiness pings the store itself. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
