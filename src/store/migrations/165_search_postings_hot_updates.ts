// Migration 165 (PostgreSQL): the postings table's chunks are rewritten in place without leaving
// dead rows for autovacuum. Every indexing batch appends to the last chunk of each of its terms
// (an UPDATE), and PostgreSQL writes a new row version each time. Before, a chunk grew to 8 KiB,
// so past ~2 KB it was kept out of line in the TOAST table, where every append wrote the whole
// value again and left the old one dead; and full pages sent the new versions to other pages,
// with a new index entry each. Autovacuum fell behind in a long ingest: the database grew 2.16,
// 5.68, 14.23 GiB at 1M, 2M, 4M passages and the reads at 4M walked the dead rows (BENCHMARKS.md,
// "Search at 1M, 2M and 4M passages on PostgreSQL").
// Now chunks stay under the TOAST threshold (src/store/postgres/search-index.ts, CHUNK_BYTES) and
// the table's pages keep room for the next version of their rows (fillfactor): an append is a HOT
// update on the same page, and the next one reading that page prunes the old version, with no
// vacuum and no new index entry. Pages written from now on get the room; an index rebuilt from
// scratch (TRUNCATE, `tidings search reindex`) has it everywhere. SQLite rewrites a row in place
// within its page: nothing to change there.
import type { Migration } from './migration.ts';

const postgres = `
ALTER TABLE search_postings SET (fillfactor = 60);
`;

const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '165_search_postings_hot_updates', sqlite, postgres };
