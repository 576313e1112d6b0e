// Feed refresh claims on PostgreSQL (see RefreshClaimRepository). Claimers take turns on a
// transaction-scoped advisory lock, so two processes cannot both count a host's claims and both
// take its last free places; rows another transaction has locked (a feed being stored) are skipped,
// not waited on.
import type { PgDatabase } from './client.ts';
import type { RefreshClaimRepository } from '../repositories.ts';
import type { FeedRecord } from '../../model/feed-record.ts';
import { type FeedRow, toFeed } from '../rows/feeds.ts';

/** Key of the transaction-scoped advisory lock held while claiming feeds. */
const CLAIM_LOCK = 0x7469_6663; // 'tifc'

const BIG = Number.MAX_SAFE_INTEGER;

/** Waits that ran out this long ago are deleted by the next claim. */
const WAIT_SWEEP_MS = 60_000;

/** The database's clock in ms since the epoch (the same all through a statement), as DB_NOW_MS in ../sql.ts. */
const NOW_MS = 'CAST(extract(epoch FROM statement_timestamp()) * 1000 AS bigint)';

export class PgRefreshClaimRepository implements RefreshClaimRepository {
  private readonly db: PgDatabase;
  /** Owners that waited for a host through this repository (one process): others have no rows to delete. */
  private readonly waiting = new Set<string>();
  constructor(db: PgDatabase) {
    this.db = db;
  }

  async claimListed(
    ids: readonly number[],
    owner: string,
    o: { dueBy: number; leaseMs: number; perHost: number; hostWaitMs: number },
  ): Promise<{ claimed: FeedRecord[]; held: number[]; hostFull: number[] }> {
    if (!ids.length) return { claimed: [], held: [], hostFull: [] };
    const dueBy = Number.isFinite(o.dueBy) ? o.dueBy : BIG;
    return this.db.transaction(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
      // The n-th candidate of a host is taken when the host's live claims plus n stay within the
      // limit, counting as taken the places of the processes that have waited for the host longer
      // than this owner (all waiting ones when this owner does not wait): a place that comes free
      // goes to the longest waiting process, not back to the one whose fetch just ended there
      // (waits begun in the same millisecond go by owner).
      const claimed = (
        await this.db.rows<FeedRow>(
          `WITH candidates AS (
            SELECT f.id, f.fetch_host, row_number() OVER (PARTITION BY f.fetch_host ORDER BY f.next_fetch_at, f.id) AS n
            FROM feeds f
            WHERE f.id = ANY($1::bigint[]) AND f.next_fetch_at <= $2
              AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)
              AND (f.refresh_claimed_until IS NULL OR f.refresh_claimed_until < ${NOW_MS})),
          picked AS (
            SELECT f.id FROM feeds f JOIN candidates c ON c.id = f.id
            WHERE c.n + (SELECT count(*) FROM feeds g WHERE g.fetch_host = c.fetch_host
                           AND g.refresh_claimed_until >= ${NOW_MS} AND g.refresh_fetch_done IS NULL)
                      + (SELECT count(*) FROM refresh_host_waits w WHERE w.fetch_host = c.fetch_host
                           AND w.until_ms >= ${NOW_MS} AND w.owner <> $3
                           AND (w.since_ms, w.owner) < (coalesce((SELECT m.since_ms FROM refresh_host_waits m
                             WHERE m.fetch_host = c.fetch_host AND m.owner = $3 AND m.until_ms >= ${NOW_MS}), ${BIG}), $3)) <= $5
            FOR UPDATE OF f SKIP LOCKED)
          UPDATE feeds SET refresh_claimed_by = $3, refresh_claimed_until = ${NOW_MS} + $4::bigint, refresh_fetch_done = NULL
          FROM picked
          WHERE feeds.id = picked.id RETURNING feeds.*`,
          [ids, dueBy, owner, o.leaseMs, o.perHost],
        )
      ).map(toFeed);
      const rows = await this.db.rows<{ id: number; live: boolean | null }>(
        `SELECT f.id, f.refresh_claimed_until >= ${NOW_MS} AS live FROM feeds f
          WHERE f.id = ANY($1::bigint[]) AND f.next_fetch_at <= $2
            AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)
            AND f.refresh_claimed_by IS DISTINCT FROM $3`,
        [ids, dueBy, owner],
      );
      const hostFull = rows.filter((r) => !r.live).map((r) => Number(r.id));
      // Waiting for the hosts it was refused (the holders then keep to their share), no longer for
      // those it got a place on. Only an owner that has waited costs these statements.
      if (this.waiting.has(owner) && claimed.length)
        await this.db.query(
          `DELETE FROM refresh_host_waits WHERE owner = $1
            AND fetch_host IN (SELECT fetch_host FROM feeds WHERE id = ANY($2::bigint[]))`,
          [owner, claimed.map((f) => f.id)],
        );
      if (hostFull.length) {
        this.waiting.add(owner);
        // Rows of processes that ended without endWaits (killed) go once they ran out a while ago.
        await this.db.query(`DELETE FROM refresh_host_waits WHERE until_ms < ${NOW_MS} - ${WAIT_SWEEP_MS}`);
        await this.db.query(
          `INSERT INTO refresh_host_waits (fetch_host, owner, since_ms, until_ms)
            SELECT DISTINCT f.fetch_host, $1, ${NOW_MS}, ${NOW_MS} + $2::bigint FROM feeds f
            WHERE f.id = ANY($3::bigint[]) AND f.fetch_host IS NOT NULL
          ON CONFLICT (fetch_host, owner) DO UPDATE SET until_ms = excluded.until_ms,
            since_ms = CASE WHEN refresh_host_waits.until_ms < excluded.since_ms THEN excluded.since_ms
                            ELSE refresh_host_waits.since_ms END`,
          [owner, o.hostWaitMs, hostFull],
        );
      }
      return { claimed, held: rows.map((r) => Number(r.id)), hostFull };
    });
  }

  async endWaits(owner: string): Promise<void> {
    if (!this.waiting.delete(owner)) return;
    await this.db.query('DELETE FROM refresh_host_waits WHERE owner = $1', [owner]);
  }

  async claimOne(id: number, owner: string, leaseMs: number): Promise<FeedRecord | undefined> {
    const r = await this.db.row<FeedRow>(
      `UPDATE feeds SET refresh_claimed_by = $1, refresh_claimed_until = ${NOW_MS} + $2::bigint, refresh_fetch_done = NULL
      WHERE id = $3 AND (refresh_claimed_until IS NULL OR refresh_claimed_until < ${NOW_MS}) RETURNING *`,
      [owner, leaseMs, id],
    );
    return r && toFeed(r);
  }

  async fetchDone(id: number, owner: string): Promise<void> {
    await this.db.query('UPDATE feeds SET refresh_fetch_done = 1 WHERE id = $1 AND refresh_claimed_by = $2', [
      id,
      owner,
    ]);
  }

  renew(owner: string, leaseMs: number): Promise<number> {
    return this.db.changes(
      `UPDATE feeds SET refresh_claimed_until = ${NOW_MS} + $1::bigint WHERE refresh_claimed_by = $2`,
      [leaseMs, owner],
    );
  }

  async release(ids: readonly number[], owner: string): Promise<void> {
    if (!ids.length) return;
    await this.db.query(
      `UPDATE feeds SET refresh_claimed_by = NULL, refresh_claimed_until = NULL
      WHERE id = ANY($1::bigint[]) AND refresh_claimed_by = $2`,
      [ids, owner],
    );
  }

  async isClaimed(id: number): Promise<boolean> {
    return Boolean(await this.db.row(`SELECT 1 FROM feeds WHERE id = $1 AND refresh_claimed_until >= ${NOW_MS}`, [id]));
  }
}
