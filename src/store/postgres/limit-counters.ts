// Limit counters in PostgreSQL, shared by every process and machine on the database. A bucket is
// one INSERT … ON CONFLICT DO UPDATE: the row lock makes concurrent pours take turns, and each
// recomputes from the row as the previous one left it (READ COMMITTED re-reads the locked row),
// so 50 per minute stays 50 in total. A slot is taken under a transaction-scoped advisory lock
// on its key (counting and inserting is not atomic on its own).
import type { PgDatabase } from './client.ts';
import type { BucketPour, LimitCounters } from '../repositories.ts';

const IDLE_BUCKET_MS = 3600_000;
const DRAINED =
  'greatest(0, limit_buckets.level - greatest(0, $3::bigint - limit_buckets.updated_ms) * $4::double precision)';

export class PgLimitCounters implements LimitCounters {
  readonly kind = 'database' as const;
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  async pour(key: string, capacity: number, drainPerMs: number, nowMs: number): Promise<BucketPour> {
    const r = await this.db.row<{ level: number; allowed: boolean }>(
      `INSERT INTO limit_buckets AS limit_buckets (key, level, updated_ms, allowed)
       VALUES ($1, CASE WHEN 1 <= $2::double precision + 1e-9 THEN 1 ELSE 0 END, $3::bigint, 1 <= $2::double precision + 1e-9)
       ON CONFLICT (key) DO UPDATE SET
         level = ${DRAINED} + CASE WHEN ${DRAINED} + 1 <= $2::double precision + 1e-9 THEN 1 ELSE 0 END,
         allowed = ${DRAINED} + 1 <= $2::double precision + 1e-9,
         updated_ms = greatest(limit_buckets.updated_ms, $3::bigint)
       RETURNING level, allowed`,
      [key, capacity, Math.round(nowMs), drainPerMs],
    );
    return { allowed: r!.allowed, level: r!.level };
  }

  async addEvent(keys: readonly { key: string; keepMs: number }[], atMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO limit_events (key, at_ms, expires_ms)
       SELECT k, $2::bigint, $2::bigint + keep FROM unnest($1::text[], $3::bigint[]) AS t(k, keep)`,
      [keys.map((k) => k.key), Math.round(atMs), keys.map((k) => Math.round(k.keepMs))],
    );
  }

  async newestEvents(key: string, sinceMs: number, max: number): Promise<number[]> {
    const rows = await this.db.rows<{ at_ms: number }>(
      'SELECT at_ms FROM limit_events WHERE key = $1 AND at_ms > $2 ORDER BY at_ms DESC LIMIT $3',
      [key, Math.round(sinceMs), max],
    );
    return rows.map((r) => r.at_ms);
  }

  async clearEvents(key: string): Promise<void> {
    await this.db.query('DELETE FROM limit_events WHERE key = $1', [key]);
  }

  async setMark(key: string, atMs: number, keepMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO limit_marks (key, at_ms, expires_ms) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET at_ms = excluded.at_ms, expires_ms = excluded.expires_ms`,
      [key, Math.round(atMs), Math.round(atMs + keepMs)],
    );
  }

  async markOf(key: string, nowMs: number): Promise<number | undefined> {
    const r = await this.db.row<{ at_ms: number }>('SELECT at_ms FROM limit_marks WHERE key = $1 AND expires_ms > $2', [
      key,
      Math.round(nowMs),
    ]);
    return r?.at_ms;
  }

  async takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean> {
    return this.db.transaction(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`limit_slots:${key}`]);
      await this.db.query('DELETE FROM limit_slots WHERE key = $1 AND expires_ms <= $2', [key, Math.round(nowMs)]);
      const n = await this.db.changes(
        `INSERT INTO limit_slots (key, token, expires_ms)
         SELECT $1, $2, $3 WHERE (SELECT count(*) FROM limit_slots WHERE key = $1) < $4`,
        [key, token, Math.round(expiresMs), max],
      );
      return n === 1;
    });
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    await this.db.query('DELETE FROM limit_slots WHERE key = $1 AND token = $2', [key, token]);
  }

  async prune(nowMs: number): Promise<void> {
    const now = Math.round(nowMs);
    await this.db.query('DELETE FROM limit_buckets WHERE updated_ms < $1', [now - IDLE_BUCKET_MS]);
    await this.db.query('DELETE FROM limit_events WHERE expires_ms <= $1', [now]);
    await this.db.query('DELETE FROM limit_marks WHERE expires_ms <= $1', [now]);
    await this.db.query('DELETE FROM limit_slots WHERE expires_ms <= $1', [now]);
  }

  /** Readiness pings the store itself. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
