// The Fever API's reads over the user's items (src/fever). Item ids are items.id, the same numbers
// the Google Reader API shows in decimal, so both APIs can be used side by side on one account.
import type { Sql } from '../sql.ts';
import type { FeverItemRow, FeverRepository } from '../repositories.ts';

const ITEM_COLUMNS = `i.id, i.feed_id AS feedId, i.title, i.author, coalesce(i.content, i.summary, '') AS html, i.url,
  ui.starred AS isSaved, ui.read AS isRead, i.published_at AS createdOnTime`;

export class SqlFeverRepository implements FeverRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async setCredential(userId: number, keyMac: string, now: number): Promise<void> {
    await this.s
      .prepare(`INSERT INTO fever_credentials (user_id, key_mac, created_at) VALUES (?, ?, ?)
      ON CONFLICT (user_id) DO UPDATE SET key_mac = excluded.key_mac, created_at = excluded.created_at`)
      .run(userId, keyMac, now);
  }

  async deleteCredential(userId: number): Promise<boolean> {
    return Number((await this.s.prepare('DELETE FROM fever_credentials WHERE user_id = ?').run(userId)).changes) > 0;
  }

  async hasCredential(userId: number): Promise<boolean> {
    return (await this.s.prepare('SELECT 1 FROM fever_credentials WHERE user_id = ?').get(userId)) !== undefined;
  }

  async userIdByKeyMac(keyMac: string): Promise<number | undefined> {
    return (
      (await this.s.prepare('SELECT user_id AS id FROM fever_credentials WHERE key_mac = ?').get(keyMac)) as
        | { id: number }
        | undefined
    )?.id;
  }

  async itemsAfter(userId: number, afterId: number, limit: number): Promise<FeverItemRow[]> {
    return (await this.s
      .prepare(`SELECT ${ITEM_COLUMNS} FROM user_items ui JOIN items i ON i.id = ui.item_id
      WHERE ui.user_id = ? AND ui.item_id > ? ORDER BY ui.item_id ASC LIMIT ?`)
      .all(userId, afterId, limit)) as unknown as FeverItemRow[];
  }

  async itemsBefore(userId: number, beforeId: number, limit: number): Promise<FeverItemRow[]> {
    return (await this.s
      .prepare(`SELECT ${ITEM_COLUMNS} FROM user_items ui JOIN items i ON i.id = ui.item_id
      WHERE ui.user_id = ? AND ui.item_id < ? ORDER BY ui.item_id DESC LIMIT ?`)
      .all(userId, beforeId, limit)) as unknown as FeverItemRow[];
  }

  async itemsWithIds(userId: number, ids: number[]): Promise<FeverItemRow[]> {
    return (await this.s
      .prepare(`SELECT ${ITEM_COLUMNS} FROM user_items ui JOIN items i ON i.id = ui.item_id
      WHERE ui.user_id = ? AND ui.item_id IN (SELECT value FROM json_each(?)) ORDER BY ui.item_id ASC`)
      .all(userId, JSON.stringify(ids))) as unknown as FeverItemRow[];
  }

  async itemCount(userId: number): Promise<number> {
    return (
      (await this.s.prepare('SELECT count(*) AS n FROM user_items WHERE user_id = ?').get(userId)) as { n: number }
    ).n;
  }

  unreadItemIds(userId: number): Promise<string> {
    return this.itemIds(userId, 'read = 0');
  }

  savedItemIds(userId: number): Promise<string> {
    return this.itemIds(userId, 'starred = 1');
  }

  /** Formatted by the database: a user may have tens of thousands of unread items. */
  private async itemIds(userId: number, state: 'read = 0' | 'starred = 1'): Promise<string> {
    return (
      (await this.s
        .prepare(`SELECT coalesce(group_concat(item_id, ','), '') AS ids FROM
      (SELECT item_id FROM user_items WHERE user_id = ? AND ${state} ORDER BY item_id) x`)
        .get(userId)) as { ids: string }
    ).ids;
  }

  async lastRefreshedOn(userId: number): Promise<number> {
    return (
      (await this.s
        .prepare(`SELECT coalesce(max(f.last_success_at), 0) AS t FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
      WHERE s.user_id = ?`)
        .get(userId)) as { t: number }
    ).t;
  }

  async feedsUpdatedOn(userId: number): Promise<Map<number, number>> {
    const rows = (await this.s
      .prepare(`SELECT s.feed_id AS feedId, coalesce(f.last_success_at, 0) AS t FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
      WHERE s.user_id = ?`)
      .all(userId)) as { feedId: number; t: number }[];
    return new Map(rows.map((r) => [r.feedId, r.t]));
  }
}
