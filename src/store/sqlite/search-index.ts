// SQLite side of the search index (schema in ./search-schema.ts): each article in
// search_articles / search_article_fts (whole text, for ranking articles) and its passages as
// text in search_passages (scored in memory for the best candidates, and for snippets).
// Filters and scope become WHERE clauses of the ranking query itself, so a filtered search still
// fills its limit.
import { StatementCache, type Db } from '../db.ts';
import type {
  ArticleMatch, IndexedItem, PassageFilter, PassageMatch, SearchArticleMeta, SearchIndexRepository, SearchItemSource,
} from '../repositories.ts';

type Param = string | number;

export class SqliteSearchIndex implements SearchIndexRepository {
  private readonly stmts: StatementCache;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
    this.stmts = new StatementCache(db);
  }

  itemSources(ids: number[]): SearchItemSource[] {
    if (!ids.length) return [];
    return this.stmts.get(`
      SELECT i.id, i.feed_id AS feedId, i.url, i.title, i.content, i.summary,
             i.published_at AS publishedAt, i.updated_at AS updatedAt,
             f.url AS feedUrl, f.site_url AS feedSiteUrl
        FROM items i JOIN feeds f ON f.id = i.feed_id
       WHERE i.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as unknown as SearchItemSource[];
  }

  indexArticle(item: IndexedItem, passages: string[]): void {
    this.deleteItems([item.id]);
    if (!passages.length) return;
    this.stmts.get('INSERT INTO search_articles (item_id, feed_id, host, published_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(item.id, item.feedId, item.host, item.publishedAt, item.updatedAt);
    this.stmts.get('INSERT INTO search_article_fts (rowid, title, body) VALUES (?, ?, ?)').run(item.id, item.title, passages.join('\n'));
    const insertPassage = this.stmts.get(`
      INSERT INTO search_passages (item_id, ord, feed_id, host, published_at, updated_at, text)
      VALUES (?, ?, ?, ?, ?, ?, ?)`);
    passages.forEach((text, ord) => insertPassage.run(item.id, ord, item.feedId, item.host, item.publishedAt, item.updatedAt, text));
  }

  deleteItems(ids: number[]): void {
    if (!ids.length) return;
    const list = JSON.stringify(ids);
    this.stmts.get('DELETE FROM search_articles WHERE item_id IN (SELECT value FROM json_each(?))').run(list);
    this.stmts.get('DELETE FROM search_passages WHERE item_id IN (SELECT value FROM json_each(?))').run(list);
  }

  itemIdsAfter(afterId: number, limit: number): number[] {
    return (this.stmts.get('SELECT id FROM items WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as { id: number }[]).map((r) => r.id);
  }

  deleteAll(): void {
    this.db.exec('DELETE FROM search_passages; DELETE FROM search_articles; DELETE FROM search_article_fts;');
  }

  passageCount(): number {
    return (this.stmts.get('SELECT count(*) AS n FROM search_passages').get() as { n: number }).n;
  }

  articleCount(): number {
    return (this.stmts.get('SELECT count(*) AS n FROM search_articles').get() as { n: number }).n;
  }

  searchArticles(match: string, filter: PassageFilter, limit: number, weights: { title: number; body: number }): ArticleMatch[] {
    const where: string[] = ['search_article_fts MATCH ?'];
    const params: Param[] = [match];
    addFilterClauses(filter, where, params);
    // Without scope or filters the join to search_articles is left out: it costs one lookup per
    // matching article, and an OR query matches a large share of them before the LIMIT applies.
    const from = where.length > 1
      ? 'search_article_fts JOIN search_articles p ON p.item_id = search_article_fts.rowid'
      : 'search_article_fts';
    const sql = `
      SELECT search_article_fts.rowid AS itemId, -bm25(search_article_fts, ${+weights.title}, ${+weights.body}) AS score
        FROM ${from}
       WHERE ${where.join(' AND ')}
       ORDER BY score DESC
       LIMIT ?`;
    return this.stmts.get(sql).all(...params, limit) as unknown as ArticleMatch[];
  }

  passageTexts(itemIds: number[]): PassageMatch[] {
    if (!itemIds.length) return [];
    return this.stmts.get(`
      SELECT id AS passageId, item_id AS itemId, ord, text, 0 AS score FROM search_passages
       WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, ord`).all(JSON.stringify(itemIds)) as unknown as PassageMatch[];
  }

  articleFrequencies(words: string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (!words.length) return out;
    this.ensureTokenizer();
    // The words go through the index's own tokenizer (a connection-private FTS5 table), so the
    // lookup uses exactly the stems the index stored.
    this.stmts.get('DELETE FROM temp.search_tokenizer').run();
    const insert = this.stmts.get('INSERT INTO temp.search_tokenizer (rowid, x) VALUES (?, ?)');
    words.forEach((w, i) => insert.run(i + 1, w));
    const rows = this.stmts.get(`
      SELECT t.doc AS i, coalesce(v.doc, 0) AS df
        FROM temp.search_tokenizer_terms t LEFT JOIN temp.search_article_vocab v ON v.term = t.term`).all() as { i: number; df: number }[];
    for (const r of rows) {
      const w = words[r.i - 1]!;
      out.set(w, Math.max(out.get(w) ?? 0, r.df));
    }
    return out;
  }

  private tokenizerReady = false;
  private ensureTokenizer(): void {
    if (this.tokenizerReady) return;
    this.db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenizer USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenizer_terms USING fts5vocab(temp, search_tokenizer, 'instance');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_article_vocab USING fts5vocab(main, search_article_fts, 'row');`);
    this.tokenizerReady = true;
  }

  articles(ids: number[]): SearchArticleMeta[] {
    if (!ids.length) return [];
    return this.stmts.get(`
      SELECT i.id, coalesce(i.url, '') AS url, i.title, coalesce(f.title, f.url) AS feedTitle,
             i.published_at AS publishedAt, i.updated_at AS updatedAt, i.image_url AS imageUrl
        FROM items i JOIN feeds f ON f.id = i.feed_id
       WHERE i.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as unknown as SearchArticleMeta[];
  }

  articleText(itemId: number): { title: string; url: string; text: string } | undefined {
    const item = this.stmts.get('SELECT title, coalesce(url, \'\') AS url FROM items WHERE id = ?').get(itemId) as { title: string; url: string } | undefined;
    if (!item) return undefined;
    const parts = this.stmts.get('SELECT text FROM search_passages WHERE item_id = ? ORDER BY ord').all(itemId) as { text: string }[];
    return { title: item.title, url: item.url, text: parts.map((p) => p.text).join('\n\n') };
  }

  subscribedFeedIdByUrl(userId: number, feedUrl: string): number | undefined {
    const row = this.stmts.get(`
      SELECT s.feed_id AS id FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
       WHERE s.user_id = ? AND f.url = ?`).get(userId, feedUrl) as { id: number } | undefined;
    return row?.id;
  }

  label(userId: number, name: string): { id: number; folderFeedIds: number[] } | undefined {
    const row = this.stmts.get('SELECT id FROM labels WHERE user_id = ? AND name = ?').get(userId, name) as { id: number } | undefined;
    if (!row) return undefined;
    const feeds = this.stmts.get(`
      SELECT s.feed_id AS id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
       WHERE sl.label_id = ? AND s.user_id = ?`).all(row.id, userId) as { id: number }[];
    return { id: row.id, folderFeedIds: feeds.map((f) => f.id) };
  }
}

/** WHERE clauses over p (search_articles or search_passages: same columns) for the scope and filters. */
function addFilterClauses(f: PassageFilter, where: string[], params: Param[]): void {
  const scope = f.scope;
  if (scope.kind === 'subscriptions') {
    where.push('p.feed_id IN (SELECT feed_id FROM subscriptions WHERE user_id = ?)');
    params.push(scope.userId);
  } else if (scope.kind === 'streams') {
    const any: string[] = [];
    if (scope.feedIds.length) {
      any.push('p.feed_id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(scope.feedIds));
    }
    if (scope.taggedLabelIds.length) {
      any.push('p.item_id IN (SELECT item_id FROM item_labels WHERE user_id = ? AND label_id IN (SELECT value FROM json_each(?)))');
      params.push(scope.userId, JSON.stringify(scope.taggedLabelIds));
    }
    for (const state of scope.states) {
      const column = state === 'starred' ? 'starred' : state === 'read' ? 'read' : 'liked';
      any.push(`p.item_id IN (SELECT item_id FROM user_items WHERE user_id = ? AND ${column} = 1)`);
      params.push(scope.userId);
    }
    where.push(any.length ? `(${any.join(' OR ')})` : '0');
  }
  if (f.allowHosts?.length) {
    const parts = f.allowHosts.map((h) => {
      params.push(host(h), '.' + host(h), '.' + host(h));
      return '(p.host = ? OR substr(p.host, -length(?)) = ?)';
    });
    where.push(`(${parts.join(' OR ')})`);
  }
  if (f.denyHosts?.length) {
    for (const h of f.denyHosts) {
      params.push(host(h), '.' + host(h), '.' + host(h));
      where.push('NOT (p.host = ? OR substr(p.host, -length(?)) = ?)');
    }
  }
  const range = (column: string, op: '>=' | '<=', v: number | undefined) => {
    if (v === undefined) return;
    where.push(`p.${column} ${op} ?`);
    params.push(v);
  };
  range('published_at', '>=', f.publishedAfter);
  range('published_at', '<=', f.publishedBefore);
  range('updated_at', '>=', f.updatedAfter);
  range('updated_at', '<=', f.updatedBefore);
}

function host(h: string): string {
  return h.toLowerCase();
}
