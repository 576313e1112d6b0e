// Reader API schema beyond 001_core (migration 026): a catalog version that changes whenever
// anything a stream response shows about subscriptions changes (feed url/title/site, subscription
// title, folders, labels). The Reader API keeps each user's catalog (origins, folder categories)
// in memory and re-reads it only when this number moved, so a 1,000-item page or unread-count does
// not re-read 500 subscriptions; being in the database, changes made by another process (the CLI)
// are seen too. Unread counters are NOT part of it: they are read fresh on every request.
export const READER_CATALOG_MIGRATION = `
CREATE TABLE reader_catalog_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT INTO reader_catalog_version (id, version) VALUES (1, 1);

CREATE TRIGGER reader_catalog_feeds AFTER UPDATE OF url, title, site_url ON feeds
  WHEN OLD.url IS NOT NEW.url OR OLD.title IS NOT NEW.title OR OLD.site_url IS NOT NEW.site_url BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_sub_insert AFTER INSERT ON subscriptions BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_sub_delete AFTER DELETE ON subscriptions BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_sub_title AFTER UPDATE OF title ON subscriptions WHEN OLD.title IS NOT NEW.title BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_sl_insert AFTER INSERT ON subscription_labels BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_sl_delete AFTER DELETE ON subscription_labels BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_label_update AFTER UPDATE OF name ON labels BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER reader_catalog_label_delete AFTER DELETE ON labels BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
END;
`;

// Migration 027: a version of item contents. The Reader API keeps serialized item bodies in memory
// and drops them all when this number moves, so a page reads only user_items (no lookup into the
// wide items rows per item) and an item changed by any process is never served stale. Items change
// rarely (only when a feed edits a post), so dropping the whole cache then costs little.
export const READER_ITEMS_VERSION_MIGRATION = `
CREATE TABLE reader_items_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT INTO reader_items_version (id, version) VALUES (1, 1);
CREATE TRIGGER reader_items_changed AFTER UPDATE OF url, title, author, content, summary, published_at, updated_at, enclosures ON items BEGIN
  UPDATE reader_items_version SET version = version + 1 WHERE id = 1;
END;
`;
