// The Reader API's view of a user's subscriptions (with folders and trigger-maintained unread
// counters) and of labels: folders and item tags share the user/-/label/<name> namespace.
import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { ReaderLabelRepository } from '../repositories.ts';
import type { FeedOrigin, LabelView, SubscriptionView, UnreadCounter } from '../../model/stream.ts';

export class SqliteReaderLabelRepository implements ReaderLabelRepository {
  private readonly s: StatementCache;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
    this.s = new StatementCache(db);
  }

  async subscriptions(userId: number): Promise<SubscriptionView[]> {
    const rows = this.s
      .get(`SELECT s.id AS subscriptionId, s.feed_id AS feedId, f.url,
        coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title, f.site_url AS siteUrl, f.icon_url AS iconUrl,
        s.created_at AS createdAt, s.unread_count AS unreadCount, s.newest_item_us AS newestItemUs
      FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = ? ORDER BY s.id`)
      .all(userId) as unknown as SubscriptionView[];
    const folders = this.foldersBySubscription(userId);
    for (const r of rows) r.folders = folders.get(r.subscriptionId) ?? [];
    return rows;
  }

  private foldersBySubscription(userId: number): Map<number, string[]> {
    const rows = this.s
      .get(`SELECT sl.subscription_id AS sid, l.name FROM labels l
        JOIN subscription_labels sl ON sl.label_id = l.id WHERE l.user_id = ? ORDER BY l.name`)
      .all(userId) as { sid: number; name: string }[];
    const out = new Map<number, string[]>();
    for (const r of rows) {
      const list = out.get(r.sid);
      if (list) list.push(r.name);
      else out.set(r.sid, [r.name]);
    }
    return out;
  }

  /**
   * Origins of the given feeds for this user: subscription title and folders, or the bare feed for
   * items kept after unsubscribing (starred). A page of 1,000 items spans most feeds: then one
   * scan of the user's subscriptions is cheaper than a lookup per feed.
   */
  async origins(userId: number, feedIds: number[]): Promise<Map<number, FeedOrigin>> {
    const out = new Map<number, FeedOrigin>();
    if (!feedIds.length) return out;
    const many = feedIds.length > 64;
    // CROSS JOIN: the given feeds drive the join whether or not statistics exist (see statesByIds).
    const rows = (many
      ? this.s
          .get(`SELECT s.id AS sid, s.feed_id AS feedId, f.url, coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title,
          f.site_url AS siteUrl FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = ?`)
          .all(userId)
      : this.s
          .get(`SELECT s.id AS sid, s.feed_id AS feedId, f.url, coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title,
          f.site_url AS siteUrl FROM json_each(?) j CROSS JOIN subscriptions s ON s.user_id = ? AND s.feed_id = j.value
          JOIN feeds f ON f.id = s.feed_id`)
          .all(JSON.stringify(feedIds), userId)) as unknown as (FeedOrigin & { sid: number })[];
    const folders = many ? this.foldersBySubscription(userId) : this.foldersOf(rows.map((r) => r.sid));
    for (const r of rows)
      out.set(r.feedId, {
        feedId: r.feedId,
        url: r.url,
        title: r.title,
        siteUrl: r.siteUrl,
        folders: folders.get(r.sid) ?? [],
      });
    const missing = feedIds.filter((id) => !out.has(id));
    if (missing.length) {
      const feeds = this.s
        .get(`SELECT f.id AS feedId, f.url, coalesce(nullif(f.title, ''), f.url) AS title, f.site_url AS siteUrl
          FROM feeds f WHERE f.id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(missing)) as unknown as FeedOrigin[];
      for (const f of feeds) out.set(f.feedId, { ...f, folders: [] });
    }
    return out;
  }

  /** Every subscription of the user as an origin (feed, title, site, folders). */
  async catalog(userId: number): Promise<FeedOrigin[]> {
    const rows = this.s
      .get(`SELECT s.id AS sid, s.feed_id AS feedId, f.url, coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title,
        f.site_url AS siteUrl FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = ? ORDER BY s.id`)
      .all(userId) as unknown as (FeedOrigin & { sid: number })[];
    const folders = this.foldersBySubscription(userId);
    return rows.map((r) => ({
      feedId: r.feedId,
      url: r.url,
      title: r.title,
      siteUrl: r.siteUrl,
      folders: folders.get(r.sid) ?? [],
    }));
  }

  async leftFeedIds(userId: number): Promise<number[]> {
    // Walks the user's distinct feeds on the (user_id, feed_id, …) index: once per catalog change.
    return (
      this.s
        .get(`SELECT DISTINCT ui.feed_id AS id FROM user_items ui WHERE ui.user_id = ?
        AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ui.user_id AND s.feed_id = ui.feed_id)`)
        .all(userId) as { id: number }[]
    ).map((r) => r.id);
  }

  async catalogVersion(): Promise<number> {
    return (this.s.get('SELECT version FROM reader_catalog_version WHERE id = 1').get() as { version: number }).version;
  }

  async unreadCountersAndCatalogVersion(
    userId: number,
  ): Promise<{ counters: UnreadCounter[]; catalogVersion: number }> {
    return { counters: await this.unreadCounters(userId), catalogVersion: await this.catalogVersion() };
  }

  async unreadCounters(userId: number): Promise<UnreadCounter[]> {
    const stmt = this.s.get(
      'SELECT feed_id, unread_count, newest_item_us FROM subscriptions WHERE user_id = ? ORDER BY id',
    );
    // Arrays, not objects: this runs on every unread-count and rows as objects cost twice as much.
    stmt.setReturnArrays(true);
    return stmt.all(userId) as unknown as UnreadCounter[];
  }

  private foldersOf(subscriptionIds: number[]): Map<number, string[]> {
    const out = new Map<number, string[]>();
    if (!subscriptionIds.length) return out;
    const rows = this.s
      .get(`SELECT sl.subscription_id AS sid, l.name FROM subscription_labels sl JOIN labels l ON l.id = sl.label_id
        WHERE sl.subscription_id IN (SELECT value FROM json_each(?)) ORDER BY l.name`)
      .all(JSON.stringify(subscriptionIds)) as { sid: number; name: string }[];
    for (const r of rows) {
      const list = out.get(r.sid);
      if (list) list.push(r.name);
      else out.set(r.sid, [r.name]);
    }
    return out;
  }

  async subscribedFeedId(userId: number, feedUrl: string): Promise<number | undefined> {
    const r = this.s
      .get(`SELECT s.feed_id AS id FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
      WHERE s.user_id = ? AND f.url = ?`)
      .get(userId, feedUrl) as { id: number } | undefined;
    return r?.id;
  }

  async labels(userId: number): Promise<LabelView[]> {
    return this.s
      .get(`SELECT l.id, l.name,
        (SELECT count(*) FROM subscription_labels sl WHERE sl.label_id = l.id) AS subscriptionCount,
        (SELECT count(*) FROM item_labels il WHERE il.label_id = l.id) AS taggedCount,
        (SELECT coalesce(sum(s.unread_count), 0) FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
          WHERE sl.label_id = l.id) AS unreadCount
      FROM labels l WHERE l.user_id = ? ORDER BY l.name`)
      .all(userId) as unknown as LabelView[];
  }

  async findLabel(userId: number, name: string): Promise<number | undefined> {
    return this.labelId(userId, name);
  }

  async countLabels(userId: number): Promise<number> {
    return Number((this.s.get('SELECT count(*) AS n FROM labels WHERE user_id = ?').get(userId) as { n: number }).n);
  }

  private labelId(userId: number, name: string): number | undefined {
    const r = this.s.get('SELECT id FROM labels WHERE user_id = ? AND name = ?').get(userId, name) as
      | { id: number }
      | undefined;
    return r?.id;
  }

  async ensureLabel(userId: number, name: string): Promise<number> {
    this.s.get('INSERT OR IGNORE INTO labels (user_id, name) VALUES (?, ?)').run(userId, name);
    return this.labelId(userId, name)!;
  }

  async folderFeedIds(userId: number, labelId: number): Promise<number[]> {
    return (
      this.s
        .get(`SELECT s.feed_id AS id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
      WHERE sl.label_id = ? AND s.user_id = ?`)
        .all(labelId, userId) as { id: number }[]
    ).map((r) => r.id);
  }

  async hasTaggedItems(labelId: number): Promise<boolean> {
    return this.s.get('SELECT 1 FROM item_labels WHERE label_id = ? LIMIT 1').get(labelId) !== undefined;
  }

  async renameLabel(userId: number, labelId: number, newName: string): Promise<void> {
    transaction(this.db, () => {
      const target = this.labelId(userId, newName);
      if (target === undefined) {
        this.s.get('UPDATE labels SET name = ? WHERE id = ? AND user_id = ?').run(newName, labelId, userId);
        return;
      }
      if (target === labelId) return;
      // The new name exists: merge into it (folder members and tagged items), then drop the old one.
      this.s
        .get(`INSERT OR IGNORE INTO subscription_labels (subscription_id, label_id)
        SELECT subscription_id, ? FROM subscription_labels WHERE label_id = ?`)
        .run(target, labelId);
      this.s
        .get(`INSERT OR IGNORE INTO item_labels (label_id, item_id, user_id)
        SELECT ?, item_id, user_id FROM item_labels WHERE label_id = ?`)
        .run(target, labelId);
      this.s.get('DELETE FROM labels WHERE id = ? AND user_id = ?').run(labelId, userId);
    });
  }

  async deleteLabel(userId: number, labelId: number): Promise<void> {
    this.s.get('DELETE FROM labels WHERE id = ? AND user_id = ?').run(labelId, userId);
  }
}
