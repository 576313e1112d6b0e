// The Reader API's repositories on PostgreSQL: keyset pages over the user_items indexes, item
// bodies, tags, item state writes (one statement per call; counters follow through the statement
// triggers), and the subscription/label views.
import type { PgDatabase } from './client.ts';
import type { ItemStateRepository, PageToRender, ReaderLabelRepository, StreamRepository } from '../repositories.ts';
import type {
  FeedOrigin,
  ItemCondition,
  ItemRefsJson,
  LabelView,
  ReaderItemBody,
  ReaderItemState,
  StateColumn,
  StreamPageQuery,
  SubscriptionView,
  UnreadCounter,
} from '../../model/stream.ts';

const COLUMNS: Record<StateColumn, string> = {
  read: 'read',
  starred: 'starred',
  liked: 'liked',
  broadcast: 'broadcast',
  saved: 'saved',
};

/** A WHERE clause with numbered parameters ($1, $2 …), built for one query. */
class Where {
  readonly params: unknown[] = [];
  bind(v: unknown): string {
    this.params.push(v);
    return `$${this.params.length}`;
  }

  condition(c: ItemCondition): string {
    switch (c.kind) {
      case 'state':
        // A literal, never user text: lets the planner use the partial indexes (WHERE starred = 1).
        return `ui.${COLUMNS[c.column]} = ${c.value === 1 ? 1 : 0}`;
      case 'feeds':
        if (c.feedIds.length === 0) return c.negate ? 'TRUE' : 'FALSE';
        if (c.feedIds.length === 1) return `ui.feed_id ${c.negate ? '<>' : '='} ${this.bind(c.feedIds[0])}`;
        return c.negate
          ? `NOT (ui.feed_id = ANY(${this.bind(c.feedIds)}::bigint[]))`
          : `ui.feed_id = ANY(${this.bind(c.feedIds)}::bigint[])`;
      case 'tagged':
        return `ui.item_id ${c.negate ? 'NOT IN' : 'IN'} (SELECT item_id FROM item_labels WHERE label_id = ${this.bind(c.labelId)})`;
      case 'any':
        if (c.of.length === 0) return 'FALSE';
        return '(' + c.of.map((and) => '(' + this.conjunction(and) + ')').join(' OR ') + ')';
      case 'nothing':
        return 'FALSE';
    }
  }

  conjunction(conds: ItemCondition[]): string {
    return conds.length ? conds.map((c) => this.condition(c)).join(' AND ') : 'TRUE';
  }

  /** User, filter, crawl window and keyset position of a page. */
  page(q: StreamPageQuery): string {
    const parts = [`ui.user_id = ${this.bind(q.userId)}`];
    if (q.where.length) parts.push(this.conjunction(q.where));
    if (q.minCrawledUs !== undefined) parts.push(`ui.crawled_us >= ${this.bind(q.minCrawledUs)}`);
    if (q.maxCrawledUs !== undefined) parts.push(`ui.crawled_us <= ${this.bind(q.maxCrawledUs)}`);
    if (q.after)
      parts.push(
        `(ui.crawled_us, ui.item_id) ${q.newestFirst ? '<' : '>'} (${this.bind(q.after.crawledUs)}, ${this.bind(q.after.itemId)})`,
      );
    return parts.join(' AND ');
  }
}

const pageOrder = (q: StreamPageQuery, alias = 'ui') => {
  const dir = q.newestFirst ? 'DESC' : 'ASC';
  return `ORDER BY ${alias}.crawled_us ${dir}, ${alias}.item_id ${dir}`;
};

type StateRow = [number, number, number, number, number, number, number, number];
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
const STATE_COLUMNS = 'ui.item_id, ui.crawled_us, ui.feed_id, ui.read, ui.starred, ui.liked, ui.broadcast, ui.saved';

/** The one-row head of a page to render: both versions, and whether the user tagged any item at all. */
const RENDER_HEAD = `(SELECT (SELECT version FROM reader_items_version WHERE id = 1) AS iv,
  (SELECT version FROM reader_catalog_version WHERE id = 1) AS cv,
  EXISTS (SELECT 1 FROM item_labels WHERE user_id = $1) AS tagged) h`;
/** An item's tags, looked up only for users who tag (most never do: then it costs nothing). */
const RENDER_TAGS = `CASE WHEN h.tagged THEN (SELECT array_agg(l.name) FROM item_labels il JOIN labels l ON l.id = il.label_id
  WHERE il.user_id = $1 AND il.item_id = p.item_id) END`;
type RenderRow = [number, number, ...StateRow, string[] | null];

function toRender(rows: RenderRow[]): PageToRender {
  const items: ReaderItemState[] = [];
  const tags = new Map<number, string[]>();
  for (const r of rows) {
    if (r[2] === null) continue; // the head alone: an empty page
    items.push({
      itemId: r[2],
      crawledUs: r[3],
      feedId: r[4],
      read: r[5],
      starred: r[6],
      liked: r[7],
      broadcast: r[8],
      saved: r[9],
    });
    if (r[10]) tags.set(r[2], r[10]);
  }
  return { items, tags, itemsVersion: rows[0]![0], catalogVersion: rows[0]![1] };
}

export class PgStreamRepository implements StreamRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  /**
   * The page, each item's tags and both versions in one statement: the head row (versions) joined
   * with the keyset page, so a 20-item page costs one round trip instead of four.
   */
  async pageToRender(q: StreamPageQuery): Promise<PageToRender> {
    const w = new Where();
    const where = w.page(q); // binds the user first: $1
    const limit = w.bind(q.limit);
    return toRender(
      await this.db.arrays<RenderRow>(
        `SELECT h.iv, h.cv, ${STATE_COLUMNS.replaceAll('ui.', 'p.')}, ${RENDER_TAGS}
        FROM ${RENDER_HEAD} LEFT JOIN LATERAL
        (SELECT ${STATE_COLUMNS} FROM user_items ui WHERE ${where} ${pageOrder(q)} LIMIT ${limit}) p ON TRUE
        ${pageOrder(q, 'p')}`,
        w.params,
      ),
    );
  }

  async byIdsToRender(userId: number, itemIds: number[]): Promise<PageToRender> {
    return toRender(
      await this.db.arrays<RenderRow>(
        `SELECT h.iv, h.cv, ${STATE_COLUMNS.replaceAll('ui.', 'p.')}, ${RENDER_TAGS}
        FROM ${RENDER_HEAD} LEFT JOIN LATERAL
        (SELECT ${STATE_COLUMNS}, j.ord FROM unnest($2::bigint[]) WITH ORDINALITY AS j(id, ord)
          JOIN user_items ui ON ui.user_id = $1 AND ui.item_id = j.id) p ON TRUE
        ORDER BY p.ord`,
        [userId, itemIds],
      ),
    );
  }

  /**
   * Formatted by the server (cheaper than parsing 10,000 rows in JavaScript, measured). The
   * aggregate reads the LIMITed subquery in its order: a plain aggregate over a Limit node has no
   * other input order (a Limit is never below a parallel Gather), and an ORDER BY inside
   * string_agg would sort the page again (30 % of the call at 10,000 refs). backends.test.ts
   * checks the order.
   */
  async refsJson(q: StreamPageQuery): Promise<ItemRefsJson> {
    const w = new Where();
    const where = w.page(q);
    const limit = w.bind(q.limit);
    const r = await this.db.row<{ json: string | null; count: number }>(
      `SELECT string_agg('{"id":"' || p.item_id || '","directStreamIds":[],"timestampUsec":"' || p.crawled_us || '"}', ',') AS json,
        count(*) AS count FROM (SELECT ui.item_id, ui.crawled_us FROM user_items ui WHERE ${where} ${pageOrder(q)} LIMIT ${limit}) p`,
      w.params,
    );
    return { json: r?.json ?? '', count: r?.count ?? 0 };
  }

  async statesPage(q: StreamPageQuery): Promise<ReaderItemState[]> {
    const w = new Where();
    const where = w.page(q);
    const limit = w.bind(q.limit);
    return (
      await this.db.arrays<StateRow>(
        `SELECT ${STATE_COLUMNS} FROM user_items ui WHERE ${where} ${pageOrder(q)} LIMIT ${limit}`,
        w.params,
      )
    ).map(toState);
  }

  async statesByIds(userId: number, itemIds: number[]): Promise<ReaderItemState[]> {
    if (!itemIds.length) return [];
    // The caller's order; user_items is the gate: only the user's own items.
    return (
      await this.db.arrays<StateRow>(
        `SELECT ${STATE_COLUMNS} FROM unnest($1::bigint[]) WITH ORDINALITY AS j(id, ord)
        JOIN user_items ui ON ui.user_id = $2 AND ui.item_id = j.id ORDER BY j.ord`,
        [itemIds, userId],
      )
    ).map(toState);
  }

  bodies(itemIds: number[]): Promise<ReaderItemBody[]> {
    if (!itemIds.length) return Promise.resolve([]);
    return this.db.rows<ReaderItemBody>(
      `SELECT i.id AS "itemId", i.url, i.title, i.author, i.content, i.summary, i.published_at AS "publishedAt",
        i.updated_at AS "updatedAt", i.crawled_us AS "crawledUs", i.enclosures FROM items i WHERE i.id = ANY($1::bigint[])`,
      [itemIds],
    );
  }

  async existingItemIds(userId: number, itemIds: number[]): Promise<number[]> {
    if (!itemIds.length) return [];
    return (
      await this.db.rows<{ id: number }>(
        'SELECT item_id AS id FROM user_items WHERE user_id = $1 AND item_id = ANY($2::bigint[])',
        [userId, itemIds],
      )
    ).map((r) => r.id);
  }

  async tagsOfItems(userId: number, itemIds: number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (!itemIds.length) return out;
    const rows = await this.db.rows<{ itemId: number; name: string }>(
      `SELECT il.item_id AS "itemId", l.name FROM item_labels il JOIN labels l ON l.id = il.label_id
        WHERE il.user_id = $1 AND il.item_id = ANY($2::bigint[])`,
      [userId, itemIds],
    );
    for (const r of rows) {
      const list = out.get(r.itemId);
      if (list) list.push(r.name);
      else out.set(r.itemId, [r.name]);
    }
    return out;
  }

  async itemsVersion(): Promise<number> {
    return (await this.db.row<{ version: number }>('SELECT version FROM reader_items_version WHERE id = 1'))!.version;
  }
}

export class PgItemStateRepository implements ItemStateRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  setState(userId: number, column: StateColumn, value: 0 | 1, itemIds: number[]): Promise<number> {
    const col = COLUMNS[column];
    const v = value === 1 ? 1 : 0;
    return this.db.changes(
      `UPDATE user_items SET ${col} = ${v} WHERE user_id = $1 AND item_id = ANY($2::bigint[]) AND ${col} <> ${v}`,
      [userId, itemIds],
    );
  }

  tagItems(userId: number, labelId: number, itemIds: number[]): Promise<number> {
    // Only the user's own items can carry the user's tags.
    return this.db.changes(
      `INSERT INTO item_labels (label_id, item_id, user_id)
      SELECT $1, item_id, user_id FROM user_items WHERE user_id = $2 AND item_id = ANY($3::bigint[]) ON CONFLICT DO NOTHING`,
      [labelId, userId, itemIds],
    );
  }

  untagItems(userId: number, labelId: number, itemIds: number[]): Promise<number> {
    return this.db.changes(
      'DELETE FROM item_labels WHERE label_id = $1 AND user_id = $2 AND item_id = ANY($3::bigint[])',
      [labelId, userId, itemIds],
    );
  }

  markAllRead(userId: number, where: ItemCondition[], maxCrawledUs: number): Promise<number> {
    const w = new Where();
    const user = w.bind(userId);
    const cond = where.length ? ` AND ${w.conjunction(where)}` : '';
    const max = w.bind(maxCrawledUs);
    return this.db.changes(
      `UPDATE user_items AS ui SET read = 1 WHERE ui.user_id = ${user}${cond} AND ui.read = 0 AND ui.crawled_us <= ${max}`,
      w.params,
    );
  }
}

export class PgReaderLabelRepository implements ReaderLabelRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
  }

  async subscriptions(userId: number): Promise<SubscriptionView[]> {
    const rows = await this.db.rows<SubscriptionView>(
      `SELECT s.id AS "subscriptionId", s.feed_id AS "feedId", f.url,
        coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title, f.site_url AS "siteUrl", f.icon_url AS "iconUrl",
        s.created_at AS "createdAt", s.unread_count AS "unreadCount", s.newest_item_us AS "newestItemUs"
      FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = $1 ORDER BY s.id`,
      [userId],
    );
    const folders = await this.foldersBySubscription(userId);
    for (const r of rows) r.folders = folders.get(r.subscriptionId) ?? [];
    return rows;
  }

  private async foldersBySubscription(userId: number): Promise<Map<number, string[]>> {
    const rows = await this.db.rows<{ sid: number; name: string }>(
      `SELECT sl.subscription_id AS sid, l.name FROM labels l
        JOIN subscription_labels sl ON sl.label_id = l.id WHERE l.user_id = $1 ORDER BY l.name`,
      [userId],
    );
    return groupNames(rows);
  }

  async origins(userId: number, feedIds: number[]): Promise<Map<number, FeedOrigin>> {
    const out = new Map<number, FeedOrigin>();
    if (!feedIds.length) return out;
    const rows = await this.db.rows<FeedOrigin & { sid: number }>(
      `SELECT s.id AS sid, s.feed_id AS "feedId", f.url,
        coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title, f.site_url AS "siteUrl"
      FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = $1 AND s.feed_id = ANY($2::bigint[])`,
      [userId, feedIds],
    );
    const folders = groupNames(
      await this.db.rows<{ sid: number; name: string }>(
        `SELECT sl.subscription_id AS sid, l.name FROM subscription_labels sl
        JOIN labels l ON l.id = sl.label_id WHERE sl.subscription_id = ANY($1::bigint[]) ORDER BY l.name`,
        [rows.map((r) => r.sid)],
      ),
    );
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
      const feeds = await this.db.rows<FeedOrigin>(
        `SELECT f.id AS "feedId", f.url, coalesce(nullif(f.title, ''), f.url) AS title, f.site_url AS "siteUrl"
          FROM feeds f WHERE f.id = ANY($1::bigint[])`,
        [missing],
      );
      for (const f of feeds) out.set(f.feedId, { ...f, folders: [] });
    }
    return out;
  }

  async catalog(userId: number): Promise<FeedOrigin[]> {
    const rows = await this.db.rows<FeedOrigin & { sid: number }>(
      `SELECT s.id AS sid, s.feed_id AS "feedId", f.url,
        coalesce(nullif(s.title, ''), nullif(f.title, ''), f.url) AS title, f.site_url AS "siteUrl"
      FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = $1 ORDER BY s.id`,
      [userId],
    );
    const folders = await this.foldersBySubscription(userId);
    return rows.map((r) => ({
      feedId: r.feedId,
      url: r.url,
      title: r.title,
      siteUrl: r.siteUrl,
      folders: folders.get(r.sid) ?? [],
    }));
  }

  async leftFeedIds(userId: number): Promise<number[]> {
    return (
      await this.db.rows<{ id: number }>(
        `SELECT DISTINCT ui.feed_id AS id FROM user_items ui WHERE ui.user_id = $1
        AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ui.user_id AND s.feed_id = ui.feed_id)`,
        [userId],
      )
    ).map((r) => r.id);
  }

  async catalogVersion(): Promise<number> {
    return (await this.db.row<{ version: number }>('SELECT version FROM reader_catalog_version WHERE id = 1'))!.version;
  }

  async unreadCountersAndCatalogVersion(
    userId: number,
  ): Promise<{ counters: UnreadCounter[]; catalogVersion: number }> {
    const rows = await this.db.arrays<[number, number | null, number, number]>(
      `SELECT v.version, s.feed_id, s.unread_count, s.newest_item_us FROM reader_catalog_version v
      LEFT JOIN subscriptions s ON s.user_id = $1 WHERE v.id = 1 ORDER BY s.id`,
      [userId],
    );
    const counters: UnreadCounter[] = [];
    for (const r of rows) if (r[1] !== null) counters.push([r[1], r[2], r[3]]);
    return { counters, catalogVersion: rows[0]![0] };
  }

  unreadCounters(userId: number): Promise<UnreadCounter[]> {
    return this.db.arrays<UnreadCounter>(
      'SELECT feed_id, unread_count, newest_item_us FROM subscriptions WHERE user_id = $1 ORDER BY id',
      [userId],
    );
  }

  async subscribedFeedId(userId: number, feedUrl: string): Promise<number | undefined> {
    return (
      await this.db.row<{ id: number }>(
        `SELECT s.feed_id AS id FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
      WHERE s.user_id = $1 AND f.url = $2`,
        [userId, feedUrl],
      )
    )?.id;
  }

  labels(userId: number): Promise<LabelView[]> {
    return this.db.rows<LabelView>(
      `SELECT l.id, l.name,
        (SELECT count(*) FROM subscription_labels sl WHERE sl.label_id = l.id) AS "subscriptionCount",
        (SELECT count(*) FROM item_labels il WHERE il.label_id = l.id) AS "taggedCount",
        (SELECT coalesce(sum(s.unread_count), 0) FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
          WHERE sl.label_id = l.id) AS "unreadCount"
      FROM labels l WHERE l.user_id = $1 ORDER BY l.name`,
      [userId],
    );
  }

  async findLabel(userId: number, name: string): Promise<number | undefined> {
    return (await this.db.row<{ id: number }>('SELECT id FROM labels WHERE user_id = $1 AND name = $2', [userId, name]))
      ?.id;
  }

  async countLabels(userId: number): Promise<number> {
    return Number(
      (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM labels WHERE user_id = $1', [userId]))!.n,
    );
  }

  async ensureLabel(userId: number, name: string): Promise<number> {
    await this.db.query('INSERT INTO labels (user_id, name) VALUES ($1, $2) ON CONFLICT (user_id, name) DO NOTHING', [
      userId,
      name,
    ]);
    return (await this.findLabel(userId, name))!;
  }

  async folderFeedIds(userId: number, labelId: number): Promise<number[]> {
    return (
      await this.db.rows<{ id: number }>(
        `SELECT s.feed_id AS id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
      WHERE sl.label_id = $1 AND s.user_id = $2`,
        [labelId, userId],
      )
    ).map((r) => r.id);
  }

  async hasTaggedItems(labelId: number): Promise<boolean> {
    return (await this.db.row('SELECT 1 FROM item_labels WHERE label_id = $1 LIMIT 1', [labelId])) !== undefined;
  }

  renameLabel(userId: number, labelId: number, newName: string): Promise<void> {
    return this.db.transaction(async () => {
      const target = await this.findLabel(userId, newName);
      if (target === undefined) {
        await this.db.query('UPDATE labels SET name = $1 WHERE id = $2 AND user_id = $3', [newName, labelId, userId]);
        return;
      }
      if (target === labelId) return;
      // The new name exists: merge into it (folder members and tagged items), then drop the old one.
      await this.db.query(
        `INSERT INTO subscription_labels (subscription_id, label_id)
        SELECT subscription_id, $1 FROM subscription_labels WHERE label_id = $2 ON CONFLICT DO NOTHING`,
        [target, labelId],
      );
      await this.db.query(
        `INSERT INTO item_labels (label_id, item_id, user_id)
        SELECT $1, item_id, user_id FROM item_labels WHERE label_id = $2 ON CONFLICT DO NOTHING`,
        [target, labelId],
      );
      await this.db.query('DELETE FROM labels WHERE id = $1 AND user_id = $2', [labelId, userId]);
    });
  }

  async deleteLabel(userId: number, labelId: number): Promise<void> {
    await this.db.query('DELETE FROM labels WHERE id = $1 AND user_id = $2', [labelId, userId]);
  }
}

function groupNames(rows: { sid: number; name: string }[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const r of rows) {
    const list = out.get(r.sid);
    if (list) list.push(r.name);
    else out.set(r.sid, [r.name]);
  }
  return out;
}
