// Feed refresh claims on SQLite (see RefreshClaimRepository). Each claim is one write transaction
// (BEGIN IMMEDIATE): another process's claim waits for the write lock, then sees these claims.
import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { RefreshClaimRepository } from '../repositories.ts';
import { DB_NOW_MS } from '../sql.ts';
import type { FeedRecord } from '../../model/feed-record.ts';
import { type FeedRow, toFeed } from '../rows/feeds.ts';

const LISTED_DUE = `FROM feeds f JOIN json_each(?) j ON f.id = j.value
  WHERE f.next_fetch_at <= ? AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)`;
/** LISTED_DUE with numbered parameters (?3 the ids, ?4 dueBy), for a statement that numbers them all. */
const LISTED_DUE_34 = LISTED_DUE.replace('json_each(?)', 'json_each(?3)').replace('<= ?', '<= ?4');

/** Waits that ran out this long ago are deleted by the next claim. */
const WAIT_SWEEP_MS = 60_000;

export class SqliteRefreshClaimRepository implements RefreshClaimRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  /** Owners that waited for a host through this repository (one process): others have no rows to delete. */
  private readonly waiting = new Set<string>();
  constructor(db: Db) {
    this.db = db;
    this.s = new StatementCache(db);
  }

  async claimListed(
    ids: readonly number[],
    owner: string,
    o: { dueBy: number; leaseMs: number; perHost: number; hostWaitMs: number },
  ): Promise<{ claimed: FeedRecord[]; held: number[]; hostFull: number[] }> {
    if (!ids.length) return { claimed: [], held: [], hostFull: [] };
    const list = JSON.stringify(ids);
    const dueBy = Number.isFinite(o.dueBy) ? o.dueBy : Number.MAX_SAFE_INTEGER;
    return transaction(this.db, () => {
      // The n-th candidate of a host is taken when the host's live claims plus n stay within the
      // limit, counting as taken the places of the processes that have waited for the host longer
      // than this owner (all waiting ones when this owner does not wait): a place that comes free
      // goes to the longest waiting process, not back to the one whose fetch just ended there
      // (waits begun in the same millisecond go by owner).
      const claimed = (
        this.s
          .get(`UPDATE feeds SET refresh_claimed_by = ?1, refresh_claimed_until = ${DB_NOW_MS} + ?2, refresh_fetch_done = NULL
                WHERE id IN (
                  SELECT c.id FROM (
                    SELECT f.id, f.fetch_host,
                      row_number() OVER (PARTITION BY f.fetch_host ORDER BY f.next_fetch_at, f.id) AS n
                    ${LISTED_DUE_34} AND (f.refresh_claimed_until IS NULL OR f.refresh_claimed_until < ${DB_NOW_MS})) c
                  WHERE c.n + (SELECT count(*) FROM feeds g WHERE g.fetch_host = c.fetch_host
                                 AND g.refresh_claimed_until >= ${DB_NOW_MS} AND g.refresh_fetch_done IS NULL)
                            + (SELECT count(*) FROM refresh_host_waits w WHERE w.fetch_host = c.fetch_host
                                 AND w.until_ms >= ${DB_NOW_MS} AND w.owner <> ?1
                                 AND (w.since_ms, w.owner) < (coalesce((SELECT m.since_ms FROM refresh_host_waits m
                                   WHERE m.fetch_host = c.fetch_host AND m.owner = ?1 AND m.until_ms >= ${DB_NOW_MS}),
                                   ${Number.MAX_SAFE_INTEGER}), ?1)) <= ?5)
                RETURNING *`)
          .all(owner, o.leaseMs, list, dueBy, o.perHost) as unknown as FeedRow[]
      ).map(toFeed);
      const rows = this.s
        .get(
          `SELECT f.id, f.refresh_claimed_until >= ${DB_NOW_MS} AS live ${LISTED_DUE} AND f.refresh_claimed_by IS NOT ?`,
        )
        .all(list, dueBy, owner) as { id: number; live: number | null }[];
      const hostFull = rows.filter((r) => !r.live).map((r) => r.id);
      // Waiting for the hosts it was refused (the holders then keep to their share), no longer for
      // those it got a place on. Only an owner that has waited costs these statements.
      if (this.waiting.has(owner) && claimed.length)
        this.s
          .get(`DELETE FROM refresh_host_waits WHERE owner = ?
                  AND fetch_host IN (SELECT fetch_host FROM feeds WHERE id IN (SELECT value FROM json_each(?)))`)
          .run(owner, JSON.stringify(claimed.map((f) => f.id)));
      if (hostFull.length) {
        this.waiting.add(owner);
        // Rows of processes that ended without endWaits (killed) go once they ran out a while ago.
        this.s.get(`DELETE FROM refresh_host_waits WHERE until_ms < ${DB_NOW_MS} - ${WAIT_SWEEP_MS}`).run();
        this.s
          .get(`INSERT INTO refresh_host_waits (fetch_host, owner, since_ms, until_ms)
                SELECT DISTINCT f.fetch_host, ?1, ${DB_NOW_MS}, ${DB_NOW_MS} + ?2 FROM feeds f JOIN json_each(?3) j ON f.id = j.value
                  WHERE f.fetch_host IS NOT NULL
                ON CONFLICT (fetch_host, owner) DO UPDATE SET until_ms = excluded.until_ms,
                  since_ms = CASE WHEN refresh_host_waits.until_ms < excluded.since_ms THEN excluded.since_ms
                                  ELSE refresh_host_waits.since_ms END`)
          .run(owner, o.hostWaitMs, JSON.stringify(hostFull));
      }
      return { claimed, held: rows.map((r) => r.id), hostFull };
    });
  }

  async endWaits(owner: string): Promise<void> {
    if (!this.waiting.delete(owner)) return;
    this.s.get('DELETE FROM refresh_host_waits WHERE owner = ?').run(owner);
  }

  async claimOne(id: number, owner: string, leaseMs: number): Promise<FeedRecord | undefined> {
    const r = this.s
      .get(`UPDATE feeds SET refresh_claimed_by = ?, refresh_claimed_until = ${DB_NOW_MS} + ?, refresh_fetch_done = NULL
            WHERE id = ? AND (refresh_claimed_until IS NULL OR refresh_claimed_until < ${DB_NOW_MS}) RETURNING *`)
      .get(owner, leaseMs, id) as FeedRow | undefined;
    return r && toFeed(r);
  }

  async fetchDone(id: number, owner: string): Promise<void> {
    this.s.get('UPDATE feeds SET refresh_fetch_done = 1 WHERE id = ? AND refresh_claimed_by = ?').run(id, owner);
  }

  async renew(owner: string, leaseMs: number): Promise<number> {
    return Number(
      this.s
        .get(`UPDATE feeds SET refresh_claimed_until = ${DB_NOW_MS} + ? WHERE refresh_claimed_by = ?`)
        .run(leaseMs, owner).changes,
    );
  }

  async release(ids: readonly number[], owner: string): Promise<void> {
    if (!ids.length) return;
    this.s
      .get(`UPDATE feeds SET refresh_claimed_by = NULL, refresh_claimed_until = NULL
            WHERE id IN (SELECT value FROM json_each(?)) AND refresh_claimed_by = ?`)
      .run(JSON.stringify(ids), owner);
  }

  async isClaimed(id: number): Promise<boolean> {
    return Boolean(this.s.get(`SELECT 1 FROM feeds WHERE id = ? AND refresh_claimed_until >= ${DB_NOW_MS}`).get(id));
  }
}
