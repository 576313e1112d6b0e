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
import type { Migration } from './migration.ts';

const sqlite = `
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

const postgres = `
CREATE TABLE search_articles (
  item_id BIGINT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  doc_no BIGINT NOT NULL UNIQUE,
  feed_id BIGINT NOT NULL,
  host TEXT NOT NULL,
  published_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  title_length INTEGER NOT NULL,
  body_length INTEGER NOT NULL,
  url_length INTEGER NOT NULL
);

CREATE TABLE search_postings (
  term TEXT COLLATE "C" NOT NULL,
  chunk INTEGER NOT NULL,
  postings INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (term, chunk)
);

CREATE TABLE search_index_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  next_doc_no BIGINT NOT NULL,
  articles BIGINT NOT NULL,
  title_length BIGINT NOT NULL,
  body_length BIGINT NOT NULL,
  url_length BIGINT NOT NULL,
  removed BIGINT NOT NULL,
  compacted_removed BIGINT NOT NULL DEFAULT 0,
  epoch BIGINT NOT NULL,
  rebuild_after BIGINT,
  rebuild_until BIGINT
);
INSERT INTO search_index_state VALUES (1, 1, 0, 0, 0, 0, 0, 0, 0,
  CASE WHEN EXISTS (SELECT 1 FROM items) THEN 0 END, (SELECT max(id) FROM items));

-- Counters per statement (a rebuild or a deleted feed removes thousands of rows at once).
CREATE FUNCTION search_articles_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_index_state s SET articles = s.articles + d.n, title_length = s.title_length + d.t,
    body_length = s.body_length + d.b, url_length = s.url_length + d.u
    FROM (SELECT count(*) AS n, coalesce(sum(title_length), 0) AS t, coalesce(sum(body_length), 0) AS b, coalesce(sum(url_length), 0) AS u FROM new_rows) d
   WHERE s.id = 1 AND d.n > 0;
  RETURN NULL;
END $$;
CREATE FUNCTION search_articles_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_index_state s SET articles = s.articles - d.n, title_length = s.title_length - d.t,
    body_length = s.body_length - d.b, url_length = s.url_length - d.u, removed = s.removed + d.n
    FROM (SELECT count(*) AS n, coalesce(sum(title_length), 0) AS t, coalesce(sum(body_length), 0) AS b, coalesce(sum(url_length), 0) AS u FROM old_rows) d
   WHERE s.id = 1 AND d.n > 0;
  RETURN NULL;
END $$;
CREATE TRIGGER search_articles_added AFTER INSERT ON search_articles REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_articles_counted_insert();
CREATE TRIGGER search_articles_removed AFTER DELETE ON search_articles REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_articles_counted_delete();

CREATE TABLE search_passages (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  item_id BIGINT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  text TEXT NOT NULL,
  words INTEGER NOT NULL
);
CREATE INDEX search_passages_item ON search_passages(item_id, ord);
`;

export const migration: Migration = { id: '033_search_postings', sqlite, postgres };
