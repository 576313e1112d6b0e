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
