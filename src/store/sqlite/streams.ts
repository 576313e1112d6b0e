// Per-user item streams: keyset pages over the user_items indexes (user_id, [state|feed_id],
// crawled_us, item_id), item contents by id, and the custom tags on items. Read-only.
import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { PageToRender, StreamRepository } from '../repositories.ts';
import type { ItemRefsJson, ReaderItemBody, ReaderItemState, StreamPageQuery } from '../../model/stream.ts';
import { needsSort, pageOrder, pageWhere } from './stream-filter-sql.ts';

// Pages read user_items only; bodies (a few KB each) are read separately for the items the
// serialized-body cache does not hold (src/reader-api/item-json.ts).
const STATE_COLUMNS = 'ui.item_id, ui.crawled_us, ui.feed_id, ui.read, ui.starred, ui.liked, ui.broadcast, ui.saved';

type StateRow = [number, number, number, number, number, number, number, number];
// Rows come back as arrays and are shaped here: node:sqlite's row objects (null-prototype
// dictionaries) cost about twice as much per row, which shows on every page request.
const toState = (r: StateRow): ReaderItemState => ({
  itemId: r[0],
  crawledUs: r[1],
  feedId: r[2],
  read: r[3],
  starred: r[4],
  liked: r[5],
  broadcast: r[6],
  saved: r[7],
});

export class SqliteStreamRepository implements StreamRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  /**
   * A page of refs already formatted as the Google Reader itemRefs JSON, built by SQLite: for
   * 10,000 refs, formatting in SQL costs no more than handing the rows to JavaScript, where building
   * the objects and then the string would cost as much again (measured in bench/reader.bench.ts).
   * The aggregate reads the LIMITed subquery in its ORDER BY order (a co-routine in SQLite); an
   * ORDER BY inside group_concat would sort the page a second time.
   */
  async refsJson(q: StreamPageQuery): Promise<ItemRefsJson> {
    const w = pageWhere(q);
    const sql = `SELECT group_concat('{"id":"' || item_id || '","directStreamIds":[],"timestampUsec":"' || crawled_us || '"}', ',') AS json,
        count(*) AS count FROM (SELECT ui.item_id, ui.crawled_us FROM user_items ui WHERE ${w.sql} ${pageOrder(q)} LIMIT ?)`;
    const r = this.s.get(sql).get(...w.params, q.limit) as { json: string | null; count: number };
    return { json: r.json ?? '', count: r.count };
  }

  private arrays(sql: string) {
    const st = this.s.get(sql);
    st.setReturnArrays(true);
    return st;
  }

  // Four statements back to back: each answers at once here, so combining them would save nothing.
  // The versions are read after the page: a change in between only makes the caller reload.
  async pageToRender(q: StreamPageQuery): Promise<PageToRender> {
    return this.toRender(q.userId, await this.statesPage(q));
  }

  async byIdsToRender(userId: number, itemIds: number[]): Promise<PageToRender> {
    return this.toRender(userId, await this.statesByIds(userId, itemIds));
  }

  private async toRender(userId: number, items: ReaderItemState[]): Promise<PageToRender> {
    return {
      items,
      tags: await this.tagsOfItems(
        userId,
        items.map((i) => i.itemId),
      ),
      itemsVersion: await this.itemsVersion(),
      catalogVersion: (
        this.s.get('SELECT version FROM reader_catalog_version WHERE id = 1').get() as { version: number }
      ).version,
    };
  }

  async statesPage(q: StreamPageQuery): Promise<ReaderItemState[]> {
    const w = pageWhere(q);
    // When no index yields the order (a folder: several feeds; tags; unions), SQLite sorts every
    // matching row: pick the page's ids from the covering index first, then read the flags of those
    // rows only (3x faster on a 50-feed folder than sorting whole rows).
    const sql = needsSort(q.where)
      ? `SELECT p.item_id, p.crawled_us, ui.feed_id, ui.read, ui.starred, ui.liked, ui.broadcast, ui.saved
        FROM (SELECT ui.item_id, ui.crawled_us FROM user_items ui WHERE ${w.sql} ${pageOrder(q)} LIMIT ?) p
        JOIN user_items ui ON ui.user_id = ? AND ui.item_id = p.item_id
        ${pageOrder(q).replaceAll('ui.', 'p.')}`
      : `SELECT ${STATE_COLUMNS} FROM user_items ui WHERE ${w.sql} ${pageOrder(q)} LIMIT ?`;
    const params = needsSort(q.where) ? [...w.params, q.limit, q.userId] : [...w.params, q.limit];
    return (this.arrays(sql).all(...params) as unknown as StateRow[]).map(toState);
  }

  async statesByIds(userId: number, itemIds: number[]): Promise<ReaderItemState[]> {
    if (!itemIds.length) return [];
    // json_each keeps the caller's order; user_items is the gate: only the user's own items.
    // CROSS JOIN pins the loop order (ids outside, primary-key lookups inside): without statistics
    // SQLite scanned all the user's items once per id (45 ms per id at 1M items).
    return (
      this.arrays(`SELECT ${STATE_COLUMNS} FROM json_each(?) j
        CROSS JOIN user_items ui ON ui.user_id = ? AND ui.item_id = j.value ORDER BY j.key`).all(
        JSON.stringify(itemIds),
        userId,
      ) as unknown as StateRow[]
    ).map(toState);
  }

  async bodies(itemIds: number[]): Promise<ReaderItemBody[]> {
    if (!itemIds.length) return [];
    return this.s
      .get(`SELECT i.id AS itemId, i.url, i.title, i.author, i.content, i.summary, i.published_at AS publishedAt,
        i.updated_at AS updatedAt, i.enclosures
      FROM items i WHERE i.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(itemIds)) as unknown as ReaderItemBody[];
  }

  async existingItemIds(userId: number, itemIds: number[]): Promise<number[]> {
    if (!itemIds.length) return [];
    return (
      this.s
        .get('SELECT item_id AS id FROM user_items WHERE user_id = ? AND item_id IN (SELECT value FROM json_each(?))')
        .all(userId, JSON.stringify(itemIds)) as { id: number }[]
    ).map((r) => r.id);
  }

  async tagsOfItems(userId: number, itemIds: number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (!itemIds.length || !this.userHasItemTags(userId)) return out;
    const rows = this.s
      .get(`SELECT il.item_id AS itemId, l.name FROM item_labels il JOIN labels l ON l.id = il.label_id
        WHERE il.user_id = ? AND il.item_id IN (SELECT value FROM json_each(?))`)
      .all(userId, JSON.stringify(itemIds)) as { itemId: number; name: string }[];
    for (const r of rows) {
      const list = out.get(r.itemId);
      if (list) list.push(r.name);
      else out.set(r.itemId, [r.name]);
    }
    return out;
  }

  async itemsVersion(): Promise<number> {
    return (this.s.get('SELECT version FROM reader_items_version WHERE id = 1').get() as { version: number }).version;
  }

  private userHasItemTags(userId: number): boolean {
    return this.s.get('SELECT 1 FROM item_labels WHERE user_id = ? LIMIT 1').get(userId) !== undefined;
  }
}
