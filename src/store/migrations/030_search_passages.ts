// Schema of the search index (migration 030). Passages live in a plain table (text, filter
// columns); the FTS5 table is contentless (the text is not stored twice) with contentless_delete
// so passages can be removed one by one. A trigger keeps the two in step, also when items vanish
// through ON DELETE CASCADE (a deleted feed) without the search code being told.
//
// Tokenizer: unicode61 with remove_diacritics 2 (so "Zürich" matches "Zurich") under the porter
// stemmer ("elections" matches "election"); BENCHMARKS.md (## Search) has the measurement.
import type { Migration } from './migration.ts';

const sqlite = `
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

const postgres = `
-- Nothing on PostgreSQL: this step built FTS5 tables that later steps dropped again (033 creates
-- the search tables as they are now).
`;

export const migration: Migration = { id: '030_search_passages', sqlite, postgres };
