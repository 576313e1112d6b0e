// Feed refresh claims on SQLite (see RefreshClaimRepository). Each claim is one write transaction
// (BEGIN IMMEDIATE): another process's claim waits for the write lock, then sees these claims.
import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { RefreshClaimRepository } from '../repositories.ts';
import { DB_NOW_MS } from '../sql.ts';
import type { FeedRecord } from '../../model/feed-record.ts';
import { type FeedRow, toFeed } from './feeds.ts';

const LISTED_DUE = `FROM feeds f JOIN json_each(?) j ON f.id = j.value
  WHERE f.next_fetch_at <= ? AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)`;

export class SqliteRefreshClaimRepository implements RefreshClaimRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
    this.s = new StatementCache(db);
  }

  async claimListed(
    ids: readonly number[],
    owner: string,
    o: { dueBy: number; leaseMs: number; perHost: number },
  ): Promise<{ claimed: FeedRecord[]; held: number[]; hostFull: number[] }> {
    if (!ids.length) return { claimed: [], held: [], hostFull: [] };
    const list = JSON.stringify(ids);
    const dueBy = Number.isFinite(o.dueBy) ? o.dueBy : Number.MAX_SAFE_INTEGER;
    return transaction(this.db, () => {
      // The n-th candidate of a host is taken when the host's live claims plus n stay within the limit.
      const claimed = (
        this.s
          .get(`UPDATE feeds SET refresh_claimed_by = ?, refresh_claimed_until = ${DB_NOW_MS} + ?
                WHERE id IN (
                  SELECT c.id FROM (
                    SELECT f.id, f.fetch_host,
                      row_number() OVER (PARTITION BY f.fetch_host ORDER BY f.next_fetch_at, f.id) AS n
                    ${LISTED_DUE} AND (f.refresh_claimed_until IS NULL OR f.refresh_claimed_until < ${DB_NOW_MS})) c
                  WHERE c.n + (SELECT count(*) FROM feeds g WHERE g.fetch_host = c.fetch_host
                                 AND g.refresh_claimed_until >= ${DB_NOW_MS}) <= ?)
                RETURNING *`)
          .all(owner, o.leaseMs, list, dueBy, o.perHost) as unknown as FeedRow[]
      ).map(toFeed);
      const rows = this.s
        .get(
          `SELECT f.id, f.refresh_claimed_until >= ${DB_NOW_MS} AS live ${LISTED_DUE} AND f.refresh_claimed_by IS NOT ?`,
        )
        .all(list, dueBy, owner) as { id: number; live: number | null }[];
      return { claimed, held: rows.map((r) => r.id), hostFull: rows.filter((r) => !r.live).map((r) => r.id) };
    });
  }

  async claimOne(id: number, owner: string, leaseMs: number): Promise<FeedRecord | undefined> {
    const r = this.s
      .get(`UPDATE feeds SET refresh_claimed_by = ?, refresh_claimed_until = ${DB_NOW_MS} + ?
            WHERE id = ? AND (refresh_claimed_until IS NULL OR refresh_claimed_until < ${DB_NOW_MS}) RETURNING *`)
      .get(owner, leaseMs, id) as FeedRow | undefined;
    return r && toFeed(r);
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
