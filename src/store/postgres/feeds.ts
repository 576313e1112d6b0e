// Feeds (fetch state), items (ingest with fan-out) and subscriptions on PostgreSQL. The unread
// counters follow through the statement triggers of migration 001 (postgres dialect).
import type { PgDatabase } from './client.ts';
import type {
  FeedRepository,
  FeedToEnsure,
  ItemRepository,
  SubscribeOptions,
  SubscriptionRepository,
  SubscriptionToMake,
} from '../repositories.ts';
import type { FeedMetadata, FeedRecord, FetchOutcome, SubscriptionRecord } from '../../model/feed-record.ts';
import { type FeedRow, toFeed } from '../rows/feeds.ts';
import type { ParsedEntry } from '../../model/parsed-feed.ts';
import type { ItemChanges } from '../../model/item.ts';
import { contentHash, FUTURE_TOLERANCE_S, nextCrawlUs, oldestFirst } from '../ingest-rules.ts';
import { BACKFILL_ON_SUBSCRIBE } from '../ingest-rules.ts';

/**
 * SET clauses that end the refresh claim of `owner` (a parameter, null for none) and leave any
 * other owner's claim alone: both read the row's claim as it was before this UPDATE.
 */
const RELEASE_CLAIM = (owner: string) =>
  `refresh_claimed_until = CASE WHEN refresh_claimed_by = ${owner} THEN NULL ELSE refresh_claimed_until END,
      refresh_claimed_by = CASE WHEN refresh_claimed_by = ${owner} THEN NULL ELSE refresh_claimed_by END`;

const roundMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : Math.round(ms));

export class PgFeedRepository implements FeedRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }
  async findById(id: number) {
    const r = await this.db.row<FeedRow>('SELECT * FROM feeds WHERE id = $1', [id]);
    return r && toFeed(r);
  }
  async findByUrl(url: string) {
    const r = await this.db.row<FeedRow>('SELECT * FROM feeds WHERE url = $1', [url]);
    return r && toFeed(r);
  }
  async create(url: string, meta: Partial<FeedMetadata> = {}): Promise<FeedRecord> {
    await this.db.query(
      `INSERT INTO feeds (url, title, site_url, description, icon_url, ttl_minutes, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (url) DO NOTHING`,
      [
        url,
        meta.title ?? null,
        meta.siteUrl ?? null,
        meta.description ?? null,
        meta.iconUrl ?? null,
        meta.ttlMinutes ?? null,
        Math.floor(Date.now() / 1000),
      ],
    );
    return (await this.findByUrl(url))!;
  }
  async ensureMany(feeds: FeedToEnsure[]): Promise<Map<string, number>> {
    const first = new Map<string, FeedToEnsure>();
    for (const f of feeds) if (!first.has(f.url)) first.set(f.url, f);
    if (!first.size) return new Map();
    const list = [...first.values()];
    // One statement: the new feeds are inserted and every id read back, the existing ones
    // through the union (a row ON CONFLICT DO NOTHING skipped is not RETURNed).
    const rows = await this.db.rows<{ id: number; url: string }>(
      `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS w(url, title, site_url)),
      added AS (
        INSERT INTO feeds (url, title, site_url, created_at) SELECT url, title, site_url, $4 FROM wanted
        ON CONFLICT (url) DO NOTHING RETURNING id, url
      )
      SELECT id, url FROM added UNION ALL SELECT f.id, f.url FROM feeds f JOIN wanted w ON w.url = f.url`,
      [
        list.map((f) => f.url),
        list.map((f) => f.title ?? null),
        list.map((f) => f.siteUrl ?? null),
        Math.floor(Date.now() / 1000),
      ],
    );
    const ids = new Map(rows.map((r) => [r.url, Number(r.id)]));
    // A feed another transaction inserted after this statement's snapshot was neither added nor seen.
    const late = list.filter((f) => !ids.has(f.url)).map((f) => f.url);
    if (late.length) {
      for (const r of await this.db.rows<{ id: number; url: string }>(
        'SELECT id, url FROM feeds WHERE url = ANY($1::text[])',
        [late],
      ))
        ids.set(r.url, Number(r.id));
    }
    return ids;
  }
  async updateMetadata(id: number, m: FeedMetadata): Promise<void> {
    await this.db.query(
      `UPDATE feeds SET title = coalesce(nullif($1, ''), title), site_url = coalesce($2, site_url),
      description = coalesce($3, description), icon_url = coalesce($4, icon_url), ttl_minutes = $5 WHERE id = $6`,
      [m.title, m.siteUrl, m.description, m.iconUrl, m.ttlMinutes, id],
    );
  }
  async recordSuccess(id: number, o: FetchOutcome, releaseClaimOf?: string): Promise<void> {
    await this.db.query(
      `UPDATE feeds SET last_fetched_at = $1, last_success_at = $1, last_status = $2, last_error = NULL, error_count = 0,
      next_fetch_at = $3, interval_seconds = $4, etag = $5, last_modified = $6, body_hash = coalesce($7, body_hash), last_duration_ms = $8,
      ${RELEASE_CLAIM('$10')} WHERE id = $9`,
      [
        o.fetchedAt,
        o.status,
        o.nextFetchAt,
        o.intervalSeconds,
        o.etag ?? null,
        o.lastModified ?? null,
        o.bodyHash ?? null,
        roundMs(o.durationMs),
        id,
        releaseClaimOf ?? null,
      ],
    );
  }
  async recordFailure(id: number, o: FetchOutcome, releaseClaimOf?: string): Promise<void> {
    await this.db.query(
      `UPDATE feeds SET last_fetched_at = $1, last_status = $2, last_error = $3, error_count = error_count + 1,
      next_fetch_at = $4, interval_seconds = $5, last_duration_ms = $6, ${RELEASE_CLAIM('$8')} WHERE id = $7`,
      [
        o.fetchedAt,
        o.status,
        o.error,
        o.nextFetchAt,
        o.intervalSeconds,
        roundMs(o.durationMs),
        id,
        releaseClaimOf ?? null,
      ],
    );
  }
  async changeUrl(id: number, newUrl: string): Promise<boolean> {
    if (await this.db.row('SELECT 1 FROM feeds WHERE url = $1 AND id <> $2', [newUrl, id])) return false;
    return (await this.db.changes('UPDATE feeds SET url = $1 WHERE id = $2', [newUrl, id])) > 0;
  }
  async listDue(dueBy: number, limit: number): Promise<FeedRecord[]> {
    const rows = await this.db.rows<FeedRow>(
      `SELECT * FROM feeds f WHERE f.next_fetch_at <= $1
      AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id) ORDER BY f.next_fetch_at, f.id LIMIT $2`,
      [Number.isFinite(dueBy) ? dueBy : Number.MAX_SAFE_INTEGER, limit],
    );
    return rows.map(toFeed);
  }
  async recentPublishTimes(id: number, count: number): Promise<number[]> {
    return (
      await this.db.rows<{ t: number }>(
        'SELECT published_at AS t FROM items WHERE feed_id = $1 ORDER BY published_at DESC LIMIT $2',
        [id, count],
      )
    ).map((r) => r.t);
  }
}

export class PgItemRepository implements ItemRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  /**
   * A feed document in four statements whatever its size: one read of the stored versions, one
   * UPDATE of the changed entries, and one INSERT of the new ones that also fans them out to the
   * subscribers and counts them (data-modifying CTEs), with their columns as arrays (unnest). Row
   * by row, a 50-entry first fetch took 50 round trips inside the transaction.
   */
  upsertEntries(feedId: number, entries: ParsedEntry[], crawlTimeUs: number): Promise<ItemChanges> {
    const changes: ItemChanges = { added: [], updated: [], deleted: [] };
    if (entries.length === 0) return Promise.resolve(changes);
    const crawlS = Math.floor(crawlTimeUs / 1e6);
    const json = (v: unknown[]) => (v.length ? JSON.stringify(v) : null);
    const date = (t: number | null) => (t !== null && t <= crawlS + FUTURE_TOLERANCE_S ? t : null);
    return this.db.transaction(async () => {
      const seen = new Set<string>();
      const unique: ParsedEntry[] = [];
      for (const e of entries) {
        if (seen.has(e.guid)) continue; // the same guid twice in one document: first wins
        seen.add(e.guid);
        unique.push(e);
      }
      // Stored entries of the document (id and hash), and those retention deleted while the feed
      // still lists them (id null): these are not brought back as unread.
      const known = new Map(
        (
          await this.db.arrays<[number | null, string, string | null]>(
            `SELECT i.id, g.guid, i.content_hash FROM unnest($2::text[]) AS g(guid)
              LEFT JOIN items i ON i.feed_id = $1 AND i.guid = g.guid
             WHERE i.id IS NOT NULL OR EXISTS (SELECT 1 FROM items_removed r WHERE r.feed_id = $1 AND r.guid = g.guid)`,
            [feedId, unique.map((e) => e.guid)],
          )
        ).map(([id, guid, hash]) => [guid, { id, hash }]),
      );
      const fresh: ParsedEntry[] = [];
      const hashes = new Map<ParsedEntry, string>();
      const changed: { id: number; e: ParsedEntry; hash: string }[] = [];
      for (const e of unique) {
        const hash = contentHash(e);
        const old = known.get(e.guid);
        if (!old) {
          fresh.push(e);
          hashes.set(e, hash);
        } else if (old.id !== null && old.hash !== hash) changed.push({ id: old.id, e, hash });
      }
      if (changed.length) {
        const published = changed.map(({ e }) => date(e.publishedAt));
        await this.db.query(
          `UPDATE items SET url = u.url, title = u.title, author = u.author, content = u.content, summary = u.summary,
            published_at = coalesce(u.published_at, items.published_at), updated_at = u.updated_at,
            content_hash = u.content_hash, enclosures = u.enclosures, image_url = u.image_url, categories = u.categories
          FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                      $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[])
            AS u(id, url, title, author, content, summary, published_at, updated_at, content_hash, enclosures, image_url, categories)
          WHERE items.id = u.id`,
          [
            changed.map((c) => c.id),
            changed.map(({ e }) => e.url),
            changed.map(({ e }) => e.title),
            changed.map(({ e }) => e.author),
            changed.map(({ e }) => e.content),
            changed.map(({ e }) => e.summary),
            published,
            changed.map(({ e }, k) => date(e.updatedAt) ?? published[k] ?? crawlS),
            changed.map((c) => c.hash),
            changed.map(({ e }) => json(e.enclosures)),
            changed.map(({ e }) => e.imageUrl),
            changed.map(({ e }) => json(e.categories)),
          ],
        );
        for (const c of changed) changes.updated.push(c.id);
      }
      if (fresh.length) {
        const ordered = oldestFirst(fresh);
        const published = ordered.map((e) => date(e.publishedAt) ?? crawlS);
        // Rows go in array order (ORDER BY the ordinality), so ids rise with crawl times as they
        // did row by row. Fan-out: every subscriber gets the new items as unread.
        const ids = await this.db.arrays<[number]>(
          `WITH added AS (
            INSERT INTO items (feed_id, guid, url, title, author, content, summary, published_at, updated_at,
              crawled_us, content_hash, enclosures, image_url, categories)
            SELECT $1, guid, url, title, author, content, summary, published_at, updated_at,
              crawled_us, content_hash, enclosures, image_url, categories
              FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
                          $9::bigint[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::text[]) WITH ORDINALITY
                AS e(guid, url, title, author, content, summary, published_at, updated_at, crawled_us, content_hash,
                     enclosures, image_url, categories, n)
             ORDER BY n
            RETURNING id, crawled_us),
          fanned AS (
            INSERT INTO user_items (user_id, item_id, feed_id, crawled_us)
            SELECT s.user_id, a.id, $1, a.crawled_us FROM added a CROSS JOIN subscriptions s WHERE s.feed_id = $1
            ON CONFLICT DO NOTHING),
          counted AS (UPDATE feeds SET item_count = item_count + (SELECT count(*) FROM added) WHERE id = $1)
          SELECT id FROM added ORDER BY crawled_us`,
          [
            feedId,
            ordered.map((e) => e.guid),
            ordered.map((e) => e.url),
            ordered.map((e) => e.title),
            ordered.map((e) => e.author),
            ordered.map((e) => e.content),
            ordered.map((e) => e.summary),
            published,
            ordered.map((e, k) => date(e.updatedAt) ?? published[k]!),
            ordered.map(() => nextCrawlUs(crawlTimeUs)),
            ordered.map((e) => hashes.get(e)!),
            ordered.map((e) => json(e.enclosures)),
            ordered.map((e) => e.imageUrl),
            ordered.map((e) => json(e.categories)),
          ],
        );
        for (const [id] of ids) changes.added.push(id);
      }
      return changes;
    });
  }

  deleteReadBefore(beforeUs: number, limit: number): Promise<number[]> {
    return this.db.transaction(async () => {
      const rows = await this.db.rows<{ id: number; feed_id: number }>(
        `SELECT i.id, i.feed_id FROM items i
         WHERE i.crawled_us < $1
           AND NOT EXISTS (SELECT 1 FROM user_items u WHERE u.item_id = i.id AND (u.read = 0 OR u.starred = 1 OR u.saved = 1))
           AND NOT EXISTS (SELECT 1 FROM item_labels l WHERE l.item_id = i.id)
         LIMIT $2`,
        [beforeUs, limit],
      );
      if (!rows.length) return [];
      const ids = rows.map((r) => r.id);
      await this.db.query(
        `INSERT INTO items_removed (feed_id, guid, removed_at)
        SELECT feed_id, guid, $1 FROM items WHERE id = ANY($2::bigint[]) ON CONFLICT DO NOTHING`,
        [Math.floor(Date.now() / 1000), ids],
      );
      // user_items and item_labels rows go with the item (ON DELETE CASCADE).
      await this.db.query('DELETE FROM items WHERE id = ANY($1::bigint[])', [ids]);
      const perFeed = new Map<number, number>();
      for (const r of rows) perFeed.set(r.feed_id, (perFeed.get(r.feed_id) ?? 0) + 1);
      for (const [feedId, n] of perFeed)
        await this.db.query('UPDATE feeds SET item_count = greatest(0, item_count - $1) WHERE id = $2', [n, feedId]);
      return ids;
    });
  }

  async countByFeed(feedId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM items WHERE feed_id = $1', [feedId]))!.n;
  }
}

type SubRow = FeedRow & {
  s_id: number;
  s_user_id: number;
  s_title: string | null;
  unread_count: number;
  newest_item_us: number;
  s_created_at: number;
  folders: string[];
};

const SUB_SELECT = `SELECT f.*, s.id AS s_id, s.user_id AS s_user_id, s.title AS s_title, s.unread_count, s.newest_item_us, s.created_at AS s_created_at,
  coalesce((SELECT array_agg(l.name ORDER BY l.name) FROM subscription_labels sl JOIN labels l ON l.id = sl.label_id
     WHERE sl.subscription_id = s.id), '{}') AS folders
  FROM subscriptions s JOIN feeds f ON f.id = s.feed_id`;

const toSubscription = (r: SubRow): SubscriptionRecord => ({
  id: r.s_id,
  userId: r.s_user_id,
  feedId: r.id,
  title: r.s_title || r.title || r.url,
  customTitle: r.s_title,
  folders: r.folders,
  unreadCount: r.unread_count,
  newestItemUs: r.newest_item_us,
  createdAt: r.s_created_at,
  feed: toFeed(r),
});

export class PgSubscriptionRepository implements SubscriptionRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  subscribe(
    userId: number,
    feedId: number,
    opts: SubscribeOptions = {},
  ): Promise<{ subscription: SubscriptionRecord; created: boolean }> {
    return this.db.transaction(async () => {
      const inserted = await this.db.row<{ id: number }>(
        `INSERT INTO subscriptions (user_id, feed_id, title, created_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (user_id, feed_id) DO NOTHING RETURNING id`,
        [userId, feedId, opts.title || null, Math.floor(Date.now() / 1000)],
      );
      if (inserted) {
        await this.db.query(
          `INSERT INTO user_items (user_id, item_id, feed_id, crawled_us)
          SELECT $1, id, feed_id, crawled_us FROM items WHERE feed_id = $2 ORDER BY crawled_us DESC LIMIT $3 ON CONFLICT DO NOTHING`,
          [userId, feedId, BACKFILL_ON_SUBSCRIBE],
        );
        // Starred items kept from an earlier subscription were not counted by the insert trigger.
        await this.db.query(
          `UPDATE subscriptions SET
            unread_count = (SELECT count(*) FROM user_items WHERE user_id = $1 AND feed_id = $2 AND read = 0),
            newest_item_us = (SELECT coalesce(max(crawled_us), 0) FROM user_items WHERE user_id = $1 AND feed_id = $2)
          WHERE id = $3`,
          [userId, feedId, inserted.id],
        );
      } else if (opts.title) {
        await this.rename(userId, feedId, opts.title);
      }
      for (const folder of opts.folders ?? []) await this.addFolder(userId, feedId, folder);
      return { subscription: (await this.find(userId, feedId))!, created: inserted !== undefined };
    });
  }

  subscribeMany(userId: number, entries: SubscriptionToMake[]): Promise<number> {
    const titles = new Map<number, string | null>();
    const folders: { feedId: number; name: string }[] = [];
    for (const e of entries) {
      if (!titles.has(e.feedId)) titles.set(e.feedId, e.title || null);
      for (const f of e.folders ?? []) if (f.trim()) folders.push({ feedId: e.feedId, name: f.trim() });
    }
    if (!titles.size) return Promise.resolve(0);
    return this.db.transaction(async () => {
      const inserted = await this.db.rows<{ id: number; feed_id: number }>(
        `INSERT INTO subscriptions (user_id, feed_id, title, created_at)
        SELECT $1, f, t, $4 FROM unnest($2::bigint[], $3::text[]) AS x(f, t)
        ON CONFLICT (user_id, feed_id) DO NOTHING RETURNING id, feed_id`,
        [userId, [...titles.keys()], [...titles.values()], Math.floor(Date.now() / 1000)],
      );
      if (inserted.length) {
        // As subscribe(): each new subscription gets its feed's most recent items, then its counts
        // (starred items kept from an earlier subscription were not counted by the insert trigger).
        await this.db.query(
          `INSERT INTO user_items (user_id, item_id, feed_id, crawled_us)
          SELECT $1, i.id, i.feed_id, i.crawled_us FROM unnest($2::bigint[]) AS n(feed_id)
          CROSS JOIN LATERAL (SELECT id, feed_id, crawled_us FROM items WHERE feed_id = n.feed_id
            ORDER BY crawled_us DESC LIMIT $3) i
          ON CONFLICT DO NOTHING`,
          [userId, inserted.map((r) => r.feed_id), BACKFILL_ON_SUBSCRIBE],
        );
        await this.db.query(
          `UPDATE subscriptions s SET
            unread_count = (SELECT count(*) FROM user_items WHERE user_id = s.user_id AND feed_id = s.feed_id AND read = 0),
            newest_item_us = (SELECT coalesce(max(crawled_us), 0) FROM user_items WHERE user_id = s.user_id AND feed_id = s.feed_id)
          WHERE s.id = ANY($1::bigint[])`,
          [inserted.map((r) => r.id)],
        );
      }
      if (folders.length) {
        await this.db.query(
          'INSERT INTO labels (user_id, name) SELECT DISTINCT $1::bigint, n FROM unnest($2::text[]) AS x(n) ON CONFLICT (user_id, name) DO NOTHING',
          [userId, folders.map((f) => f.name)],
        );
        await this.db.query(
          `INSERT INTO subscription_labels (subscription_id, label_id)
          SELECT DISTINCT s.id, l.id FROM unnest($2::bigint[], $3::text[]) AS x(feed_id, name)
          JOIN subscriptions s ON s.user_id = $1 AND s.feed_id = x.feed_id
          JOIN labels l ON l.user_id = $1 AND l.name = x.name
          ON CONFLICT DO NOTHING`,
          [userId, folders.map((f) => f.feedId), folders.map((f) => f.name)],
        );
      }
      return inserted.length;
    });
  }

  unsubscribe(userId: number, feedId: number): Promise<boolean> {
    return this.db.transaction(async () => {
      // Starred and tagged items stay (as Google Reader and Inoreader do): the user chose to keep them.
      await this.db.query(
        `DELETE FROM user_items ui WHERE ui.user_id = $1 AND ui.feed_id = $2 AND ui.starred = 0
          AND NOT EXISTS (SELECT 1 FROM item_labels il WHERE il.user_id = ui.user_id AND il.item_id = ui.item_id)`,
        [userId, feedId],
      );
      return (
        (await this.db.changes('DELETE FROM subscriptions WHERE user_id = $1 AND feed_id = $2', [userId, feedId])) > 0
      );
    });
  }

  async find(userId: number, feedId: number): Promise<SubscriptionRecord | undefined> {
    const r = await this.db.row<SubRow>(`${SUB_SELECT} WHERE s.user_id = $1 AND s.feed_id = $2`, [userId, feedId]);
    return r && toSubscription(r);
  }

  async list(userId: number): Promise<SubscriptionRecord[]> {
    return (
      await this.db.rows<SubRow>(
        `${SUB_SELECT} WHERE s.user_id = $1 ORDER BY lower(coalesce(nullif(s.title, ''), f.title, f.url)), f.id`,
        [userId],
      )
    ).map(toSubscription);
  }

  async feedUrls(userId: number): Promise<string[]> {
    return (
      await this.db.rows<{ url: string }>(
        'SELECT f.url FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = $1',
        [userId],
      )
    ).map((r) => r.url);
  }

  async rename(userId: number, feedId: number, title: string | null): Promise<boolean> {
    return (
      (await this.db.changes('UPDATE subscriptions SET title = $1 WHERE user_id = $2 AND feed_id = $3', [
        title || null,
        userId,
        feedId,
      ])) > 0
    );
  }

  async addFolder(userId: number, feedId: number, folder: string): Promise<boolean> {
    const name = folder.trim();
    if (!name) return false;
    return this.db.transaction(async () => {
      await this.db.query('INSERT INTO labels (user_id, name) VALUES ($1, $2) ON CONFLICT (user_id, name) DO NOTHING', [
        userId,
        name,
      ]);
      return (
        (await this.db.changes(
          `INSERT INTO subscription_labels (subscription_id, label_id)
        SELECT s.id, l.id FROM subscriptions s JOIN labels l ON l.user_id = s.user_id AND l.name = $1
         WHERE s.user_id = $2 AND s.feed_id = $3 ON CONFLICT DO NOTHING`,
          [name, userId, feedId],
        )) > 0
      );
    });
  }

  async removeFolder(userId: number, feedId: number, folder: string): Promise<boolean> {
    return (
      (await this.db.changes(
        `DELETE FROM subscription_labels WHERE
        subscription_id = (SELECT id FROM subscriptions WHERE user_id = $1 AND feed_id = $2)
        AND label_id = (SELECT id FROM labels WHERE user_id = $1 AND name = $3)`,
        [userId, feedId, folder.trim()],
      )) > 0
    );
  }

  async countForUser(userId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM subscriptions WHERE user_id = $1', [userId]))!
      .n;
  }

  async subscriberCount(feedId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM subscriptions WHERE feed_id = $1', [feedId]))!
      .n;
  }
}
