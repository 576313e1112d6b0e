// Reader API schema beyond 001_core (migration 026): a catalog version that changes whenever
// anything a stream response shows about subscriptions changes (feed url/title/site, subscription
// title, folders, labels). The Reader API keeps each user's catalog (origins, folder categories)
// in memory and re-reads it only when this number moved, so a 1,000-item page or unread-count does
// not re-read 500 subscriptions; being in the database, changes made by another process (the CLI)
// are seen too. Unread counters are NOT part of it: they are read fresh on every request.
import type { Migration } from './migration.ts';

const sqlite = `
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

const postgres = `
CREATE TABLE reader_catalog_version (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
INSERT INTO reader_catalog_version (id, version) VALUES (1, 1);
CREATE FUNCTION reader_catalog_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE reader_catalog_version SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END $$;
CREATE TRIGGER reader_catalog_feeds AFTER UPDATE OF url, title, site_url ON feeds FOR EACH ROW
  WHEN (OLD.url IS DISTINCT FROM NEW.url OR OLD.title IS DISTINCT FROM NEW.title OR OLD.site_url IS DISTINCT FROM NEW.site_url)
  EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_sub_insert AFTER INSERT ON subscriptions FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_sub_delete AFTER DELETE ON subscriptions FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_sub_title AFTER UPDATE OF title ON subscriptions FOR EACH ROW
  WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_sl_insert AFTER INSERT ON subscription_labels FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_sl_delete AFTER DELETE ON subscription_labels FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_label_update AFTER UPDATE OF name ON labels FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
CREATE TRIGGER reader_catalog_label_delete AFTER DELETE ON labels FOR EACH ROW EXECUTE FUNCTION reader_catalog_bump();
`;

export const migration: Migration = { id: '026_reader_catalog_version', sqlite, postgres };
