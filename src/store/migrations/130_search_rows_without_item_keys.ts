// Migration 130 (PostgreSQL): search_passages and search_index_backlog lose their foreign keys to
// items; one statement trigger on items deletes a deleted item's passages and backlog rows instead
// (what ON DELETE CASCADE did). The keys checked every inserted row against items: in a 1,000-feed
// x 50-item first refresh, 150,000 passages and 50,000 backlog rows, each check a lookup and a
// row lock, ~5 µs of server time a row (inserting the same 150,000 passages took 1.24 s with the
// key and 0.50 s without). What they guarded is kept otherwise:
// - a backlog row is written by the triggers on items (migration 085), in the statement that
//   inserts or changes its item, or copied from a consistent database (`tidings db copy`);
// - passages are written only with their item's search_articles row in the same transaction
//   (src/search/indexing.ts, indexItemsNow), and search_articles keeps its key: an item deleted
//   meanwhile fails that transaction, passages included; one deleted later takes them along here.
// SQLite keeps its keys: a check there is an index probe in the same process, not worth a schema
// change.
import type { Migration } from './migration.ts';

export const migration: Migration = {
  id: '130_search_rows_without_item_keys',
  sqlite: `
-- Nothing on SQLite: its foreign keys from search_passages and search_index_backlog stay.
`,
  postgres: `
CREATE FUNCTION items_deleted_leave_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_passages p USING deleted_items d WHERE p.item_id = d.id;
  DELETE FROM search_index_backlog b USING deleted_items d WHERE b.item_id = d.id;
  RETURN NULL;
END $$;
CREATE TRIGGER items_deleted_leave_search AFTER DELETE ON items REFERENCING OLD TABLE AS deleted_items
  FOR EACH STATEMENT EXECUTE FUNCTION items_deleted_leave_search();
-- The keys by their columns, whatever they were named when created.
DO $$
DECLARE k record;
BEGIN
  FOR k IN SELECT c.conrelid::regclass AS t, c.conname FROM pg_constraint c
     WHERE c.contype = 'f' AND c.confrelid = 'items'::regclass
       AND c.conrelid IN ('search_passages'::regclass, 'search_index_backlog'::regclass) LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', k.t, k.conname);
  END LOOP;
END $$;
`,
};
