// Stored favicons (src/feeds/favicons): one row per feed, the bytes or the last lookup's error.
import type { Sql } from '../sql.ts';
import type { FeedIcon, FeedIconRepository } from '../repositories.ts';

interface Row {
  feedId: number;
  mime: string;
  data: Uint8Array;
  sourceUrl: string | null;
  fetchedAt: number;
}

export class SqlFeedIconRepository implements FeedIconRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async store(icon: FeedIcon): Promise<void> {
    await this.s
      .prepare(`INSERT INTO feed_icons (feed_id, mime, data, source_url, error, fetched_at) VALUES (?, ?, ?, ?, NULL, ?)
      ON CONFLICT (feed_id) DO UPDATE SET mime = excluded.mime, data = excluded.data, source_url = excluded.source_url,
        error = NULL, fetched_at = excluded.fetched_at`)
      .run(icon.feedId, icon.mime, icon.data, icon.sourceUrl, icon.fetchedAt);
  }

  async recordFailure(feedId: number, error: string, at: number): Promise<void> {
    // A feed that had an icon keeps it: a transient failure must not blank it.
    await this.s
      .prepare(`INSERT INTO feed_icons (feed_id, error, fetched_at) VALUES (?, ?, ?)
      ON CONFLICT (feed_id) DO UPDATE SET error = excluded.error, fetched_at = excluded.fetched_at`)
      .run(feedId, error, at);
  }

  async get(feedId: number): Promise<FeedIcon | undefined> {
    return (await this.s
      .prepare(`SELECT feed_id AS feedId, mime, data, source_url AS sourceUrl, fetched_at AS fetchedAt
      FROM feed_icons WHERE feed_id = ? AND data IS NOT NULL`)
      .get(feedId)) as Row | undefined;
  }

  async forUser(userId: number): Promise<FeedIcon[]> {
    return (await this.s
      .prepare(`SELECT fi.feed_id AS feedId, fi.mime, fi.data, fi.source_url AS sourceUrl, fi.fetched_at AS fetchedAt
      FROM subscriptions s JOIN feed_icons fi ON fi.feed_id = s.feed_id WHERE s.user_id = ? AND fi.data IS NOT NULL ORDER BY fi.feed_id`)
      .all(userId)) as unknown as Row[];
  }

  async feedIdsWithIcon(userId: number): Promise<number[]> {
    return (
      (await this.s
        .prepare(`SELECT fi.feed_id AS id FROM subscriptions s JOIN feed_icons fi ON fi.feed_id = s.feed_id
      WHERE s.user_id = ? AND fi.data IS NOT NULL`)
        .all(userId)) as { id: number }[]
    ).map((r) => r.id);
  }

  async feedsToLookUp(
    iconStaleBefore: number,
    failedStaleBefore: number,
    limit: number,
  ): Promise<{ feedId: number; siteUrl: string | null; feedUrl: string }[]> {
    return (await this.s
      .prepare(`SELECT f.id AS feedId, f.site_url AS siteUrl, f.url AS feedUrl FROM feeds f
      LEFT JOIN feed_icons fi ON fi.feed_id = f.id
      WHERE (fi.feed_id IS NULL OR (fi.data IS NOT NULL AND fi.fetched_at < ?) OR (fi.data IS NULL AND fi.fetched_at < ?))
        AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)
      ORDER BY fi.fetched_at IS NOT NULL, fi.fetched_at LIMIT ?`)
      .all(iconStaleBefore, failedStaleBefore, limit)) as { feedId: number; siteUrl: string | null; feedUrl: string }[];
  }
}
