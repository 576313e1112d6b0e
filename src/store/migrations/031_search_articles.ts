// Migration 031: article-level index beside the passages. On the news benchmark BM25 over the
// whole article ranks articles better than the best passage alone (BENCHMARKS.md, ## Search), so
// articles are ranked here and passages then rank within the candidates and supply the snippets.
// search_articles carries the filter columns of the article (same names as search_passages).
import type { Migration } from './migration.ts';

const sqlite = `
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

const postgres = `
-- Nothing on PostgreSQL: this step built FTS5 tables that later steps dropped again (033 creates
-- the search tables as they are now).
`;

export const migration: Migration = { id: '031_search_articles', sqlite, postgres };
