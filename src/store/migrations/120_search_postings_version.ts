// Migration 120: a version stamp on every stored postings chunk, so a process on PostgreSQL can
// keep the chunks it read and ask only for the ones that changed (src/store/postgres/
// search-index.ts, PostingsChunkCache). A query's postings are up to ~1 MB of BYTEA at 1M passages;
// all chunks but a term's last stay as they are until a compaction or a rebuild rewrites them.
// - PostgreSQL: one sequence for the table; a row trigger stamps every inserted and updated row
//   with its next value, whatever the statement wrote (a `tidings db copy` that brings another
//   database's stamps included), so two versions of one chunk never share a stamp.
// - SQLite: the column only, so a copy between backends finds the same columns. SQLite reads its
//   postings in process and keeps no cache: the stamp is never read there.
// Also search_index_state.index_id, drawn at random once per database: a snapshot of the article
// table (src/search/article-table.ts) names the index it was taken of, so a command never maps the
// numbers of another database (one recreated at the same path, say) onto this one.
import type { Migration } from './migration.ts';

export const migration: Migration = {
  id: '120_search_postings_version',
  sqlite: `
ALTER TABLE search_postings ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE search_index_state ADD COLUMN index_id TEXT NOT NULL DEFAULT '';
UPDATE search_index_state SET index_id = lower(hex(randomblob(16)));
`,
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
ALTER TABLE search_index_state ADD COLUMN index_id TEXT NOT NULL DEFAULT '';
UPDATE search_index_state SET index_id = md5(random()::text || clock_timestamp()::text);
`,
};
