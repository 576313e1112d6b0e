import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { ItemRepository } from '../repositories.ts';
import type { ParsedEntry } from '../../model/parsed-feed.ts';
import type { ItemChanges } from '../../model/item.ts';
import { contentHash, FUTURE_TOLERANCE_S, nextCrawlUs, oldestFirst } from '../ingest-rules.ts';

export class SqliteItemRepository implements ItemRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
    this.s = new StatementCache(db);
  }

  async upsertEntries(feedId: number, entries: ParsedEntry[], crawlTimeUs: number): Promise<ItemChanges> {
    const changes: ItemChanges = { added: [], updated: [], deleted: [] };
    if (entries.length === 0) return changes;
    const crawlS = Math.floor(crawlTimeUs / 1e6);
    const find = this.s.get('SELECT id, content_hash FROM items WHERE feed_id = ? AND guid = ?');
    const removed = this.s.get('SELECT 1 FROM items_removed WHERE feed_id = ? AND guid = ?');
    const insert =
      this.s.get(`INSERT INTO items (feed_id, guid, url, title, author, content, summary, published_at, updated_at,
                                 crawled_us, content_hash, enclosures, image_url, categories)
                               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`);
    const update = this.s.get(`UPDATE items SET url = ?, title = ?, author = ?, content = ?, summary = ?,
                                 published_at = coalesce(?, published_at), updated_at = ?, content_hash = ?,
                                 enclosures = ?, image_url = ?, categories = ? WHERE id = ?`);
    const json = (v: unknown[]) => (v.length ? JSON.stringify(v) : null);
    const date = (t: number | null) => (t !== null && t <= crawlS + FUTURE_TOLERANCE_S ? t : null);

    transaction(this.db, () => {
      const seen = new Set<string>();
      const fresh: ParsedEntry[] = [];
      const hashes = new Map<ParsedEntry, string>();
      for (const e of entries) {
        if (seen.has(e.guid)) continue; // the same guid twice in one document: first wins
        seen.add(e.guid);
        const hash = contentHash(e);
        const old = find.get(feedId, e.guid) as { id: number; content_hash: string } | undefined;
        if (!old) {
          // Deleted by retention while the feed still lists it: do not bring it back as unread.
          if (removed.get(feedId, e.guid)) continue;
          fresh.push(e);
          hashes.set(e, hash);
          continue;
        }
        if (old.content_hash === hash) continue;
        const published = date(e.publishedAt);
        update.run(
          e.url,
          e.title,
          e.author,
          e.content,
          e.summary,
          published,
          date(e.updatedAt) ?? published ?? crawlS,
          hash,
          json(e.enclosures),
          e.imageUrl,
          json(e.categories),
          old.id,
        );
        changes.updated.push(old.id);
      }
      for (const e of oldestFirst(fresh)) {
        const published = date(e.publishedAt) ?? crawlS;
        const r = insert.get(
          feedId,
          e.guid,
          e.url,
          e.title,
          e.author,
          e.content,
          e.summary,
          published,
          date(e.updatedAt) ?? published,
          nextCrawlUs(crawlTimeUs),
          hashes.get(e)!,
          json(e.enclosures),
          e.imageUrl,
          json(e.categories),
        ) as { id: number };
        changes.added.push(r.id);
      }
      if (changes.added.length) {
        // Fan-out: every subscriber gets the new items as unread, in one statement. The unary plus
        // keeps SQLite from scanning all the feed's items by feed_id: the new ones are looked up by
        // id (EXPLAIN QUERY PLAN: SEARCH i USING INTEGER PRIMARY KEY), however many the feed has.
        this.s
          .get(`INSERT OR IGNORE INTO user_items (user_id, item_id, feed_id, crawled_us)
                    SELECT s.user_id, i.id, i.feed_id, i.crawled_us
                      FROM items i JOIN subscriptions s ON s.feed_id = i.feed_id
                     WHERE +i.feed_id = ? AND i.id IN (SELECT value FROM json_each(?))`)
          .run(feedId, JSON.stringify(changes.added));
        this.s.get('UPDATE feeds SET item_count = item_count + ? WHERE id = ?').run(changes.added.length, feedId);
      }
    });
    return changes;
  }

  /**
   * Deletes up to `limit` articles crawled before `beforeUs` that every user who has them has read,
   * and that nobody starred, saved or tagged (articles of feeds nobody follows any more count as
   * read). Returns the deleted ids. Unread counters need no change (only read rows go); the
   * feeds' item counts are lowered here.
   */
  async deleteReadBefore(beforeUs: number, limit: number): Promise<number[]> {
    return transaction(this.db, () => {
      const rows = this.s
        .get(`
        SELECT i.id, i.feed_id FROM items i
         WHERE i.crawled_us < ?
           AND NOT EXISTS (SELECT 1 FROM user_items u WHERE u.item_id = i.id AND (u.read = 0 OR u.starred = 1 OR u.saved = 1))
           AND NOT EXISTS (SELECT 1 FROM item_labels l WHERE l.item_id = i.id)
         LIMIT ?`)
        .all(beforeUs, limit) as { id: number; feed_id: number }[];
      if (!rows.length) return [];
      const ids = JSON.stringify(rows.map((r) => r.id));
      const now = Math.floor(Date.now() / 1000);
      this.s
        .get(`INSERT OR IGNORE INTO items_removed (feed_id, guid, removed_at)
                  SELECT feed_id, guid, ? FROM items WHERE id IN (SELECT value FROM json_each(?))`)
        .run(now, ids);
      const perFeed = new Map<number, number>();
      for (const r of rows) perFeed.set(r.feed_id, (perFeed.get(r.feed_id) ?? 0) + 1);
      // user_items and item_labels rows go with the item (ON DELETE CASCADE).
      this.s.get('DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))').run(ids);
      const lower = this.s.get('UPDATE feeds SET item_count = max(0, item_count - ?) WHERE id = ?');
      for (const [feedId, n] of perFeed) lower.run(n, feedId);
      return rows.map((r) => r.id);
    });
  }

  async countByFeed(feedId: number): Promise<number> {
    return (this.s.get('SELECT count(*) AS n FROM items WHERE feed_id = ?').get(feedId) as { n: number }).n;
  }
}
