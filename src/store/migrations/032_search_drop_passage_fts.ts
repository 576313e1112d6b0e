// Migration 032: the passage-level FTS5 index goes. Articles are ranked on the article index and
// the few best candidates' passages are scored in memory (src/search/passage-score.ts), which
// measured better and faster than scoring passages through FTS5 (BENCHMARKS.md, ## Search), so
// the passage tokens were only a cost at every ingest. Passages stay as text (snippets, reading).
import type { Migration } from './migration.ts';

const sqlite = `
DROP TRIGGER search_passages_delete;
DROP TABLE search_fts;
`;

const postgres = `
-- Nothing on PostgreSQL: this step built FTS5 tables that later steps dropped again (033 creates
-- the search tables as they are now).
`;

export const migration: Migration = { id: '032_search_drop_passage_fts', sqlite, postgres };
