import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { SubscribeOptions, SubscriptionRepository, SubscriptionToMake } from '../repositories.ts';
import type { SubscriptionRecord } from '../../model/feed-record.ts';
import { toFeed, type FeedRow } from '../rows/feeds.ts';
import { BACKFILL_ON_SUBSCRIBE } from '../ingest-rules.ts';

export { BACKFILL_ON_SUBSCRIBE };

type Row = FeedRow & {
  s_id: number;
  s_user_id: number;
  s_title: string | null;
  unread_count: number;
  newest_item_us: number;
  s_created_at: number;
  folders: string;
};

const SELECT = `SELECT f.*, s.id AS s_id, s.user_id AS s_user_id, s.title AS s_title, s.unread_count, s.newest_item_us, s.created_at AS s_created_at,
  (SELECT json_group_array(l.name) FROM (SELECT l.name FROM subscription_labels sl JOIN labels l ON l.id = sl.label_id
     WHERE sl.subscription_id = s.id ORDER BY l.name) l) AS folders
  FROM subscriptions s JOIN feeds f ON f.id = s.feed_id`;

const toSubscription = (r: Row): SubscriptionRecord => ({
  id: r.s_id,
  userId: r.s_user_id,
  feedId: r.id,
  title: r.s_title || r.title || r.url,
  customTitle: r.s_title,
  folders: JSON.parse(r.folders) as string[],
  unreadCount: r.unread_count,
  newestItemUs: r.newest_item_us,
  createdAt: r.s_created_at,
  feed: toFeed(r),
});

export class SqliteSubscriptionRepository implements SubscriptionRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
    this.s = new StatementCache(db);
  }

  async subscribe(
    userId: number,
    feedId: number,
    opts: SubscribeOptions = {},
  ): Promise<{ subscription: SubscriptionRecord; created: boolean }> {
    return transaction(this.db, () => {
      const created = this.subscribeNow(userId, feedId, opts.title || null);
      if (!created && opts.title) this.renameNow(userId, feedId, opts.title);
      for (const folder of opts.folders ?? []) this.addFolderNow(userId, feedId, folder);
      return { subscription: this.findNow(userId, feedId)!, created };
    });
  }

  async subscribeMany(userId: number, entries: SubscriptionToMake[]): Promise<number> {
    // SQLite has no round trips to save: the same statements as subscribe(), in one transaction.
    return transaction(this.db, () => {
      let created = 0;
      for (const e of entries) {
        if (this.subscribeNow(userId, e.feedId, e.title || null)) created++;
        for (const folder of e.folders ?? []) this.addFolderNow(userId, e.feedId, folder);
      }
      return created;
    });
  }

  /** Inserts the subscription with the feed's recent items; false when it existed. */
  private subscribeNow(userId: number, feedId: number, title: string | null): boolean {
    const inserted = this.s
      .get(`INSERT INTO subscriptions (user_id, feed_id, title, created_at) VALUES (?, ?, ?, ?)
                                 ON CONFLICT (user_id, feed_id) DO NOTHING RETURNING id`)
      .get(userId, feedId, title, Math.floor(Date.now() / 1000)) as { id: number } | undefined;
    if (!inserted) return false;
    this.s
      .get(`INSERT OR IGNORE INTO user_items (user_id, item_id, feed_id, crawled_us)
                  SELECT ?, id, feed_id, crawled_us FROM items WHERE feed_id = ? ORDER BY crawled_us DESC LIMIT ?`)
      .run(userId, feedId, BACKFILL_ON_SUBSCRIBE);
    // Starred items kept from an earlier subscription were not counted by the insert trigger.
    this.s
      .get(`UPDATE subscriptions SET
                    unread_count = (SELECT count(*) FROM user_items WHERE user_id = ?1 AND feed_id = ?2 AND read = 0),
                    newest_item_us = (SELECT coalesce(max(crawled_us), 0) FROM user_items WHERE user_id = ?1 AND feed_id = ?2)
                  WHERE id = ?3`)
      .run(userId, feedId, inserted.id);
    return true;
  }

  async unsubscribe(userId: number, feedId: number): Promise<boolean> {
    return transaction(this.db, () => {
      // Starred and tagged items stay (as Google Reader and Inoreader do): the user chose to keep them.
      this.s
        .get(`DELETE FROM user_items WHERE user_id = ? AND feed_id = ? AND starred = 0
                    AND NOT EXISTS (SELECT 1 FROM item_labels il WHERE il.user_id = user_items.user_id AND il.item_id = user_items.item_id)`)
        .run(userId, feedId);
      return (
        Number(this.s.get('DELETE FROM subscriptions WHERE user_id = ? AND feed_id = ?').run(userId, feedId).changes) >
        0
      );
    });
  }

  async find(userId: number, feedId: number): Promise<SubscriptionRecord | undefined> {
    return this.findNow(userId, feedId);
  }

  private findNow(userId: number, feedId: number): SubscriptionRecord | undefined {
    const r = this.s.get(`${SELECT} WHERE s.user_id = ? AND s.feed_id = ?`).get(userId, feedId) as Row | undefined;
    return r && toSubscription(r);
  }

  async list(userId: number): Promise<SubscriptionRecord[]> {
    const rows = this.s
      .get(`${SELECT} WHERE s.user_id = ? ORDER BY lower(coalesce(nullif(s.title, ''), f.title, f.url)), f.id`)
      .all(userId) as unknown as Row[];
    return rows.map(toSubscription);
  }

  async feedUrls(userId: number): Promise<string[]> {
    return (
      this.s
        .get('SELECT f.url FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = ?')
        .all(userId) as { url: string }[]
    ).map((r) => r.url);
  }

  async rename(userId: number, feedId: number, title: string | null): Promise<boolean> {
    return this.renameNow(userId, feedId, title);
  }

  private renameNow(userId: number, feedId: number, title: string | null): boolean {
    return (
      Number(
        this.s
          .get('UPDATE subscriptions SET title = ? WHERE user_id = ? AND feed_id = ?')
          .run(title || null, userId, feedId).changes,
      ) > 0
    );
  }

  async addFolder(userId: number, feedId: number, folder: string): Promise<boolean> {
    return this.addFolderNow(userId, feedId, folder);
  }

  private addFolderNow(userId: number, feedId: number, folder: string): boolean {
    const name = folder.trim();
    if (!name) return false;
    return transaction(this.db, () => {
      this.s
        .get('INSERT INTO labels (user_id, name) VALUES (?, ?) ON CONFLICT (user_id, name) DO NOTHING')
        .run(userId, name);
      return (
        Number(
          this.s
            .get(`INSERT OR IGNORE INTO subscription_labels (subscription_id, label_id)
                                SELECT s.id, l.id FROM subscriptions s JOIN labels l ON l.user_id = s.user_id AND l.name = ?
                                 WHERE s.user_id = ? AND s.feed_id = ?`)
            .run(name, userId, feedId).changes,
        ) > 0
      );
    });
  }

  async removeFolder(userId: number, feedId: number, folder: string): Promise<boolean> {
    return (
      Number(
        this.s
          .get(`DELETE FROM subscription_labels WHERE
        subscription_id = (SELECT id FROM subscriptions WHERE user_id = ? AND feed_id = ?)
        AND label_id = (SELECT id FROM labels WHERE user_id = ? AND name = ?)`)
          .run(userId, feedId, userId, folder.trim()).changes,
      ) > 0
    );
  }

  async countForUser(userId: number): Promise<number> {
    return (this.s.get('SELECT count(*) AS n FROM subscriptions WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  async subscriberCount(feedId: number): Promise<number> {
    return (this.s.get('SELECT count(*) AS n FROM subscriptions WHERE feed_id = ?').get(feedId) as { n: number }).n;
  }
}
