// Article retention: deletes articles nobody needs any more, in batches, and leaves a tombstone
// (feed, guid) for each so the next fetch of a feed that still lists the article does not bring it
// back as unread (Miniflux keeps "removed" rows for the same reason).
import type { Db } from '../db.ts';
import { StatementCache, transaction } from '../db.ts';

export class SqliteRetentionRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  constructor(db: Db) { this.db = db; this.s = new StatementCache(db); }

  /**
   * Deletes up to `limit` articles crawled before `beforeUs` that every user who has them has read,
   * and that nobody starred, saved or tagged (articles of feeds nobody follows any more count as
   * read). Returns the deleted ids. Unread counters need no change (only read rows go); the
   * feeds' item counts are lowered here.
   */
  deleteReadBefore(beforeUs: number, limit: number): number[] {
    return transaction(this.db, () => {
      const rows = this.s.get(`
        SELECT i.id, i.feed_id FROM items i
         WHERE i.crawled_us < ?
           AND NOT EXISTS (SELECT 1 FROM user_items u WHERE u.item_id = i.id AND (u.read = 0 OR u.starred = 1 OR u.saved = 1))
           AND NOT EXISTS (SELECT 1 FROM item_labels l WHERE l.item_id = i.id)
         LIMIT ?`).all(beforeUs, limit) as { id: number; feed_id: number }[];
      if (!rows.length) return [];
      const ids = JSON.stringify(rows.map((r) => r.id));
      const now = Math.floor(Date.now() / 1000);
      this.s.get(`INSERT OR IGNORE INTO items_removed (feed_id, guid, removed_at)
                  SELECT feed_id, guid, ? FROM items WHERE id IN (SELECT value FROM json_each(?))`).run(now, ids);
      const perFeed = new Map<number, number>();
      for (const r of rows) perFeed.set(r.feed_id, (perFeed.get(r.feed_id) ?? 0) + 1);
      // user_items and item_labels rows go with the item (ON DELETE CASCADE).
      this.s.get('DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))').run(ids);
      const lower = this.s.get('UPDATE feeds SET item_count = max(0, item_count - ?) WHERE id = ?');
      for (const [feedId, n] of perFeed) lower.run(n, feedId);
      return rows.map((r) => r.id);
    });
  }
}

export const ITEMS_REMOVED_MIGRATION = `
-- Tombstones of articles deleted by retention: ingestion skips these guids (src/store/sqlite/retention.ts).
CREATE TABLE items_removed (
  feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  removed_at INTEGER NOT NULL,
  PRIMARY KEY (feed_id, guid)
) WITHOUT ROWID;
`;
