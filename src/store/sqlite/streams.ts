// Per-user item streams: keyset pages over the user_items indexes (user_id, [state|feed_id],
// crawled_us, item_id), item contents by id, and the custom tags on items. Read-only.
import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { PageToRender, StreamRepository } from '../repositories.ts';
import type { ItemRefsJson, ReaderItemBody, ReaderItemState, StreamPageQuery } from '../../model/stream.ts';
import { needsSort, pageOrder, pageWhere } from './stream-filter-sql.ts';

// Pages read user_items only; bodies (a few KB each) are read separately for the items the
// serialized-body cache does not hold (src/reader-api/item-json.ts).
// The five flags come back as one bit mask: each column node:sqlite hands to JavaScript costs
// about as much as a B-tree step of the row (a 150-id call read 8 columns a row). (SQLite gives
// << and | the same precedence: hence the parentheses.)
const FLAGS = (t: string) =>
  `(${t}.read | (${t}.starred << 1) | (${t}.liked << 2) | (${t}.broadcast << 3) | (${t}.saved << 4))`;
const STATE_COLUMNS = `ui.item_id, ui.crawled_us, ui.feed_id, ${FLAGS('ui')}`;

type StateRow = [number, number, number, number];
// Rows come back as arrays and are shaped here: node:sqlite's row objects (null-prototype
// dictionaries) cost about twice as much per row, which shows on every page request.
const toState = (r: StateRow): ReaderItemState => {
  const m = r[3];
  return {
    itemId: r[0],
    crawledUs: r[1],
    feedId: r[2],
    read: m & 1,
    starred: (m >> 1) & 1,
    liked: (m >> 2) & 1,
    broadcast: (m >> 3) & 1,
    saved: (m >> 4) & 1,
  };
};

/**
 * States from `<item id>,<crawl µs>,<feed id>,<flags>,…` as SQLite's group_concat writes them: one
 * string instead of an array and a boxed crawl time per row (a 150-id call allocated 33 KB for its
 * rows, more than the rest of the read), read digit by digit (every value is a non-negative integer
 * below 2^53).
 */
function statesFromText(text: string | null): ReaderItemState[] {
  const out: ReaderItemState[] = [];
  if (!text) return out;
  const v = [0, 0, 0, 0];
  let field = 0;
  let n = 0;
  for (let k = 0; k <= text.length; k++) {
    const c = k < text.length ? text.charCodeAt(k) : 44;
    if (c !== 44) {
      n = n * 10 + (c - 48);
      continue;
    }
    v[field++] = n;
    n = 0;
    if (field === 4) {
      const m = v[3]!;
      out.push({
        itemId: v[0]!,
        crawledUs: v[1]!,
        feedId: v[2]!,
        read: m & 1,
        starred: (m >> 1) & 1,
        liked: (m >> 2) & 1,
        broadcast: (m >> 3) & 1,
        saved: (m >> 4) & 1,
      });
      field = 0;
    }
  }
  return out;
}
const STATES_TEXT = `ui.item_id || ',' || ui.crawled_us || ',' || ui.feed_id || ',' || ${FLAGS('ui')}`;

/**
 * The states of `ids` in the order of `ids` (each id at most once). The id-list join yields them
 * in that order (the list is the outer loop of the plan), so this only checks it, in one pass;
 * were a plan ever to return them otherwise, they are put back in order here. ORDER BY on the
 * list's position made SQLite sort the rows in a temporary B-tree: a sixth of the read.
 */
function inOrderOf(ids: number[], states: ReaderItemState[]): ReaderItemState[] {
  let j = 0;
  for (const s of states) {
    while (j < ids.length && ids[j] !== s.itemId) j++;
    if (j === ids.length) {
      const at = new Map(ids.map((id, k) => [id, k]));
      return states.sort((a, b) => at.get(a.itemId)! - at.get(b.itemId)!);
    }
    j++;
  }
  return states;
}

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

  // The page, then the versions and whether the user tagged any item in one statement (three
  // statements had cost 3x as much), then the tags only when there are some. The versions are
  // read after the page: a change in between only makes the caller reload.
  async pageToRender(q: StreamPageQuery): Promise<PageToRender> {
    return this.toRender(q.userId, await this.statesPage(q));
  }

  async byIdsToRender(userId: number, itemIds: number[]): Promise<PageToRender> {
    return this.toRender(userId, await this.statesByIds(userId, itemIds));
  }

  private async toRender(userId: number, items: ReaderItemState[]): Promise<PageToRender> {
    const [itemsVersion, catalogVersion, tagged] = this.arrays(
      `SELECT (SELECT version FROM reader_items_version WHERE id = 1),
        (SELECT version FROM reader_catalog_version WHERE id = 1),
        EXISTS (SELECT 1 FROM item_labels WHERE user_id = ?)`,
    ).get(userId) as unknown as [number, number, number];
    return {
      items,
      tags:
        tagged && items.length
          ? this.tagsOf(
              userId,
              items.map((i) => i.itemId),
            )
          : new Map(),
      itemsVersion,
      catalogVersion,
    };
  }

  async statesPage(q: StreamPageQuery): Promise<ReaderItemState[]> {
    const w = pageWhere(q);
    // When no index yields the order (a folder: several feeds; tags; unions), SQLite sorts every
    // matching row: pick the page's ids from the covering index first, then read the flags of those
    // rows only (3x faster on a 50-feed folder than sorting whole rows).
    const sql = needsSort(q.where)
      ? `SELECT p.item_id, p.crawled_us, ui.feed_id, ${FLAGS('ui')}
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
    const [text] = this.arrays(`SELECT group_concat(${STATES_TEXT}) FROM json_each(?) j
        CROSS JOIN user_items ui ON ui.user_id = ? AND ui.item_id = j.value`).get(
      JSON.stringify(itemIds),
      userId,
    ) as unknown as [string | null];
    return inOrderOf(itemIds, statesFromText(text));
  }

  async bodies(itemIds: number[]): Promise<ReaderItemBody[]> {
    if (!itemIds.length) return [];
    return this.s
      .get(`SELECT i.id AS itemId, i.url, i.title, i.author, i.content, i.summary, i.published_at AS publishedAt,
        i.updated_at AS updatedAt, i.crawled_us AS crawledUs, i.enclosures
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
    if (!itemIds.length || !this.userHasItemTags(userId)) return new Map();
    return this.tagsOf(userId, itemIds);
  }

  private tagsOf(userId: number, itemIds: number[]): Map<number, string[]> {
    const out = new Map<number, string[]>();
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
