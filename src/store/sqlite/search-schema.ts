// Schema of the search index (migration 030). Passages live in a plain table (text, filter
// columns); the FTS5 table is contentless (the text is not stored twice) with contentless_delete
// so passages can be removed one by one. A trigger keeps the two in step, also when items vanish
// through ON DELETE CASCADE (a deleted feed) without the search code being told.
//
// Tokenizer: unicode61 with remove_diacritics 2 (so "Zürich" matches "Zurich") under the porter
// stemmer ("elections" matches "election"); BENCHMARKS.md (## Search) has the measurement.
export const SEARCH_INDEX_MIGRATION = `
CREATE TABLE search_passages (
  id INTEGER PRIMARY KEY,
  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  feed_id INTEGER NOT NULL,
  host TEXT NOT NULL,
  published_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX search_passages_item ON search_passages(item_id, ord);

CREATE VIRTUAL TABLE search_fts USING fts5(
  title, body,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_passages_delete AFTER DELETE ON search_passages BEGIN
  DELETE FROM search_fts WHERE rowid = OLD.id;
END;
`;

// Migration 031: article-level index beside the passages. On the news benchmark BM25 over the
// whole article ranks articles better than the best passage alone (BENCHMARKS.md, ## Search), so
// articles are ranked here and passages then rank within the candidates and supply the snippets.
// search_articles carries the filter columns of the article (same names as search_passages).
export const SEARCH_ARTICLES_MIGRATION = `
CREATE TABLE search_articles (
  item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  feed_id INTEGER NOT NULL,
  host TEXT NOT NULL,
  published_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE VIRTUAL TABLE search_article_fts USING fts5(
  title, body,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_articles_delete AFTER DELETE ON search_articles BEGIN
  DELETE FROM search_article_fts WHERE rowid = OLD.item_id;
END;

-- Articles indexed before this migration have passages only: index them again.
DELETE FROM search_passages;
`;

// Migration 032: the passage-level FTS5 index goes. Articles are ranked on the article index and
// the few best candidates' passages are scored in memory (src/search/passage-score.ts), which
// measured better and faster than scoring passages through FTS5 (BENCHMARKS.md, ## Search), so
// the passage tokens were only a cost at every ingest. Passages stay as text (snippets, reading).
export const DROP_PASSAGE_FTS_MIGRATION = `
DROP TRIGGER search_passages_delete;
DROP TABLE search_fts;
`;

// Migration 033: the article index leaves FTS5 for our own postings (src/search/postings.ts,
// article-index.ts). FTS5's bm25() reads every article that matches any query word and cannot
// stop early (175 ms p50 at 1M passages against a 20 ms goal), and its formula is fixed; the
// postings are scored in memory term by term (BENCHMARKS.md, ## Search).
// - search_articles: one row per indexed article; doc_no is the article's document number in
//   the postings (assigned in indexing order, never reused: re-indexing an item gives it a new
//   number, and postings of numbers no longer here are skipped), with its field lengths.
// - search_postings: per term, chunks of encoded postings; indexing appends to the last chunk.
// - search_index_state: the counters the ranking needs (articles, total field lengths) and the
//   next document number, kept by triggers so cascaded deletes (a feed removed) count too.
export const SEARCH_POSTINGS_MIGRATION = `
DROP TRIGGER search_articles_delete;
DROP TABLE search_article_fts;
DROP TABLE search_articles;
CREATE TABLE search_articles (
  item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  doc_no INTEGER NOT NULL UNIQUE,
  feed_id INTEGER NOT NULL,
  host TEXT NOT NULL,
  published_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  title_length INTEGER NOT NULL,
  body_length INTEGER NOT NULL,
  url_length INTEGER NOT NULL
);

CREATE TABLE search_postings (
  term TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  postings INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (term, chunk)
) WITHOUT ROWID;

CREATE TABLE search_index_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  next_doc_no INTEGER NOT NULL,
  articles INTEGER NOT NULL,
  title_length INTEGER NOT NULL,
  body_length INTEGER NOT NULL,
  url_length INTEGER NOT NULL,
  -- articles removed or replaced since the last rebuild: their postings are dead weight…
  removed INTEGER NOT NULL,
  -- …until a compaction drops them: the value of removed when the last one started
  compacted_removed INTEGER NOT NULL DEFAULT 0,
  -- changes when the index is rebuilt from scratch (document numbers start again)
  epoch INTEGER NOT NULL,
  -- a rebuild in the background: items with ids in (rebuild_after, rebuild_until] are still to
  -- be indexed (NULL: none pending); any process on the database carries it on
  rebuild_after INTEGER,
  rebuild_until INTEGER
);
INSERT INTO search_index_state VALUES (1, 1, 0, 0, 0, 0, 0, 0, 0,
  CASE WHEN EXISTS (SELECT 1 FROM items) THEN 0 END, (SELECT max(id) FROM items));

CREATE TRIGGER search_articles_added AFTER INSERT ON search_articles BEGIN
  UPDATE search_index_state SET articles = articles + 1, title_length = title_length + NEW.title_length,
    body_length = body_length + NEW.body_length, url_length = url_length + NEW.url_length WHERE id = 1;
END;
CREATE TRIGGER search_articles_removed AFTER DELETE ON search_articles BEGIN
  UPDATE search_index_state SET articles = articles - 1, title_length = title_length - OLD.title_length,
    body_length = body_length - OLD.body_length, url_length = url_length - OLD.url_length, removed = removed + 1 WHERE id = 1;
END;

-- Passages: the filter columns go (filters are tested on search_articles), and each passage's
-- length in words is stored once so query-time passage scoring need not count it. Everything is
-- indexed again, in the background from the next start (src/search/indexing.ts).
DROP TABLE search_passages;
CREATE TABLE search_passages (
  id INTEGER PRIMARY KEY,
  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  text TEXT NOT NULL,
  words INTEGER NOT NULL
);
CREATE INDEX search_passages_item ON search_passages(item_id, ord);
`;
