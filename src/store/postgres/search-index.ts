// PostgreSQL side of the search index: the same tables as SQLite (search_articles with document
// numbers and field lengths, search_postings with encoded postings per term in chunks,
// search_passages as text) scored in memory by src/search, which only needs bytes from here.
// Counters in search_index_state follow through statement triggers (migration 033).
import type { PgDatabase } from './client.ts';
import { FEED_NAME_CHARS } from '../repositories.ts';
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
 * Indexing appends to a term's last chunk while it stays under this size, as on SQLite, but the
 * size is smaller here: a row stays under PostgreSQL's TOAST threshold (~2,032 bytes with the
 * row's other columns), so an append is a HOT update within the row's page (fillfactor,
 * migration 165) instead of a new out-of-line value each time, and the dead versions are pruned
 * by the next reader of the page rather than left to autovacuum. Reading a chunk out of line cost
 * a TOAST index probe and a row per ~2 KB anyway, so a common term's more, smaller rows read at
 * about the same cost. Chunks written at the former 8 KiB stay as they are; appends go to a new one.
 */
const CHUNK_BYTES = 1900;

/** Key of the transaction-scoped advisory lock that serializes writers of the index. */
const INDEX_LOCK = 0x7469_646e; // 'tidn'
/**
 * Key of the lock on the passages: shared by the backlog's indexers (each writes the passages of
 * the backlog entries it holds), exclusive for the other writers (rebuild, compaction, emptying),
 * which rewrite passages of any item. Taken before INDEX_LOCK, never after it.
 */
const PASSAGES_LOCK = 0x7469_6470; // 'tidp'

/**
 * Postings chunks a process keeps between searches. A query's terms are up to ~1 MB of BYTEA at
 * 1M passages, which PostgreSQL detoasts (decompresses) and sends as hex text on every search;
 * the common words recur in most questions, and all of a term's chunks but the last stay as they
 * are until a compaction or rebuild. 32 MB held the postings of the news benchmark's 680
 * questions at 1M passages to a hit rate of … (BENCHMARKS.md). A term's chunks checked since
 * the change signal last moved are used without a round trip (migration 125 notifies every write
 * to the postings); the others are checked by their version stamps.
 */
const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;

interface StampedChunk {
  chunk: number;
  /** search_postings.version: every insert or update of the row draws a new one (migration 120). */
  version: number;
  /** search_postings.postings: how many postings the chunk holds. */
  postings: number;
  data: Buffer;
}

interface HeldTerm {
  chunks: Map<number, StampedChunk>;
  bytes: number;
  /** The change signal's number when these chunks were last known to be the stored ones (see trusted()). */
  checkedAt: number;
}

/**
 * What a held entry costs beyond its bytes, so that entries of terms without postings (held too:
 * a question's word the news never uses is asked again and again) still count against the budget.
 */
const HELD_ENTRY_BYTES = 64;

/** Per term, its chunks as last read; terms least recently searched leave first past the byte budget. */
export class PostingsChunkCache {
  private readonly terms = new Map<string, HeldTerm>();
  bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The chunks held for these terms, and the same as parallel arrays for the query. */
  known(terms: string[]): {
    entries: Map<string, Map<number, StampedChunk>>;
    terms: string[];
    chunks: number[];
    versions: number[];
  } {
    const out = {
      entries: new Map<string, Map<number, StampedChunk>>(),
      terms: [] as string[],
      chunks: [] as number[],
      versions: [] as number[],
    };
    for (const term of terms) {
      const held = this.terms.get(term);
      if (!held) continue;
      out.entries.set(term, held.chunks);
      for (const c of held.chunks.values()) {
        out.terms.push(term);
        out.chunks.push(c.chunk);
        out.versions.push(c.version);
      }
    }
    return out;
  }

  /**
   * The chunks held for a term (now the most recently searched) if they were known to be the
   * stored ones at the change signal's number `generation`: nothing written to the postings since
   * (migration 125 notifies every write), so they are used without asking the database.
   */
  trusted(term: string, generation: number): Map<number, StampedChunk> | undefined {
    const held = this.terms.get(term);
    if (!held || held.checkedAt !== generation) return undefined;
    this.terms.delete(term);
    this.terms.set(term, held);
    return held.chunks;
  }

  /**
   * Replaces what is held for a term with the chunks just read (none: the term has no postings),
   * as stored at the change signal's number `checkedAt` (taken before the read).
   */
  put(term: string, chunks: StampedChunk[], checkedAt: number): void {
    const old = this.terms.get(term);
    if (old) {
      this.terms.delete(term);
      this.bytes -= old.bytes;
    }
    let bytes = HELD_ENTRY_BYTES;
    for (const c of chunks) bytes += c.data.byteLength;
    if (bytes > this.maxBytes / 4) return;
    this.terms.set(term, { chunks: new Map(chunks.map((c) => [c.chunk, c])), bytes, checkedAt });
    this.bytes += bytes;
    // Map order is insertion order: the first terms are the least recently searched.
    for (const [t, held] of this.terms) {
      if (this.bytes <= this.maxBytes) break;
      this.terms.delete(t);
      this.bytes -= held.bytes;
    }
  }
}

/**
 * Passage texts a process keeps between searches. Every answer reads the passages of its 20 best
 * candidates (about 900 rows and 450 KB of text at 2,000 news articles): on a shared 2-core box
 * that was most of PostgreSQL's CPU per answer, plus the parsing and garbage in the process. The
 * same articles come back across questions, and an article's passages are only ever deleted and
 * inserted whole (indexing, re-indexing, removal), each insert drawing fresh identity ids, so the
 * id of its first passage (ord 0) names the set held, and a set checked since the change signal
 * last moved is used without asking at all (migration 125). Budget counted as UTF-16 then: over
 * 300 news questions at 2,000 articles, the database sent 413 of 878 passages per answer with 16
 * MiB, 187 with 32 MiB, 149 with no limit (BENCHMARKS.md, "Candidate passages kept per process");
 * now counted as stored (one byte per character of a Latin-1 string), which holds about twice as
 * many articles in the same memory.
 */
const PASSAGE_CACHE_BYTES = 32 * 1024 * 1024;

/** A character V8 cannot store in a one-byte string. */
const TWO_BYTE = /[^\u0000-\u00ff]/;

interface HeldPassages {
  /** search_passages.id of the passage with ord 0. */
  first: number;
  ids: number[];
  ords: number[];
  texts: string[];
  words: number[];
  bytes: number;
  /** The change signal's number when this set was last known to be the stored one (see trusted()). */
  checkedAt: number;
}

/** Per article, its passages as last read; articles least recently searched leave first past the byte budget. */
export class PassageCache {
  private readonly items = new Map<number, HeldPassages>();
  bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The passages held for an article (now the most recently used), if any. */
  get(itemId: number): HeldPassages | undefined {
    const held = this.items.get(itemId);
    if (held) {
      this.items.delete(itemId);
      this.items.set(itemId, held);
    }
    return held;
  }

  /**
   * Replaces what is held for an article with the passages just read, as stored at the change
   * signal's number `checkedAt` (taken before the read).
   */
  put(itemId: number, passages: Omit<HeldPassages, 'bytes'>): void {
    this.drop(itemId);
    // As V8 stores them, plus the array slots: a string of Latin-1 characters only (most news
    // text; node-pg's decoding makes them one-byte strings) takes a byte per character, any other
    // two. Counted as two throughout, the budget held half the articles it had room for, and a
    // question cycle over 2,000 news articles re-read most candidates' passages.
    let bytes = 0;
    for (const t of passages.texts) bytes += (TWO_BYTE.test(t) ? 2 : 1) * t.length + 32;
    if (bytes > this.maxBytes / 16) return;
    this.items.set(itemId, { ...passages, bytes });
    this.bytes += bytes;
    // Map order is insertion order (get re-inserts): the first are the least recently searched.
    for (const [id, held] of this.items) {
      if (this.bytes <= this.maxBytes) break;
      this.items.delete(id);
      this.bytes -= held.bytes;
    }
  }

  /** Whether `held` may be used without asking the database: checked since the last change anywhere. */
  static trusted(held: HeldPassages | undefined, generation: number): boolean {
    return held !== undefined && held.checkedAt === generation;
  }

  drop(itemId: number): void {
    const old = this.items.get(itemId);
    if (!old) return;
    this.items.delete(itemId);
    this.bytes -= old.bytes;
  }
}

/**
 * Article metadata (url, title, feed title, dates, image) of the answers' hits, kept per process
 * like their passages: read only for articles not held or when the change signal moved (a write
 * to items or feeds that changes them notifies: migrations 027, 026, 125). 5,000 entries of a few
 * hundred bytes (about 2 MB); least recently searched out first.
 */
const META_CACHE_ENTRIES = 5_000;

interface HeldMeta {
  meta: SearchArticleMeta;
  checkedAt: number;
}

const META_SQL = `SELECT i.id, coalesce(i.url, '') AS url, i.title, coalesce(f.title, f.url) AS "feedTitle",
        i.published_at AS "publishedAt", i.updated_at AS "updatedAt", i.image_url AS "imageUrl"
      FROM items i JOIN feeds f ON f.id = i.feed_id WHERE i.id = ANY($1::bigint[])`;

/** A row of passageTexts' read: item id, passage id, ord, words, text (NULL: the held one), then on ord 0 the article's metadata. */
type PassageRowWithMeta = [
  number,
  number,
  number,
  number,
  string | null,
  string | null,
  string | null,
  string | null,
  number | null,
  number | null,
  string | null,
];

const STATE_SQL = `SELECT next_doc_no AS "nextDocNo", articles, title_length AS "titleLength", body_length AS "bodyLength",
  url_length AS "urlLength", removed, compacted_removed AS "compactedRemoved", epoch, rebuild_after AS "rebuildAfter", rebuild_until AS "rebuildUntil",
  index_id AS "indexId" FROM search_index_state WHERE id = 1`;

export class PgSearchIndex implements SearchIndexRepository {
  private readonly db: PgDatabase;
  readonly chunkBytes = CHUNK_BYTES;
  readonly changes: ChangeSignal;
  private readonly chunkCache: PostingsChunkCache;
  private readonly passageCache: PassageCache;
  private readonly metaCache = new Map<number, HeldMeta>();
  constructor(
    db: PgDatabase,
    changes: ChangeSignal,
    opts: { postingsCacheBytes?: number; passageCacheBytes?: number } = {},
  ) {
    this.db = db;
    this.changes = changes;
    this.chunkCache = new PostingsChunkCache(opts.postingsCacheBytes ?? POSTINGS_CACHE_BYTES);
    this.passageCache = new PassageCache(opts.passageCacheBytes ?? PASSAGE_CACHE_BYTES);
  }

  /**
   * Articles of the last passageTexts read: whose passages the database sent, and those taken from
   * the cache (of which `trustedItems` without asking the database: held since the last change).
   */
  lastPassagesRead = { sentItems: 0, heldItems: 0, trustedItems: 0 };

  /** Whether the last articles() or articleTexts() read asked the database (not when all were held since the last change). */
  lastArticlesAsked = false;

  /** Bytes of passage texts held between searches (memory accounting, tests). */
  get passageCacheBytes(): number {
    return this.passageCache.bytes;
  }

  /**
   * Bytes of the last postingsOf read: sent by the database, and taken from the chunks held; and
   * whether it asked the database at all (not when every term was held since the last change).
   */
  lastPostingsRead: { sentBytes: number; heldBytes: number; asked: boolean } = {
    sentBytes: 0,
    heldBytes: 0,
    asked: false,
  };

  /** Bytes of postings chunks held between searches (memory accounting, tests). */
  get postingsCacheBytes(): number {
    return this.chunkCache.bytes;
  }

  async lockForWriting(): Promise<void> {
    // Writers of the postings read, change and write back a term's chunks: two at once (indexing
    // beside a compaction, or two processes) would lose postings. SQLite's single writer gives
    // this for free; here an advisory lock held until the transaction ends does.
    await this.db.query('SELECT pg_advisory_xact_lock($1), pg_advisory_xact_lock($2)', [PASSAGES_LOCK, INDEX_LOCK]);
  }

  async lockForPassages(): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock_shared($1)', [PASSAGES_LOCK]);
  }

  async lockForPostings(): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock($1)', [INDEX_LOCK]);
  }

  itemSources(ids: number[]): Promise<SearchItemSource[]> {
    if (!ids.length) return Promise.resolve([]);
    // `indexed`: only items with an article have passages and an article to replace.
    return this.db.rows<SearchItemSource>(
      `SELECT i.id, i.feed_id AS "feedId", i.url, i.title, i.content, i.summary,
        i.published_at AS "publishedAt", i.updated_at AS "updatedAt", f.url AS "feedUrl", f.site_url AS "feedSiteUrl",
        EXISTS (SELECT 1 FROM search_articles a WHERE a.item_id = i.id) AS indexed
      FROM items i JOIN feeds f ON f.id = i.feed_id WHERE i.id = ANY($1::bigint[]) ORDER BY i.id`,
      [ids],
    );
  }

  async indexedAmong(ids: number[]): Promise<Set<number> | null> {
    if (!ids.length) return new Set();
    return new Set(
      (
        await this.db.arrays<[number]>('SELECT item_id FROM search_articles WHERE item_id = ANY($1::bigint[])', [ids])
      ).map((r) => r[0]),
    );
  }

  async reserveDocNumbers(n: number): Promise<number> {
    return (await this.db.row<{ first: number }>(
      'UPDATE search_index_state SET next_doc_no = next_doc_no + $1 WHERE id = 1 RETURNING next_doc_no - $1 AS first',
      [n],
    ))!.first;
  }

  async storeArticles(
    articles: { article: IndexedArticle; passages?: { text: string; words: number }[]; replace?: boolean }[],
  ): Promise<void> {
    if (!articles.length) return;
    // Three statements for the whole batch (columns as arrays), not four per article. Articles
    // known to be new have nothing to delete (a first refresh: no delete at all).
    const ids = articles.filter((x) => x.replace !== false).map((x) => x.article.id);
    if (articles.some((x) => x.passages)) await this.deleteItems(ids);
    else if (ids.length) await this.db.query('DELETE FROM search_articles WHERE item_id = ANY($1::bigint[])', [ids]);
    const col = <T>(f: (a: IndexedArticle) => T) => articles.map((x) => f(x.article));
    await this.db.query(
      `INSERT INTO search_articles (item_id, doc_no, feed_id, host, published_at, updated_at, title_length, body_length, url_length)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::int[], $8::int[], $9::int[])`,
      [
        col((a) => a.id),
        col((a) => a.docNo),
        col((a) => a.feedId),
        col((a) => a.host),
        col((a) => a.publishedAt),
        col((a) => a.updatedAt),
        col((a) => a.titleLength),
        col((a) => a.bodyLength),
        col((a) => a.urlLength),
      ],
    );
    await this.insertPassages(
      articles.map(({ article, passages }) => ({ itemId: article.id, passages: passages ?? [] })),
    );
  }

  async storePassages(
    items: { itemId: number; passages: { text: string; words: number }[]; replace?: boolean }[],
  ): Promise<void> {
    if (!items.length) return;
    // Only items indexed before can have passages. The delete is skipped for the others: its
    // custom plan with a fresh table's statistics scanned every passage (37 ms a batch).
    const replaced = items.filter((x) => x.replace !== false).map((x) => x.itemId);
    if (replaced.length)
      await this.db.query('DELETE FROM search_passages WHERE item_id = ANY($1::bigint[])', [replaced]);
    await this.insertPassages(items);
  }

  /** Every item's passages, numbered in order, in one INSERT. */
  private async insertPassages(items: { itemId: number; passages: { text: string; words: number }[] }[]) {
    const ids: number[] = [],
      ords: number[] = [],
      texts: string[] = [],
      words: number[] = [];
    for (const { itemId, passages } of items) {
      passages.forEach((p, ord) => {
        ids.push(itemId);
        ords.push(ord);
        texts.push(p.text);
        words.push(p.words);
      });
    }
    if (ids.length) {
      await this.db.query(
        'INSERT INTO search_passages (item_id, ord, text, words) SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[])',
        [ids, ords, texts, words],
      );
    }
  }

  async appendPostings(entries: { term: string; bytes: Uint8Array; count: number }[]): Promise<void> {
    if (!entries.length) return;
    const terms = entries.map((e) => e.term);
    const data = entries.map((e) => Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength));
    const counts = entries.map((e) => e.count);
    // One round trip for the whole batch: each term's bytes go onto its last chunk while it stays
    // under the chunk size, else into a new chunk after it.
    await this.db.query(
      `
      WITH batch AS (SELECT * FROM unnest($1::text[], $2::bytea[], $3::int[]) AS b(term, data, postings)),
      last AS (SELECT DISTINCT ON (p.term) p.term, p.chunk, octet_length(p.data) AS size
                 FROM search_postings p JOIN batch b ON b.term = p.term ORDER BY p.term, p.chunk DESC),
      appended AS (
        UPDATE search_postings p SET data = p.data || b.data, postings = p.postings + b.postings
          FROM batch b JOIN last l ON l.term = b.term
         WHERE p.term = l.term AND p.chunk = l.chunk AND l.size + octet_length(b.data) <= ${CHUNK_BYTES}
        RETURNING p.term)
      INSERT INTO search_postings (term, chunk, postings, data)
      SELECT b.term, coalesce(l.chunk + 1, 0), b.postings, b.data FROM batch b LEFT JOIN last l ON l.term = b.term
       WHERE b.term NOT IN (SELECT term FROM appended)`,
      [terms, data, counts],
    );
  }

  replacePostings(term: string, chunks: { bytes: Uint8Array; count: number }[]): Promise<void> {
    return this.db.transaction(async () => {
      await this.db.query('DELETE FROM search_postings WHERE term = $1', [term]);
      if (chunks.length) {
        await this.db.query(
          `INSERT INTO search_postings (term, chunk, postings, data)
          SELECT $1, c.ord - 1, c.postings, c.data FROM unnest($2::int[], $3::bytea[]) WITH ORDINALITY AS c(postings, data, ord)`,
          [
            term,
            chunks.map((c) => c.count),
            chunks.map((c) => Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.byteLength)),
          ],
        );
      }
    });
  }

  async termsAfter(afterTerm: string, limit: number): Promise<string[]> {
    return (
      await this.db.rows<{ term: string }>(
        'SELECT DISTINCT term FROM search_postings WHERE term > $1 ORDER BY term LIMIT $2',
        [afterTerm, limit],
      )
    ).map((r) => r.term);
  }

  async liveDocNumbers(): Promise<number[]> {
    return (await this.db.arrays<[number]>('SELECT doc_no FROM search_articles')).map((r) => r[0]);
  }

  async setCompactedRemoved(removed: number): Promise<void> {
    await this.db.query('UPDATE search_index_state SET compacted_removed = $1 WHERE id = 1', [removed]);
  }

  async postingCounts(terms: string[]): Promise<Map<string, number>> {
    const rows = await this.db.rows<{ term: string; n: number }>(
      'SELECT term, sum(postings) AS n FROM search_postings WHERE term = ANY($1::text[]) GROUP BY term',
      [terms],
    );
    return new Map(rows.map((r) => [r.term, r.n]));
  }

  async postingsOf(terms: string[]): Promise<Map<string, { chunks: Uint8Array[]; count: number }>> {
    const out = new Map<string, { chunks: Uint8Array[]; count: number }>();
    if (!terms.length) return out;
    // Taken before anything is read: a write during the read moves the signal past it.
    const generation = this.changes.generation();
    const stats: PgSearchIndex['lastPostingsRead'] = { sentBytes: 0, heldBytes: 0, asked: false };
    this.lastPostingsRead = stats;
    // Terms whose chunks were checked since the last change anywhere (the signal has not moved)
    // are used as held, without a round trip; the others are asked for.
    const ask: string[] = [];
    for (const term of terms) {
      if (out.has(term)) continue;
      const held = this.chunkCache.trusted(term, generation);
      if (!held) {
        ask.push(term);
        continue;
      }
      if (!held.size) continue; // no postings
      const p = { chunks: [] as Uint8Array[], count: 0 };
      for (const c of held.values()) {
        p.chunks.push(c.data);
        p.count += c.postings;
        stats.heldBytes += c.data.byteLength;
      }
      out.set(term, p);
    }
    if (!ask.length) return out;
    stats.asked = true;
    // The chunks this process already holds go along with their stamps; the database sends only
    // the bytes of chunks whose stamp differs (appended to, rewritten) or that are new. The
    // entries are taken now: another search may evict them while this one waits for its rows.
    const known = this.chunkCache.known(ask);
    const rows = await this.db.arrays<[string, number, number, number, Buffer | null]>(
      `SELECT p.term, p.chunk, p.postings, p.version, CASE WHEN p.version = k.version THEN NULL ELSE p.data END
         FROM search_postings p
         LEFT JOIN unnest($2::text[], $3::int[], $4::bigint[]) AS k(term, chunk, version) ON k.term = p.term AND k.chunk = p.chunk
        WHERE p.term = ANY($1::text[]) ORDER BY p.term, p.chunk`,
      [ask, known.terms, known.chunks, known.versions],
    );
    const read = new Map<string, StampedChunk[]>();
    for (const [term, chunk, n, version, sent] of rows) {
      if (sent) stats.sentBytes += sent.byteLength;
      const data = sent ?? known.entries.get(term)?.get(chunk)?.data;
      if (!data) throw new Error(`postings chunk ${term}/${chunk} (version ${version}) was neither sent nor held`);
      if (!sent) stats.heldBytes += data.byteLength;
      let p = out.get(term);
      if (!p) out.set(term, (p = { chunks: [], count: 0 }));
      p.chunks.push(data);
      p.count += n;
      let list = read.get(term);
      if (!list) read.set(term, (list = []));
      list.push({ chunk, version, postings: n, data });
    }
    for (const term of ask) this.chunkCache.put(term, read.get(term) ?? [], generation);
    return out;
  }

  async postings(term: string): Promise<{ chunks: Uint8Array[]; count: number }> {
    const rows = await this.db.arrays<[number, Buffer]>(
      'SELECT postings, data FROM search_postings WHERE term = $1 ORDER BY chunk',
      [term],
    );
    let count = 0;
    for (const r of rows) count += r[0];
    return { chunks: rows.map((r) => r[1]), count };
  }

  async state(): Promise<SearchIndexState> {
    return (await this.db.row<SearchIndexState>(STATE_SQL))!;
  }

  articleRows(fromDocNo: number, limit: number): Promise<IndexedArticleRow[]> {
    return this.db.rows<IndexedArticleRow>(
      `SELECT doc_no AS "docNo", item_id AS "itemId", feed_id AS "feedId", host, published_at AS "publishedAt",
      updated_at AS "updatedAt", title_length AS "titleLength", body_length AS "bodyLength", url_length AS "urlLength"
      FROM search_articles WHERE doc_no >= $1 ORDER BY doc_no LIMIT $2`,
      [fromDocNo, limit],
    );
  }

  async liveDocuments(docNos: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (!docNos.length) return out;
    for (const [d, i] of await this.db.arrays<[number, number]>(
      'SELECT doc_no, item_id FROM search_articles WHERE doc_no = ANY($1::bigint[])',
      [docNos],
    ))
      out.set(d, i);
    return out;
  }

  async deleteItems(ids: number[]): Promise<void> {
    if (!ids.length) return;
    await this.db.query('DELETE FROM search_articles WHERE item_id = ANY($1::bigint[])', [ids]);
    await this.db.query('DELETE FROM search_passages WHERE item_id = ANY($1::bigint[])', [ids]);
  }

  async itemIdsAfter(afterId: number, limit: number, untilId = Number.MAX_SAFE_INTEGER): Promise<number[]> {
    return (
      await this.db.arrays<[number]>('SELECT id FROM items WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3', [
        afterId,
        untilId,
        limit,
      ])
    ).map((r) => r[0]);
  }

  async setRebuildCursor(afterId: number | null): Promise<void> {
    if (afterId === null) {
      await this.db.query('UPDATE search_index_state SET rebuild_after = NULL, rebuild_until = NULL WHERE id = 1');
      return;
    }
    const moved = await this.db.row<{ was: number | null }>(
      `WITH before AS (SELECT rebuild_after FROM search_index_state WHERE id = 1)
      UPDATE search_index_state SET rebuild_after = $1 WHERE id = 1 RETURNING (SELECT rebuild_after FROM before) AS was`,
      [afterId],
    );
    // The rebuild's first batch: statistics taken now, in its transaction (ANALYZE counts its own
    // rows), so the index tables are not planned as empty. Pool connections plan each statement
    // once (force_generic_plan) and again when a table's statistics change; autovacuum reaching
    // the emptied tables left them analyzed as empty, and the postings statement planned then
    // joined the batch's terms to every term's last chunk in a nested loop (30-60 s a batch at
    // 55k passages; BENCHMARKS.md, "Search index rebuilds in a row"). Committed with the batch,
    // the new statistics make every connection plan it again against a table with rows.
    if (moved?.was === 0) await this.db.exec('ANALYZE search_postings, search_articles, search_passages');
  }

  deleteAll(): Promise<void> {
    return this.db.transaction(async () => {
      // TRUNCATE, not DELETE: no dead rows for the next vacuum (the rebuild writes the same rows
      // again at once), and the tables' statistics become unknown rather than describing the old
      // index. It takes the tables' exclusive lock until this short transaction commits: a search
      // meanwhile waits for it, then sees the emptied index as it did after the DELETE (their
      // statement triggers fire on TRUNCATE too: the change signal moves; the counters are reset here).
      await this.db.exec(`TRUNCATE search_passages, search_articles, search_postings;
        UPDATE search_index_state SET next_doc_no = 1, articles = 0, title_length = 0, body_length = 0, url_length = 0,
          removed = 0, compacted_removed = 0, epoch = epoch + 1, rebuild_after = 0, rebuild_until = (SELECT coalesce(max(id), 0) FROM items) WHERE id = 1;`);
    });
  }

  async passageCount(): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM search_passages'))!.n;
  }

  async articleCount(): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM search_articles'))!.n;
  }

  backlog(limit: number, opts: { waitForLocked?: boolean } = {}): Promise<BacklogEntry[]> {
    // FOR UPDATE: the batch is this transaction's until it commits. SKIP LOCKED: indexers of this
    // and other processes take different batches at once, and take turns only on the index lock.
    return this.db.rows<BacklogEntry>(
      opts.waitForLocked
        ? 'SELECT item_id AS "itemId", seq, queued_at AS "queuedAt" FROM search_index_backlog ORDER BY item_id LIMIT $1 FOR UPDATE'
        : 'SELECT item_id AS "itemId", seq, queued_at AS "queuedAt" FROM search_index_backlog ORDER BY item_id LIMIT $1 FOR UPDATE SKIP LOCKED',
      [limit],
    );
  }

  backlogAfter(afterId: number, limit: number): Promise<BacklogEntry[]> {
    return this.db.rows<BacklogEntry>(
      'SELECT item_id AS "itemId", seq, queued_at AS "queuedAt" FROM search_index_backlog WHERE item_id > $1 ORDER BY item_id LIMIT $2',
      [afterId, limit],
    );
  }

  async removeFromBacklog(entries: BacklogEntry[]): Promise<void> {
    if (!entries.length) return;
    // Matching seq: a change committed while the drain indexed the older version stays queued.
    await this.db.query(
      `DELETE FROM search_index_backlog b USING unnest($1::bigint[], $2::bigint[]) AS e(item_id, seq)
        WHERE b.item_id = e.item_id AND b.seq = e.seq`,
      [entries.map((e) => e.itemId), entries.map((e) => e.seq)],
    );
  }

  async hasBacklog(): Promise<boolean> {
    return (await this.db.arrays<[number]>('SELECT 1 FROM search_index_backlog LIMIT 1')).length > 0;
  }

  async indexStatus(): Promise<SearchIndexStatus> {
    return (await this.db.row<SearchIndexStatus>(
      `SELECT (SELECT count(*) FROM items) AS items, (SELECT count(*) FROM search_articles) AS articles,
        (SELECT count(*) FROM search_passages) AS passages, (SELECT count(*) FROM search_index_backlog) AS waiting,
        (SELECT min(queued_at) FROM search_index_backlog) AS "oldestQueuedAt",
        -- Not indexed, not waiting, and not after a rebuild's cursor: left out for having no text.
        (SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM search_articles a WHERE a.item_id = i.id)
          AND NOT EXISTS (SELECT 1 FROM search_index_backlog b WHERE b.item_id = i.id)
          AND i.id <= coalesce((SELECT rebuild_after FROM search_index_state WHERE id = 1), i.id)) AS "noText"`,
    ))!;
  }

  async passageTexts(itemIds: number[]): Promise<PassageMatch[]> {
    if (!itemIds.length) return [];
    const ids = [...new Set(itemIds)].sort((x, y) => x - y);
    // Taken before anything is read: a write during the read moves the signal past it.
    const generation = this.changes.generation();
    // Taken now: a concurrent read may replace or evict them before this one's rows arrive.
    const holding = ids.map((id) => this.passageCache.get(id));
    // Articles held since the last change anywhere (the signal has not moved; migration 125
    // notifies every write to the passages) are used as held, without a round trip; only the
    // others are asked for (none: no statement). Per article asked, the id of its first passage
    // held (0: none). The database sends every passage of an article whose first passage has
    // another id (not held, or written again since), and of one held as stored only that first
    // passage's id, without its text. The LATERAL read (OFFSET 0 keeps it a subquery) puts the
    // bound on ord into the index condition, so a held article costs two index probes, not a scan
    // of its passages. No ORDER BY (a sort of every text): the rows are put in order here.
    //
    // The search asks for the metadata of its best articles (articles()) right after scoring these
    // passages, and they are the same articles, so the metadata comes along on each article's first
    // row (ord 0; the others carry NULLs) into the metadata held, and articles() then needs no
    // statement of its own. An article whose passages are held since the last change but whose
    // metadata is not is asked for too (one row: its first passage's id).
    const ask: number[] = [];
    const askFirst: number[] = [];
    ids.forEach((id, k) => {
      if (PassageCache.trusted(holding[k], generation) && this.metaCache.get(id)?.checkedAt === generation) return;
      ask.push(id);
      askFirst.push(holding[k]?.first ?? 0);
    });
    const rows = ask.length
      ? await this.db.arrays<PassageRowWithMeta>(
          `SELECT k.item_id, p.id, p.ord, p.words, CASE WHEN p.id = k.held THEN NULL ELSE p.text END,
          CASE WHEN p.ord = 0 THEN coalesce(i.url, '') END, CASE WHEN p.ord = 0 THEN i.title END,
          CASE WHEN p.ord = 0 THEN coalesce(fe.title, fe.url) END, CASE WHEN p.ord = 0 THEN i.published_at END,
          CASE WHEN p.ord = 0 THEN i.updated_at END, CASE WHEN p.ord = 0 THEN i.image_url END
        FROM unnest($1::bigint[], $2::bigint[]) AS k(item_id, held)
        JOIN search_passages f ON f.item_id = k.item_id AND f.ord = 0
        JOIN items i ON i.id = k.item_id
        JOIN feeds fe ON fe.id = i.feed_id
        CROSS JOIN LATERAL (SELECT p.id, p.ord, p.words, p.text FROM search_passages p WHERE p.item_id = k.item_id
          AND p.ord <= CASE WHEN f.id = k.held THEN 0 ELSE 2147483647 END OFFSET 0) p`,
          [ask, askFirst],
        )
      : [];
    const asked = new Set(ask);
    const read = new Map<number, PassageRowWithMeta[]>();
    for (const r of rows) {
      const list = read.get(r[0]);
      if (list) list.push(r);
      else read.set(r[0], [r]);
      if (r[2] === 0) {
        const [id, , , , , url, title, feedTitle, publishedAt, updatedAt, imageUrl] = r;
        this.holdMeta(
          {
            id,
            url: url!,
            title: title!,
            feedTitle: feedTitle!,
            publishedAt: publishedAt!,
            updatedAt: updatedAt!,
            imageUrl,
          },
          generation,
        );
      }
    }
    const out: PassageMatch[] = [];
    let sentItems = 0,
      heldItems = 0,
      trustedItems = 0;
    ids.forEach((itemId, k) => {
      const h = holding[k];
      const list = read.get(itemId);
      // Asked and not sent: no passages (not indexed, or removed), whatever was held.
      const trusted = !list && !asked.has(itemId) && PassageCache.trusted(h, generation);
      if (!trusted && !list) return; // no passages (not indexed, or removed)
      if (trusted || list![0]![4] === null) {
        // Held since the last change, or its first passage has the id held: the held passages are
        // the stored ones.
        const held = h!;
        if (trusted) trustedItems++;
        else held.checkedAt = generation;
        for (let j = 0; j < held.ids.length; j++)
          out.push({
            passageId: held.ids[j]!,
            itemId,
            ord: held.ords[j]!,
            text: held.texts[j]!,
            words: held.words[j]!,
            score: 0,
          });
        heldItems++;
        return;
      }
      if (!list) return;
      if (list.some((r, j) => j > 0 && r[2] < list[j - 1]![2])) list.sort((x, y) => x[2] - y[2]);
      const held = {
        first: list[0]![1],
        ids: [] as number[],
        ords: [] as number[],
        texts: [] as string[],
        words: [] as number[],
        checkedAt: generation,
      };
      for (const [, passageId, ord, words, text] of list) {
        out.push({ passageId, itemId, ord, text: text!, words, score: 0 });
        held.ids.push(passageId);
        held.ords.push(ord);
        held.texts.push(text!);
        held.words.push(words);
      }
      this.passageCache.put(itemId, held);
      sentItems++;
    });
    this.lastPassagesRead = { sentItems, heldItems, trustedItems };
    return out;
  }

  /** Metadata held for an article since the change signal's number `generation` (now the most recently used), if any. */
  private trustedMeta(itemId: number, generation: number): SearchArticleMeta | undefined {
    const held = this.metaCache.get(itemId);
    if (!held || held.checkedAt !== generation) return undefined;
    this.metaCache.delete(itemId);
    this.metaCache.set(itemId, held);
    return held.meta;
  }

  async articles(ids: number[]): Promise<SearchArticleMeta[]> {
    if (!ids.length) return [];
    // Taken before anything is read: a write during the read moves the signal past it.
    const generation = this.changes.generation();
    const out: SearchArticleMeta[] = [];
    const ask: number[] = [];
    for (const id of new Set(ids)) {
      const meta = this.trustedMeta(id, generation);
      if (meta) out.push(meta);
      else ask.push(id);
    }
    this.lastArticlesAsked = ask.length > 0;
    if (!ask.length) return out;
    const rows = await this.db.rows<SearchArticleMeta>(META_SQL, [ask]);
    for (const meta of rows) {
      out.push(meta);
      this.holdMeta(meta, generation);
    }
    return out;
  }

  /** Keeps an article's metadata as read at the change signal's number `checkedAt` (taken before the read). */
  private holdMeta(meta: SearchArticleMeta, checkedAt: number): void {
    this.metaCache.delete(meta.id);
    this.metaCache.set(meta.id, { meta, checkedAt });
    // Map order is insertion order (trustedMeta re-inserts): the first are the least recently used.
    if (this.metaCache.size > META_CACHE_ENTRIES) this.metaCache.delete(this.metaCache.keys().next().value!);
  }

  async articleTexts(itemIds: number[]): Promise<Map<number, ArticleText>> {
    if (!itemIds.length) return new Map();
    // At most one round trip for every source of an answer. The sources are hits whose passages
    // the search just read, so their texts are usually held (passageTexts): as there, an article's
    // first passage id is checked and its texts are sent only when another set is stored. The
    // LEFT JOINs keep a stored item whose passages are not written yet (empty text), as the
    // per-item reads did.
    const ids = [...new Set(itemIds)].sort((x, y) => x - y);
    // Taken before anything is read: a write during the read moves the signal past it.
    const generation = this.changes.generation();
    const holding = ids.map((id) => this.passageCache.get(id));
    // An article whose passages and metadata (title, url) are both held since the last change
    // anywhere is answered from memory: the sources of an answer were the search's hits a moment
    // before, so usually none is asked for and there is no statement.
    const out = new Map<number, ArticleText>();
    const ask: number[] = [];
    const askFirst: number[] = [];
    const askHeld: (HeldPassages | undefined)[] = [];
    ids.forEach((itemId, k) => {
      const h = holding[k];
      const meta = PassageCache.trusted(h, generation) ? this.trustedMeta(itemId, generation) : undefined;
      if (meta) {
        out.set(itemId, { title: meta.title, url: meta.url, text: h!.texts.join('\n\n') });
        return;
      }
      ask.push(itemId);
      askFirst.push(h?.first ?? 0);
      askHeld.push(h);
    });
    this.lastArticlesAsked = ask.length > 0;
    if (!ask.length) return out;
    const rows = await this.db.arrays<
      [number, string, string, number | null, number | null, number | null, string | null]
    >(
      `SELECT i.id, i.title, coalesce(i.url, ''), p.id, p.ord, p.words, CASE WHEN p.id = k.held THEN NULL ELSE p.text END
        FROM unnest($1::bigint[], $2::bigint[]) AS k(item_id, held)
        JOIN items i ON i.id = k.item_id
        LEFT JOIN search_passages f ON f.item_id = k.item_id AND f.ord = 0
        LEFT JOIN LATERAL (SELECT p.id, p.ord, p.words, p.text FROM search_passages p WHERE p.item_id = k.item_id
          AND p.ord <= CASE WHEN f.id = k.held THEN 0 ELSE 2147483647 END OFFSET 0) p ON true`,
      [ask, askFirst],
    );
    const read = new Map<number, typeof rows>();
    for (const r of rows) {
      const list = read.get(r[0]);
      if (list) list.push(r);
      else read.set(r[0], [r]);
    }
    ask.forEach((itemId, k) => {
      const list = read.get(itemId);
      if (!list) return; // not stored
      const [, title, url, passageId] = list[0]!;
      if (passageId === null) {
        out.set(itemId, { title, url, text: '' });
        return;
      }
      if (list[0]![6] === null) {
        const held = askHeld[k]!;
        held.checkedAt = generation;
        out.set(itemId, { title, url, text: held.texts.join('\n\n') });
        return;
      }
      if (list.some((r, j) => j > 0 && r[4]! < list[j - 1]![4]!)) list.sort((x, y) => x[4]! - y[4]!);
      const held = {
        first: list[0]![3]!,
        ids: list.map((r) => r[3]!),
        ords: list.map((r) => r[4]!),
        texts: list.map((r) => r[6]!),
        words: list.map((r) => r[5]!),
        checkedAt: generation,
      };
      this.passageCache.put(itemId, held);
      out.set(itemId, { title, url, text: held.texts.join('\n\n') });
    });
    // In id order, as the keys were before.
    return new Map([...out].sort((x, y) => x[0] - y[0]));
  }

  async subscribedFeedIds(userId: number): Promise<number[]> {
    return (await this.db.arrays<[number]>('SELECT feed_id FROM subscriptions WHERE user_id = $1', [userId])).map(
      (r) => r[0],
    );
  }

  async docNosTaggedOrInState(
    userId: number,
    labelIds: number[],
    states: ('starred' | 'read' | 'liked')[],
  ): Promise<number[]> {
    const parts: string[] = [];
    const params: unknown[] = [userId];
    if (labelIds.length) {
      params.push(labelIds);
      parts.push(`SELECT item_id FROM item_labels WHERE user_id = $1 AND label_id = ANY($${params.length}::bigint[])`);
    }
    for (const state of states) {
      const column = state === 'starred' ? 'starred' : state === 'read' ? 'read' : 'liked';
      parts.push(`SELECT item_id FROM user_items WHERE user_id = $1 AND ${column} = 1`);
    }
    if (!parts.length) return [];
    return (
      await this.db.arrays<[number]>(
        `SELECT doc_no FROM search_articles WHERE item_id IN (${parts.join(' UNION ')})`,
        params,
      )
    ).map((r) => r[0]);
  }

  async subscribedFeedIdByUrl(userId: number, feedUrl: string): Promise<number | undefined> {
    return (
      await this.db.row<{ id: number }>(
        'SELECT s.feed_id AS id FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_id = $1 AND f.url = $2',
        [userId, feedUrl],
      )
    )?.id;
  }

  async label(userId: number, name: string): Promise<{ id: number; folderFeedIds: number[] } | undefined> {
    const row = await this.db.row<{ id: number }>('SELECT id FROM labels WHERE user_id = $1 AND name = $2', [
      userId,
      name,
    ]);
    if (!row) return undefined;
    const feeds = await this.db.arrays<[number]>(
      `SELECT s.feed_id FROM subscription_labels sl JOIN subscriptions s ON s.id = sl.subscription_id
       WHERE sl.label_id = $1 AND s.user_id = $2`,
      [row.id, userId],
    );
    return { id: row.id, folderFeedIds: feeds.map((f) => f[0]) };
  }

  async feedNames(scope: PassageScope, limit: number, afterFeedId = 0): Promise<FeedName[]> {
    if (scope.kind === 'instance')
      return this.db.rows<FeedName>(
        `SELECT f.id AS "feedId", substr(coalesce(f.title, f.url), 1, ${FEED_NAME_CHARS}) AS title,
                (SELECT CASE WHEN count(DISTINCT s.title) = 1 THEN substr(max(s.title), 1, ${FEED_NAME_CHARS}) END
                   FROM subscriptions s WHERE s.feed_id = f.id AND s.title <> '') AS "userTitle"
           FROM feeds f WHERE f.id > $1 ORDER BY f.id LIMIT $2`,
        [afterFeedId, limit],
      );
    return this.db.rows<FeedName>(
      `SELECT f.id AS "feedId", substr(coalesce(f.title, f.url), 1, ${FEED_NAME_CHARS}) AS title,
              substr(nullif(s.title, ''), 1, ${FEED_NAME_CHARS}) AS "userTitle"
         FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
        WHERE s.user_id = $1 AND s.feed_id > $2 AND ($3::bigint[] IS NULL OR s.feed_id = ANY($3::bigint[]))
        ORDER BY s.feed_id LIMIT $4`,
      [scope.userId, afterFeedId, scope.kind === 'streams' ? scope.feedIds : null, limit],
    );
  }
}
