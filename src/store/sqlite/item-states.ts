// Per-user item state writes: read/starred/liked/broadcast/saved flags and custom tags on items.
// One statement per chunk of ids (json_each), so marking 1,000 items is one UPDATE; unread
// counters follow through the user_items triggers in the same transaction.
import type { Db } from './db.ts';
import { StatementCache, transaction } from './db.ts';
import type { ItemStateRepository } from '../repositories.ts';
import type { ItemCondition, StateColumn } from '../../model/stream.ts';
import { filterWhere } from './stream-filter-sql.ts';

const COLUMNS: Record<StateColumn, string> = {
  read: 'read',
  starred: 'starred',
  liked: 'liked',
  broadcast: 'broadcast',
  saved: 'saved',
};
/** Ids bound per statement: one JSON text each, far below SQLite's limits. */
const CHUNK = 5000;

function chunks<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

export class SqliteItemStateRepository implements ItemStateRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async setState(userId: number, column: StateColumn, value: 0 | 1, itemIds: number[]): Promise<number> {
    const col = COLUMNS[column];
    const v = value === 1 ? 1 : 0;
    const stmt = this.s.get(`UPDATE user_items SET ${col} = ${v}
      WHERE user_id = ? AND item_id IN (SELECT value FROM json_each(?)) AND ${col} <> ${v}`);
    // Several chunks: one transaction, so a call is all or nothing (callers may not wrap it).
    return transaction(this.s.db, () => {
      let changed = 0;
      for (const c of chunks(itemIds)) changed += Number(stmt.run(userId, JSON.stringify(c)).changes);
      return changed;
    });
  }

  async tagItems(userId: number, labelId: number, itemIds: number[]): Promise<number> {
    // Only the user's own items can carry the user's tags.
    const stmt = this.s.get(`INSERT OR IGNORE INTO item_labels (label_id, item_id, user_id)
      SELECT ?, item_id, user_id FROM user_items WHERE user_id = ? AND item_id IN (SELECT value FROM json_each(?))`);
    return transaction(this.s.db, () => {
      let changed = 0;
      for (const c of chunks(itemIds)) changed += Number(stmt.run(labelId, userId, JSON.stringify(c)).changes);
      return changed;
    });
  }

  async untagItems(userId: number, labelId: number, itemIds: number[]): Promise<number> {
    const stmt = this.s.get(`DELETE FROM item_labels
      WHERE label_id = ? AND user_id = ? AND item_id IN (SELECT value FROM json_each(?))`);
    return transaction(this.s.db, () => {
      let changed = 0;
      for (const c of chunks(itemIds)) changed += Number(stmt.run(labelId, userId, JSON.stringify(c)).changes);
      return changed;
    });
  }

  async markAllRead(userId: number, where: ItemCondition[], maxCrawledUs: number): Promise<number> {
    const w = filterWhere(userId, where);
    const sql = `UPDATE user_items AS ui SET read = 1 WHERE ${w.sql} AND ui.read = 0 AND ui.crawled_us <= ?`;
    return Number(this.s.get(sql).run(...w.params, maxCrawledUs).changes);
  }
}
