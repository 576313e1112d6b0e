// Query builder for the hard queries: turns an item filter into a WHERE clause over user_items
// (alias `ui`). Kept apart from the repositories' plain statements. State values are inlined as
// literals (never user text) so SQLite can pick the partial indexes (`WHERE starred = 1`); every
// other value is bound. The generated SQL depends only on the filter's shape, so the statement
// cache stays small and each shape is prepared once.
import type { ItemCondition, StateColumn, StreamPageQuery } from '../../model/stream.ts';

const COLUMNS: Record<StateColumn, string> = {
  read: 'read',
  starred: 'starred',
  liked: 'liked',
  broadcast: 'broadcast',
  saved: 'saved',
};

export interface SqlPart {
  sql: string;
  params: (number | string)[];
}

function condition(c: ItemCondition, params: (number | string)[]): string {
  switch (c.kind) {
    case 'state':
      return `ui.${COLUMNS[c.column]} = ${c.value === 1 ? 1 : 0}`;
    case 'feeds':
      if (c.feedIds.length === 0) return c.negate ? '1' : '0';
      if (c.feedIds.length === 1) {
        params.push(c.feedIds[0]);
        return c.negate ? 'ui.feed_id <> ?' : 'ui.feed_id = ?';
      }
      params.push(JSON.stringify(c.feedIds));
      return `ui.feed_id ${c.negate ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(?))`;
    case 'tagged':
      params.push(c.labelId);
      return `ui.item_id ${c.negate ? 'NOT IN' : 'IN'} (SELECT item_id FROM item_labels WHERE label_id = ?)`;
    case 'any':
      if (c.of.length === 0) return '0';
      return '(' + c.of.map((and) => '(' + conjunction(and, params) + ')').join(' OR ') + ')';
    case 'nothing':
      return '0';
  }
}

function conjunction(conds: ItemCondition[], params: (number | string)[]): string {
  return conds.length ? conds.map((c) => condition(c, params)).join(' AND ') : '1';
}

/** WHERE clause (without the keyword) for a page query: user, filter, crawl window, keyset. */
export function pageWhere(q: StreamPageQuery): SqlPart {
  const params: (number | string)[] = [q.userId];
  const parts = ['ui.user_id = ?'];
  if (q.where.length) parts.push(conjunction(q.where, params));
  if (q.minCrawledUs !== undefined) {
    parts.push('ui.crawled_us >= ?');
    params.push(q.minCrawledUs);
  }
  if (q.maxCrawledUs !== undefined) {
    parts.push('ui.crawled_us <= ?');
    params.push(q.maxCrawledUs);
  }
  if (q.after) {
    parts.push(`(ui.crawled_us, ui.item_id) ${q.newestFirst ? '<' : '>'} (?, ?)`);
    params.push(q.after.crawledUs, q.after.itemId);
  }
  return { sql: parts.join(' AND '), params };
}

/** True when no index gives the crawl order: several feeds, tagged items, or a union. */
export function needsSort(where: ItemCondition[]): boolean {
  return where.some(
    (c) =>
      (c.kind === 'feeds' && !c.negate && c.feedIds.length > 1) ||
      (c.kind === 'tagged' && !c.negate) ||
      c.kind === 'any',
  );
}

export function pageOrder(q: StreamPageQuery): string {
  const dir = q.newestFirst ? 'DESC' : 'ASC';
  return `ORDER BY ui.crawled_us ${dir}, ui.item_id ${dir}`;
}

/** WHERE clause for bulk updates (mark-all-as-read): user, filter, crawl time up to a bound. */
export function filterWhere(userId: number, where: ItemCondition[]): SqlPart {
  const params: (number | string)[] = [userId];
  const sql = where.length ? `ui.user_id = ? AND ${conjunction(where, params)}` : 'ui.user_id = ?';
  return { sql, params };
}
