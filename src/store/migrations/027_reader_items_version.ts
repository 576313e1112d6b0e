// Migration 027: a version of item contents. The Reader API keeps serialized item bodies in memory
// and drops them all when this number moves, so a page reads only user_items (no lookup into the
// wide items rows per item) and an item changed by any process is never served stale. Items change
// rarely (only when a feed edits a post), so dropping the whole cache then costs little.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE reader_items_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT INTO reader_items_version (id, version) VALUES (1, 1);
CREATE TRIGGER reader_items_changed AFTER UPDATE OF url, title, author, content, summary, published_at, updated_at, enclosures ON items BEGIN
  UPDATE reader_items_version SET version = version + 1 WHERE id = 1;
END;
`;

const postgres = `
CREATE TABLE reader_items_version (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
INSERT INTO reader_items_version (id, version) VALUES (1, 1);
CREATE FUNCTION reader_items_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE reader_items_version SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END $$;
CREATE TRIGGER reader_items_changed AFTER UPDATE OF url, title, author, content, summary, published_at, updated_at, enclosures ON items
  FOR EACH ROW EXECUTE FUNCTION reader_items_bump();
`;

export const migration: Migration = { id: '027_reader_items_version', sqlite, postgres };
