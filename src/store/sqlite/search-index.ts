// SQLite side of the search index (schema in ../migrations/030_search_passages.ts to
// 033_search_postings.ts): each article's row in search_articles (document number, filter columns,
// field lengths), the postings of its terms in search_postings (encoded and scored by src/search:
// this file only stores bytes), and its passages as text in search_passages (scored in memory for
// the best candidates, and snippets).
import { StatementCache, type Db } from './db.ts';
import { FEED_NAME_CHARS } from '../repositories.ts';
import { articleText, collectArticleTexts } from '../rows/article-texts.ts';
import type { ChangeSignal } from '../change-signal.ts';
import type {
  ArticleText,
  BacklogEntry,
  FeedName,
  IndexedArticle,
  IndexedArticleRow,
  PassageMatch,
  PassageScope,
  SearchArticleMeta,
  SearchIndexRepository,
  SearchIndexState,
  SearchIndexStatus,
  SearchItemSource,
} from '../repositories.ts';

/**
 * Indexing appends to a term's last chunk while it stays under this size (read, append, write
 * back), then starts a new one: small enough that the rewrite stays cheap, large enough that a
 * common term's postings are a few dozen rows.
 */
const CHUNK_BYTES = 8192;

/** A row of passageTexts: id, item id, ord, text, words. */
type PassageRow = [number, number, number, string, number];

/**
 * A passage read for scoring, made by a constructor rather than an object literal: V8 moved the
 * literal's allocation site to the old generation (its objects outlive a young collection: they
 * are kept from the read to the hits and the cited texts), and every young passage text written
 * into those old objects then survived and was promoted by the next scavenge, though unreachable
 * (0.8 MB an answer; --no-allocation-site-pretenuring had the same effect). A constructor has no
 * allocation site (issue 26.4).
 */
class ReadPassage implements PassageMatch {
  passageId: number;
  itemId: number;
  ord: number;
  text: string;
  words: number;
  score = 0;
  constructor(r: PassageRow) {
    this.passageId = r[0];
    this.itemId = r[1];
    this.ord = r[2];
    this.text = r[3];
    this.words = r[4];
  }
}

export class SqliteSearchIndex implements SearchIndexRepository {
  private readonly stmts: StatementCache;
  private readonly db: Db;
  readonly changes: ChangeSignal;

  constructor(db: Db, changes: ChangeSignal) {
    this.db = db;
    this.changes = changes;
    this.stmts = new StatementCache(db);
  }

  /**
   * The passage texts and the titles and addresses of the last passageTexts and articles reads,
   * with the change signal's number taken before each: an answer reads its candidates' passages,
   * its hits' metadata, then the texts of the articles it cites, which are among them (the third
   * read was 3 % of a sonar answer's CPU at 100k items, issue 26.4). Only the last reads are kept,
   * and the passages only until the next articleTexts call.
   */
  private lastPassages: { generation: number; rows: PassageMatch[] } | undefined;
  private lastTitles: { generation: number; titles: Map<number, { title: string; url: string }> } | undefined;

  /** Whether the last articleTexts read asked the database (not when the last reads held every article). */
  lastArticleTextsAsked = false;

  async lockForWriting(): Promise<void> {
    // Nothing to do: BEGIN IMMEDIATE already made this transaction SQLite's only writer.
  }

  async lockForPassages(): Promise<void> {}

  async lockForPostings(): Promise<void> {}

  async itemSources(ids: number[]): Promise<SearchItemSource[]> {
    if (!ids.length) return [];
    return this.stmts
      .get(`
      SELECT i.id, i.feed_id AS feedId, i.url, i.title, i.content, i.summary,
             i.published_at AS publishedAt, i.updated_at AS updatedAt,
             f.url AS feedUrl, f.site_url AS feedSiteUrl
        FROM items i JOIN feeds f ON f.id = i.feed_id
       WHERE i.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as unknown as SearchItemSource[];
  }

  async indexedAmong(): Promise<Set<number> | null> {
    return null;
  }

  async reserveDocNumbers(n: number): Promise<number> {
    const row = this.stmts
      .get(
        'UPDATE search_index_state SET next_doc_no = next_doc_no + ? WHERE id = 1 RETURNING next_doc_no - ? AS first',
      )
      .get(n, n) as { first: number };
    return row.first;
  }

  async storeArticles(
    articles: { article: IndexedArticle; passages?: { text: string; words: number }[] }[],
  ): Promise<void> {
    for (const { article, passages } of articles) this.storeArticle(article, passages);
  }

  async storePassages(items: { itemId: number; passages: { text: string; words: number }[] }[]): Promise<void> {
    for (const { itemId, passages } of items) this.storeItemPassages(itemId, passages);
  }

  private storeArticle(a: IndexedArticle, passages: { text: string; words: number }[] | undefined): void {
    if (passages) this.deleteItemsNow([a.id]);
    else this.stmts.get('DELETE FROM search_articles WHERE item_id = ?').run(a.id);
    this.stmts
      .get(`INSERT INTO search_articles (item_id, doc_no, feed_id, host, published_at, updated_at, title_length, body_length, url_length)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(a.id, a.docNo, a.feedId, a.host, a.publishedAt, a.updatedAt, a.titleLength, a.bodyLength, a.urlLength);
    if (passages) this.storeItemPassages(a.id, passages, false);
  }

  private storeItemPassages(itemId: number, passages: { text: string; words: number }[], replace = true): void {
    if (replace) this.stmts.get('DELETE FROM search_passages WHERE item_id = ?').run(itemId);
    const insertPassage = this.stmts.get(`
      INSERT INTO search_passages (item_id, ord, text, words) VALUES (?, ?, ?, ?)`);
    passages.forEach((p, ord) => insertPassage.run(itemId, ord, p.text, p.words));
  }

  async appendPostings(entries: { term: string; bytes: Uint8Array; count: number }[]): Promise<void> {
    for (const e of entries) this.appendTermPostings(e.term, e.bytes, e.count);
  }

  private appendTermPostings(term: string, bytes: Uint8Array, count: number): void {
    // The bytes are appended inside SQLite (no read into JavaScript and back: this was a fifth of
    // the index build). `||` on blobs joins their bytes unchanged in a UTF-8 database (the only
    // encoding openDatabase creates), and the CAST keeps the result a blob.
    const appended = this.stmts
      .get(`
      UPDATE search_postings SET postings = postings + ?, data = CAST(data || ? AS BLOB)
       WHERE term = ? AND chunk = (SELECT max(chunk) FROM search_postings WHERE term = ?) AND length(data) + ? <= ${CHUNK_BYTES}`)
      .run(count, bytes, term, term, bytes.length);
    if (appended.changes === 0) {
      this.stmts
        .get(`INSERT INTO search_postings (term, chunk, postings, data)
        VALUES (?, coalesce((SELECT max(chunk) + 1 FROM search_postings WHERE term = ?), 0), ?, ?)`)
        .run(term, term, count, bytes);
    }
  }

  readonly chunkBytes = CHUNK_BYTES;

  async replacePostings(term: string, chunks: { bytes: Uint8Array; count: number }[]): Promise<void> {
    this.stmts.get('DELETE FROM search_postings WHERE term = ?').run(term);
    const insert = this.stmts.get('INSERT INTO search_postings (term, chunk, postings, data) VALUES (?, ?, ?, ?)');
    chunks.forEach((c, i) => insert.run(term, i, c.count, c.bytes));
  }

  async termsAfter(afterTerm: string, limit: number): Promise<string[]> {
    return (
      this.stmts
        .get('SELECT DISTINCT term FROM search_postings WHERE term > ? ORDER BY term LIMIT ?')
        .all(afterTerm, limit) as { term: string }[]
    ).map((r) => r.term);
  }

  async liveDocNumbers(): Promise<number[]> {
    return (this.stmts.get('SELECT doc_no AS d FROM search_articles').all() as { d: number }[]).map((r) => r.d);
  }

  async setCompactedRemoved(removed: number): Promise<void> {
    this.stmts.get('UPDATE search_index_state SET compacted_removed = ? WHERE id = 1').run(removed);
  }

  async postings(term: string): Promise<{ chunks: Uint8Array[]; count: number }> {
    return this.postingsNow(term);
  }

  async postingsOf(terms: string[]): Promise<Map<string, { chunks: Uint8Array[]; count: number }>> {
    // One synchronous loop (no await per term) over rows as arrays: a search's ~8 statements were
    // 0.14-0.16 ms of CPU in a loop of their own, 0.06-0.10 this way (issue 26.4).
    const out = new Map<string, { chunks: Uint8Array[]; count: number }>();
    for (const term of terms) {
      const p = this.postingsNow(term);
      if (p.count) out.set(term, p);
    }
    return out;
  }

  private postingsNow(term: string): { chunks: Uint8Array[]; count: number } {
    const st = this.stmts.get('SELECT postings, data FROM search_postings WHERE term = ? ORDER BY chunk');
    st.setReturnArrays(true);
    const rows = st.all(term) as unknown as [number, Uint8Array][];
    let count = 0;
    const chunks: Uint8Array[] = [];
    for (const r of rows) {
      count += r[0];
      chunks.push(r[1]);
    }
    return { chunks, count };
  }

  async postingCounts(terms: string[]): Promise<Map<string, number>> {
    const rows = this.stmts
      .get(`SELECT term, sum(postings) AS n FROM search_postings
      WHERE term IN (SELECT value FROM json_each(?)) GROUP BY term`)
      .all(JSON.stringify(terms)) as { term: string; n: number }[];
    return new Map(rows.map((r) => [r.term, r.n]));
  }

  async state(): Promise<SearchIndexState> {
    return this.stmts
      .get(`SELECT next_doc_no AS nextDocNo, articles, title_length AS titleLength, body_length AS bodyLength,
      url_length AS urlLength, removed, compacted_removed AS compactedRemoved, epoch, rebuild_after AS rebuildAfter, rebuild_until AS rebuildUntil,
      index_id AS indexId FROM search_index_state WHERE id = 1`)
      .get() as unknown as SearchIndexState;
  }

  async articleRows(fromDocNo: number, limit: number): Promise<IndexedArticleRow[]> {
    return this.stmts
      .get(`SELECT doc_no AS docNo, item_id AS itemId, feed_id AS feedId, host, published_at AS publishedAt,
      updated_at AS updatedAt, title_length AS titleLength, body_length AS bodyLength, url_length AS urlLength
      FROM search_articles WHERE doc_no >= ? ORDER BY doc_no LIMIT ?`)
      .all(fromDocNo, limit) as unknown as IndexedArticleRow[];
  }

  async liveDocuments(docNos: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (!docNos.length) return out;
    const rows = this.stmts
      .get('SELECT doc_no AS d, item_id AS i FROM search_articles WHERE doc_no IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(docNos)) as { d: number; i: number }[];
    for (const r of rows) out.set(r.d, r.i);
    return out;
  }

  async deleteItems(ids: number[]): Promise<void> {
    this.deleteItemsNow(ids);
  }

  private deleteItemsNow(ids: number[]): void {
    if (!ids.length) return;
    const list = JSON.stringify(ids);
    this.stmts.get('DELETE FROM search_articles WHERE item_id IN (SELECT value FROM json_each(?))').run(list);
    this.stmts.get('DELETE FROM search_passages WHERE item_id IN (SELECT value FROM json_each(?))').run(list);
  }

  async itemIdsAfter(afterId: number, limit: number, untilId = Number.MAX_SAFE_INTEGER): Promise<number[]> {
    return (
      this.stmts
        .get('SELECT id FROM items WHERE id > ? AND id <= ? ORDER BY id LIMIT ?')
        .all(afterId, untilId, limit) as { id: number }[]
    ).map((r) => r.id);
  }

  async setRebuildCursor(afterId: number | null): Promise<void> {
    if (afterId === null)
      this.stmts.get('UPDATE search_index_state SET rebuild_after = NULL, rebuild_until = NULL WHERE id = 1').run();
    else this.stmts.get('UPDATE search_index_state SET rebuild_after = ? WHERE id = 1').run(afterId);
  }

  async deleteAll(): Promise<void> {
    this.db.exec(`DELETE FROM search_passages; DELETE FROM search_articles; DELETE FROM search_postings;
      UPDATE search_index_state SET next_doc_no = 1, articles = 0, title_length = 0, body_length = 0, url_length = 0,
        removed = 0, compacted_removed = 0, epoch = epoch + 1, rebuild_after = 0, rebuild_until = (SELECT coalesce(max(id), 0) FROM items) WHERE id = 1;`);
  }

  async passageCount(): Promise<number> {
    return (this.stmts.get('SELECT count(*) AS n FROM search_passages').get() as { n: number }).n;
  }

  async articleCount(): Promise<number> {
    return (this.stmts.get('SELECT count(*) AS n FROM search_articles').get() as { n: number }).n;
  }

  async backlog(limit: number): Promise<BacklogEntry[]> {
    return this.stmts
      .get('SELECT item_id AS itemId, seq, queued_at AS queuedAt FROM search_index_backlog ORDER BY item_id LIMIT ?')
      .all(limit) as unknown as BacklogEntry[];
  }

  async backlogAfter(afterId: number, limit: number): Promise<BacklogEntry[]> {
    return this.stmts
      .get(
        'SELECT item_id AS itemId, seq, queued_at AS queuedAt FROM search_index_backlog WHERE item_id > ? ORDER BY item_id LIMIT ?',
      )
      .all(afterId, limit) as unknown as BacklogEntry[];
  }

  async removeFromBacklog(entries: BacklogEntry[]): Promise<void> {
    if (!entries.length) return;
    this.stmts
      .get(`DELETE FROM search_index_backlog WHERE (item_id, seq) IN
        (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`)
      .run(JSON.stringify(entries.map((e) => [e.itemId, e.seq])));
  }

  async hasBacklog(): Promise<boolean> {
    return this.stmts.get('SELECT 1 FROM search_index_backlog LIMIT 1').get() !== undefined;
  }

  async indexStatus(): Promise<SearchIndexStatus> {
    return this.stmts
      .get(`SELECT (SELECT count(*) FROM items) AS items, (SELECT count(*) FROM search_articles) AS articles,
        (SELECT count(*) FROM search_passages) AS passages, (SELECT count(*) FROM search_index_backlog) AS waiting,
        (SELECT min(queued_at) FROM search_index_backlog) AS oldestQueuedAt,
        -- Not indexed, not waiting, and not after a rebuild's cursor: left out for having no text.
        (SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM search_articles a WHERE a.item_id = i.id)
          AND NOT EXISTS (SELECT 1 FROM search_index_backlog b WHERE b.item_id = i.id)
          AND i.id <= coalesce((SELECT rebuild_after FROM search_index_state WHERE id = 1), i.id)) AS noText`)
      .get() as unknown as SearchIndexStatus;
  }

  async passageTexts(itemIds: number[]): Promise<PassageMatch[]> {
    this.lastPassages = undefined;
    if (!itemIds.length) return [];
    const st = this.stmts.get(`
      SELECT id, item_id, ord, text, words FROM search_passages
       WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, ord`);
    // Rows as arrays, made into objects here: ~25 % less time than the driver's named-column rows
    // for a search's ~700 passages.
    st.setReturnArrays(true);
    const generation = this.changes.generation();
    const rows = (st.all(JSON.stringify(itemIds)) as unknown as PassageRow[]).map(
      (r): PassageMatch => new ReadPassage(r),
    );
    // The rows themselves are kept (in item and ord order; nothing changes their texts), not a map
    // of texts by item built for every search: only the few cited articles are looked up.
    this.lastPassages = { generation, rows };
    return rows;
  }

  async articles(ids: number[]): Promise<SearchArticleMeta[]> {
    if (!ids.length) return [];
    // From the index of migration 180 alone: the dates and image come after the body in the row.
    const generation = this.changes.generation();
    const rows = this.stmts
      .get(`
      SELECT i.id, coalesce(i.url, '') AS url, i.title, coalesce(f.title, f.url) AS feedTitle,
             i.published_at AS publishedAt, i.updated_at AS updatedAt, i.image_url AS imageUrl
        FROM items i INDEXED BY items_search_meta JOIN feeds f ON f.id = i.feed_id
       WHERE i.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as unknown as SearchArticleMeta[];
    this.lastTitles = { generation, titles: new Map(rows.map((m) => [m.id, { title: m.title, url: m.url }])) };
    return rows;
  }

  async articleTexts(itemIds: number[]): Promise<Map<number, ArticleText>> {
    if (!itemIds.length) return new Map();
    const held = this.heldArticleTexts(itemIds);
    // The held rows serve one call (an answer's cited articles, right after its search): dropped
    // now, the search's ~700 passages are no longer live through the engine's work and into the
    // next answer, where they were more than a third of what each young collection copied.
    this.lastPassages = undefined;
    this.lastArticleTextsAsked = !held;
    if (held) return held;
    const st = this.stmts.get(`
      SELECT i.id, i.title, coalesce(i.url, ''), p.text FROM items i
        LEFT JOIN search_passages p ON p.item_id = i.id
       WHERE i.id IN (SELECT value FROM json_each(?)) ORDER BY i.id, p.ord`);
    st.setReturnArrays(true);
    const rows = st.all(JSON.stringify(itemIds)) as unknown as [number, string, string, string | null][];
    return collectArticleTexts(rows);
  }

  /**
   * articleTexts from the last passage and metadata reads, when both hold every article asked for
   * and nothing changed since either (else undefined): the same rows the query reads, in its order
   * (by id, each once), made by the same articleText as collectArticleTexts.
   */
  private heldArticleTexts(itemIds: number[]): Map<number, ArticleText> | undefined {
    const passages = this.lastPassages;
    const titles = this.lastTitles;
    if (!passages || !titles) return undefined;
    const generation = this.changes.generation();
    if (passages.generation !== generation || titles.generation !== generation) return undefined;
    const ids = [...new Set(itemIds)].sort((a, b) => a - b);
    const rows = passages.rows;
    const out = new Map<number, ArticleText>();
    for (const id of ids) {
      const meta = titles.titles.get(id);
      if (!meta) return undefined;
      // The first row of the item (rows are in item_id, ord order), then its texts in order.
      let lo = 0;
      let hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (rows[mid]!.itemId < id) lo = mid + 1;
        else hi = mid;
      }
      const texts: string[] = [];
      for (let i = lo; i < rows.length && rows[i]!.itemId === id; i++) texts.push(rows[i]!.text);
      if (!texts.length) return undefined;
      out.set(id, articleText(meta.title, meta.url, texts));
    }
    return out;
  }

  async subscribedFeedIds(userId: number): Promise<number[]> {
    return (
      this.stmts.get('SELECT feed_id AS id FROM subscriptions WHERE user_id = ?').all(userId) as { id: number }[]
    ).map((r) => r.id);
  }

  async docNosTaggedOrInState(
    userId: number,
    labelIds: number[],
    states: ('starred' | 'read' | 'liked')[],
  ): Promise<number[]> {
    const parts: string[] = [];
    const params: (string | number)[] = [];
    if (labelIds.length) {
      parts.push('SELECT item_id FROM item_labels WHERE user_id = ? AND label_id IN (SELECT value FROM json_each(?))');
      params.push(userId, JSON.stringify(labelIds));
    }
    for (const state of states) {
      const column = state === 'starred' ? 'starred' : state === 'read' ? 'read' : 'liked';
      parts.push(`SELECT item_id FROM user_items WHERE user_id = ? AND ${column} = 1`);
      params.push(userId);
    }
    if (!parts.length) return [];
    return (
      this.stmts
        .get(`SELECT doc_no AS d FROM search_articles WHERE item_id IN (${parts.join(' UNION ')})`)
        .all(...params) as { d: number }[]
    ).map((r) => r.d);
  }

  async subscribedFeedIdByUrl(userId: number, feedUrl: string): Promise<number | undefined> {
    const row = this.stmts
      .get(`
      SELECT s.feed_id AS id FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
       WHERE s.user_id = ? AND f.url = ?`)
      .get(userId, feedUrl) as { id: number } | undefined;
    return row?.id;
  }

  async label(userId: number, name: string): Promise<{ id: number; folderFeedIds: number[] } | undefined> {
    const row = this.stmts.get('SELECT id FROM labels WHERE user_id = ? AND name = ?').get(userId, name) as
      | { id: number }
      | undefined;
    if (!row) return undefined;
    const feeds = this.stmts
      .get(`
      SELECT s.feed_id AS id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
       WHERE sl.label_id = ? AND s.user_id = ?`)
      .all(row.id, userId) as { id: number }[];
    return { id: row.id, folderFeedIds: feeds.map((f) => f.id) };
  }

  async feedNames(scope: PassageScope, limit: number, afterFeedId = 0): Promise<FeedName[]> {
    if (scope.kind === 'instance')
      return this.stmts
        .get(`
        SELECT f.id AS feedId, substr(coalesce(f.title, f.url), 1, ${FEED_NAME_CHARS}) AS title,
               (SELECT CASE WHEN count(DISTINCT s.title) = 1 THEN substr(max(s.title), 1, ${FEED_NAME_CHARS}) END
                  FROM subscriptions s WHERE s.feed_id = f.id AND s.title <> '') AS userTitle
          FROM feeds f WHERE f.id > ? ORDER BY f.id LIMIT ?`)
        .all(afterFeedId, limit) as unknown as FeedName[];
    return this.stmts
      .get(`
      SELECT f.id AS feedId, substr(coalesce(f.title, f.url), 1, ${FEED_NAME_CHARS}) AS title,
             substr(nullif(s.title, ''), 1, ${FEED_NAME_CHARS}) AS userTitle
        FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
       WHERE s.user_id = ? AND s.feed_id > ? AND (? IS NULL OR s.feed_id IN (SELECT value FROM json_each(?)))
       ORDER BY s.feed_id LIMIT ?`)
      .all(
        scope.userId,
        afterFeedId,
        scope.kind === 'streams' ? 1 : null,
        scope.kind === 'streams' ? JSON.stringify(scope.feedIds) : '[]',
        limit,
      ) as unknown as FeedName[];
  }
}
