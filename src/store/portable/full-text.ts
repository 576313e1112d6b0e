// Full text of articles (src/feeds/fulltext): subscription modes, per-item attempts, and the
// content swap itself (the feed's own text moves to the summary when it has none).
import type { Sql } from '../sql.ts';
import type { FullTextCandidate, FullTextFeedStatus, FullTextMode, FullTextRepository } from '../repositories.ts';

const CANDIDATE = `i.id, i.feed_id AS feedId, i.url, i.content_hash AS contentHash, i.content, i.summary, coalesce(ft.attempts, 0) AS attempts`;

export class SqlFullTextRepository implements FullTextRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async setMode(userId: number, feedId: number, mode: FullTextMode): Promise<boolean> {
    return (
      Number(
        (
          await this.s
            .prepare('UPDATE subscriptions SET full_text = ? WHERE user_id = ? AND feed_id = ?')
            .run(mode, userId, feedId)
        ).changes,
      ) > 0
    );
  }

  async mode(userId: number, feedId: number): Promise<FullTextMode | undefined> {
    return (
      (await this.s
        .prepare('SELECT full_text AS m FROM subscriptions WHERE user_id = ? AND feed_id = ?')
        .get(userId, feedId)) as { m: FullTextMode } | undefined
    )?.m;
  }

  async wantsFullText(feedId: number, autoEnable: boolean): Promise<boolean> {
    const r = (await this.s
      .prepare(`SELECT CASE WHEN EXISTS (SELECT 1 FROM subscriptions WHERE feed_id = ?1 AND full_text = 'on')
        OR (?2 = 1 AND EXISTS (SELECT 1 FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.feed_id = ?1 AND s.full_text = 'auto' AND f.teaser = 1))
        THEN 1 ELSE 0 END AS yes`)
      .get(feedId, autoEnable ? 1 : 0)) as { yes: number };
    return r.yes === 1;
  }

  async queueState(
    feedId: number,
    autoEnable: boolean,
  ): Promise<{ teaser: boolean | null; teaserCheckedAt: number | null; auto: boolean; wants: boolean } | undefined> {
    const r = (await this.s
      .prepare(`SELECT f.teaser, f.teaser_checked_at AS at,
        CASE WHEN EXISTS (SELECT 1 FROM subscriptions WHERE feed_id = ?1 AND full_text = 'auto') THEN 1 ELSE 0 END AS auto,
        CASE WHEN EXISTS (SELECT 1 FROM subscriptions WHERE feed_id = ?1 AND full_text = 'on')
          OR (?2 = 1 AND f.teaser = 1 AND EXISTS (SELECT 1 FROM subscriptions WHERE feed_id = ?1 AND full_text = 'auto'))
          THEN 1 ELSE 0 END AS yes
        FROM feeds f WHERE f.id = ?1`)
      .get(feedId, autoEnable ? 1 : 0)) as
      | { teaser: number | null; at: number | null; auto: number; yes: number }
      | undefined;
    if (!r) return undefined;
    return {
      teaser: r.teaser === null ? null : r.teaser === 1,
      teaserCheckedAt: r.at,
      auto: r.auto === 1,
      wants: r.yes === 1,
    };
  }

  async candidates(
    feedId: number,
    recent: number,
    crawledSinceUs: number,
    maxAttempts: number,
    retryBefore: number,
  ): Promise<FullTextCandidate[]> {
    return (await this.s
      .prepare(`SELECT ${CANDIDATE} FROM (
        SELECT * FROM (SELECT * FROM items WHERE feed_id = ?1 AND url IS NOT NULL ORDER BY crawled_us DESC LIMIT ?2) recent
        UNION SELECT * FROM items WHERE feed_id = ?1 AND url IS NOT NULL AND crawled_us >= ?3) i
      LEFT JOIN item_full_text ft ON ft.item_id = i.id
      WHERE ft.item_id IS NULL OR ft.content_hash <> i.content_hash
         OR (ft.status = 'failed' AND ft.attempts < ?4 AND ft.fetched_at < ?5)
      ORDER BY i.crawled_us DESC`)
      .all(feedId, recent, crawledSinceUs, maxAttempts, retryBefore)) as unknown as FullTextCandidate[];
  }

  async store(itemId: number, contentHash: string, html: string, pageUrl: string, now: number): Promise<boolean> {
    return this.s.transaction(async () => {
      const changed = Number(
        (
          await this.s
            .prepare(`UPDATE items SET summary = coalesce(summary, content), content = ?
        WHERE id = ? AND content_hash = ?`)
            .run(html, itemId, contentHash)
        ).changes,
      );
      if (!changed) return false;
      await this.s
        .prepare(`INSERT INTO item_full_text (item_id, content_hash, status, error, page_url, attempts, fetched_at) VALUES (?, ?, 'ok', NULL, ?, 1, ?)
        ON CONFLICT (item_id) DO UPDATE SET content_hash = excluded.content_hash, status = 'ok', error = NULL, page_url = excluded.page_url,
          attempts = CASE WHEN item_full_text.content_hash = excluded.content_hash THEN item_full_text.attempts + 1 ELSE 1 END,
          fetched_at = excluded.fetched_at`)
        .run(itemId, contentHash, pageUrl, now);
      return true;
    });
  }

  async recordFailure(itemId: number, contentHash: string, error: string, now: number): Promise<void> {
    await this.s
      .prepare(`INSERT INTO item_full_text (item_id, content_hash, status, error, page_url, attempts, fetched_at) VALUES (?, ?, 'failed', ?, NULL, 1, ?)
      ON CONFLICT (item_id) DO UPDATE SET status = 'failed', error = excluded.error,
        attempts = CASE WHEN item_full_text.content_hash = excluded.content_hash THEN item_full_text.attempts + 1 ELSE 1 END,
        content_hash = excluded.content_hash, fetched_at = excluded.fetched_at`)
      .run(itemId, contentHash, error, now);
  }

  async feedsToCheckForTeaser(limit: number): Promise<number[]> {
    return (
      (await this.s
        .prepare(`SELECT DISTINCT f.id FROM feeds f JOIN subscriptions s ON s.feed_id = f.id
      WHERE f.teaser IS NULL AND s.full_text = 'auto' AND f.item_count > 0 LIMIT ?`)
        .all(limit)) as { id: number }[]
    ).map((r) => r.id);
  }

  async sample(feedId: number, n: number): Promise<FullTextCandidate[]> {
    return (await this.s
      .prepare(`SELECT ${CANDIDATE} FROM (SELECT * FROM items WHERE feed_id = ? AND url IS NOT NULL ORDER BY crawled_us DESC LIMIT ?) i
      LEFT JOIN item_full_text ft ON ft.item_id = i.id`)
      .all(feedId, n)) as unknown as FullTextCandidate[];
  }

  async setTeaser(feedId: number, teaser: boolean, now: number): Promise<void> {
    await this.s
      .prepare('UPDATE feeds SET teaser = ?, teaser_checked_at = ? WHERE id = ?')
      .run(teaser ? 1 : 0, now, feedId);
  }

  async setTeaserUnknown(feedId: number, now: number): Promise<void> {
    await this.s.prepare('UPDATE feeds SET teaser = NULL, teaser_checked_at = ? WHERE id = ?').run(now, feedId);
  }

  async status(feedId: number): Promise<FullTextFeedStatus> {
    const f = (await this.s.prepare('SELECT teaser, teaser_checked_at AS at FROM feeds WHERE id = ?').get(feedId)) as
      | { teaser: number | null; at: number | null }
      | undefined;
    const modes = (
      (await this.s.prepare('SELECT full_text AS m FROM subscriptions WHERE feed_id = ?').all(feedId)) as {
        m: FullTextMode;
      }[]
    ).map((r) => r.m);
    const c = (await this.s
      .prepare(`SELECT count(*) FILTER (WHERE ft.status = 'ok') AS ok, count(*) FILTER (WHERE ft.status = 'failed') AS failed
      FROM item_full_text ft JOIN items i ON i.id = ft.item_id WHERE i.feed_id = ?`)
      .get(feedId)) as { ok: number; failed: number };
    const last = (await this.s
      .prepare(`SELECT ft.error FROM item_full_text ft JOIN items i ON i.id = ft.item_id
      WHERE i.feed_id = ? AND ft.status = 'failed' ORDER BY ft.fetched_at DESC LIMIT 1`)
      .get(feedId)) as { error: string } | undefined;
    return {
      modes,
      teaser: f?.teaser === null || f === undefined ? null : f.teaser === 1,
      teaserCheckedAt: f?.at ?? null,
      ok: c.ok,
      failed: c.failed,
      lastError: last?.error ?? null,
    };
  }
}
