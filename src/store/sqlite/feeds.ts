import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { FeedRepository, FeedToEnsure } from '../repositories.ts';
import type { FeedMetadata, FeedRecord, FetchOutcome } from '../../model/feed-record.ts';
import { type FeedRow, toFeed } from '../rows/feeds.ts';

/**
 * SET clauses that end the refresh claim of the owner bound twice after them (null for none) and
 * leave any other owner's claim alone: both read the row's claim as it was before this UPDATE.
 */
const RELEASE_CLAIM = `refresh_claimed_until = CASE WHEN refresh_claimed_by = ? THEN NULL ELSE refresh_claimed_until END,
                refresh_claimed_by = CASE WHEN refresh_claimed_by = ? THEN NULL ELSE refresh_claimed_by END`;

const roundMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : Math.round(ms));

export class SqliteFeedRepository implements FeedRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async findById(id: number): Promise<FeedRecord | undefined> {
    const r = this.s.get('SELECT * FROM feeds WHERE id = ?').get(id) as FeedRow | undefined;
    return r && toFeed(r);
  }
  async findByUrl(url: string): Promise<FeedRecord | undefined> {
    const r = this.s.get('SELECT * FROM feeds WHERE url = ?').get(url) as FeedRow | undefined;
    return r && toFeed(r);
  }
  async create(url: string, meta: Partial<FeedMetadata> = {}): Promise<FeedRecord> {
    this.s
      .get(`INSERT INTO feeds (url, title, site_url, description, icon_url, ttl_minutes, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (url) DO NOTHING`)
      .run(
        url,
        meta.title ?? null,
        meta.siteUrl ?? null,
        meta.description ?? null,
        meta.iconUrl ?? null,
        meta.ttlMinutes ?? null,
        Math.floor(Date.now() / 1000),
      );
    return (await this.findByUrl(url))!;
  }
  async ensureMany(feeds: FeedToEnsure[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const insert = this.s.get(`INSERT INTO feeds (url, title, site_url, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (url) DO NOTHING`);
    const find = this.s.get('SELECT id FROM feeds WHERE url = ?');
    const now = Math.floor(Date.now() / 1000);
    for (const f of feeds) {
      if (ids.has(f.url)) continue;
      insert.run(f.url, f.title ?? null, f.siteUrl ?? null, now);
      ids.set(f.url, Number((find.get(f.url) as { id: number }).id));
    }
    return ids;
  }
  async updateMetadata(id: number, m: FeedMetadata): Promise<void> {
    // A feed that briefly loses its title keeps the one we had.
    this.s
      .get(`UPDATE feeds SET title = coalesce(nullif(?, ''), title), site_url = coalesce(?, site_url),
                description = coalesce(?, description), icon_url = coalesce(?, icon_url), ttl_minutes = ? WHERE id = ?`)
      .run(m.title, m.siteUrl, m.description, m.iconUrl, m.ttlMinutes, id);
  }
  async recordSuccess(id: number, o: FetchOutcome, releaseClaimOf?: string): Promise<void> {
    const claim = releaseClaimOf ?? null;
    this.s
      .get(`UPDATE feeds SET last_fetched_at = ?, last_success_at = ?, last_status = ?, last_error = NULL, error_count = 0,
                next_fetch_at = ?, interval_seconds = ?, etag = ?, last_modified = ?, body_hash = coalesce(?, body_hash), last_duration_ms = ?,
                ${RELEASE_CLAIM} WHERE id = ?`)
      .run(
        o.fetchedAt,
        o.fetchedAt,
        o.status,
        o.nextFetchAt,
        o.intervalSeconds,
        o.etag ?? null,
        o.lastModified ?? null,
        o.bodyHash ?? null,
        roundMs(o.durationMs),
        claim,
        claim,
        id,
      );
  }
  async recordFailure(id: number, o: FetchOutcome, releaseClaimOf?: string): Promise<void> {
    const claim = releaseClaimOf ?? null;
    this.s
      .get(`UPDATE feeds SET last_fetched_at = ?, last_status = ?, last_error = ?, error_count = error_count + 1,
                next_fetch_at = ?, interval_seconds = ?, last_duration_ms = ?, ${RELEASE_CLAIM} WHERE id = ?`)
      .run(o.fetchedAt, o.status, o.error, o.nextFetchAt, o.intervalSeconds, roundMs(o.durationMs), claim, claim, id);
  }
  async changeUrl(id: number, newUrl: string): Promise<boolean> {
    if (this.s.get('SELECT 1 FROM feeds WHERE url = ? AND id <> ?').get(newUrl, id)) return false;
    return Number(this.s.get('UPDATE feeds SET url = ? WHERE id = ?').run(newUrl, id).changes) > 0;
  }
  async listDue(dueBy: number, limit: number): Promise<FeedRecord[]> {
    const rows = this.s
      .get(`SELECT * FROM feeds f WHERE f.next_fetch_at <= ?
                              AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)
                              ORDER BY f.next_fetch_at, f.id LIMIT ?`)
      .all(Number.isFinite(dueBy) ? dueBy : Number.MAX_SAFE_INTEGER, limit) as unknown as FeedRow[];
    return rows.map(toFeed);
  }
  async recentPublishTimes(id: number, count: number): Promise<number[]> {
    return (
      this.s
        .get('SELECT published_at AS t FROM items WHERE feed_id = ? ORDER BY published_at DESC LIMIT ?')
        .all(id, count) as { t: number }[]
    ).map((r) => r.t);
  }
}
