// Migration 120: a version stamp on every stored postings chunk, so a process on PostgreSQL can
// keep the chunks it read and ask only for the ones that changed (src/store/postgres/
// search-index.ts, PostingsChunkCache). A query's postings are up to ~1 MB of BYTEA at 1M passages;
// all chunks but a term's last stay as they are until a compaction or a rebuild rewrites them.
// - PostgreSQL: one sequence for the table; a row trigger stamps every inserted and updated row
//   with its next value, whatever the statement wrote (a `tidings db copy` that brings another
//   database's stamps included), so two versions of one chunk never share a stamp.
// - SQLite: the column only, so a copy between backends finds the same columns. SQLite reads its
//   postings in process and keeps no cache: the stamp is never read there.
import type { Migration } from './migration.ts';

export const migration: Migration = {
  id: '120_search_postings_version',
  sqlite: 'ALTER TABLE search_postings ADD COLUMN version INTEGER NOT NULL DEFAULT 0;',
  postgres: `
CREATE SEQUENCE search_postings_version;
ALTER TABLE search_postings ADD COLUMN version BIGINT NOT NULL DEFAULT nextval('search_postings_version');
CREATE FUNCTION search_postings_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := nextval('search_postings_version');
  RETURN NEW;
END $$;
CREATE TRIGGER search_postings_stamp BEFORE INSERT OR UPDATE ON search_postings
  FOR EACH ROW EXECUTE FUNCTION search_postings_stamp();
`,
};
