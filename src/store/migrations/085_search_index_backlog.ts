// Migration 085: the search index's backlog, durable. Until now the ids of items waiting to be
// indexed lived in the memory of the process that stored them, so a crash (kill -9 during a
// refresh) left them out of the index for good (issue 12: 480 of 201,360 after 45 kills).
// Triggers on items record every item to index in the transaction that stores or changes it, so
// no writer (refresh, WebSub push, full text, db copy, a CLI beside the server) can forget it and
// no crash can lose it; src/search/indexing.ts drains the table in batches. Deleted items leave
// the backlog with their row (ON DELETE CASCADE), as they leave the index.
// - seq changes each time an item queued already is changed again, so a drain that read the
//   older version removes its row only if it is still the version it indexed (PostgreSQL: a
//   concurrent change committed during the drain stays queued);
// - queued_at (ms) of the oldest wait gives `tidings search status` its lag.
// The backlog starts with the stored items the index lacks (the ones an earlier crash lost), so
// an upgrade repairs the index in the background, no manual reindex needed; items without any
// text (never indexed) leave the backlog after one look. A rebuild still pending covers the ids up
// to its end; only later ones are queued.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE search_index_backlog (
  item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL DEFAULT 0,
  queued_at INTEGER NOT NULL
);
CREATE TRIGGER search_backlog_item_added AFTER INSERT ON items BEGIN
  INSERT INTO search_index_backlog (item_id, queued_at) VALUES (NEW.id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (item_id) DO UPDATE SET seq = seq + 1;
END;
CREATE TRIGGER search_backlog_item_changed AFTER UPDATE OF feed_id, url, title, content, summary, published_at, updated_at ON items
  WHEN OLD.feed_id IS NOT NEW.feed_id OR OLD.url IS NOT NEW.url OR OLD.title IS NOT NEW.title OR OLD.content IS NOT NEW.content
    OR OLD.summary IS NOT NEW.summary OR OLD.published_at IS NOT NEW.published_at OR OLD.updated_at IS NOT NEW.updated_at BEGIN
  INSERT INTO search_index_backlog (item_id, queued_at) VALUES (NEW.id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (item_id) DO UPDATE SET seq = seq + 1;
END;
INSERT INTO search_index_backlog (item_id, queued_at)
  SELECT id, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM items
   WHERE id NOT IN (SELECT item_id FROM search_articles)
     AND id > coalesce((SELECT CASE WHEN rebuild_after IS NOT NULL THEN rebuild_until END FROM search_index_state WHERE id = 1), 0);
`;

const postgres = `
CREATE TABLE search_index_backlog (
  item_id BIGINT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  seq BIGINT NOT NULL DEFAULT 0,
  queued_at BIGINT NOT NULL
);
-- A statement trigger with the inserted rows: one backlog statement per ingest batch.
CREATE FUNCTION search_backlog_items_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_index_backlog (item_id, queued_at)
    SELECT id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM new_items
    ON CONFLICT (item_id) DO UPDATE SET seq = search_index_backlog.seq + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER search_backlog_item_added AFTER INSERT ON items REFERENCING NEW TABLE AS new_items
  FOR EACH STATEMENT EXECUTE FUNCTION search_backlog_items_added();
CREATE FUNCTION search_backlog_item_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_index_backlog (item_id, queued_at) VALUES (NEW.id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    ON CONFLICT (item_id) DO UPDATE SET seq = search_index_backlog.seq + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER search_backlog_item_changed AFTER UPDATE OF feed_id, url, title, content, summary, published_at, updated_at ON items
  FOR EACH ROW WHEN (OLD.feed_id IS DISTINCT FROM NEW.feed_id OR OLD.url IS DISTINCT FROM NEW.url
    OR OLD.title IS DISTINCT FROM NEW.title OR OLD.content IS DISTINCT FROM NEW.content OR OLD.summary IS DISTINCT FROM NEW.summary
    OR OLD.published_at IS DISTINCT FROM NEW.published_at OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION search_backlog_item_changed();
INSERT INTO search_index_backlog (item_id, queued_at)
  SELECT i.id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM items i
   WHERE NOT EXISTS (SELECT 1 FROM search_articles a WHERE a.item_id = i.id)
     AND i.id > coalesce((SELECT CASE WHEN rebuild_after IS NOT NULL THEN rebuild_until END FROM search_index_state WHERE id = 1), 0);
`;

export const migration: Migration = { id: '085_search_index_backlog', sqlite, postgres };
