// Migration 086: the PostgreSQL half of the cross-process change signal (src/store/change-signal.ts).
// A transaction that moves something processes cache in memory (the Reader API's catalog and item
// versions, the search index counters) or queues items to index NOTIFYs `tidings_changes` at its
// commit; every process LISTENs and revalidates what it cached. Statement triggers, and PostgreSQL
// folds identical notifications of one transaction into one, so a refresh storing 1,000 items sends
// one. Marking items read moves none of these (unread state is never cached), so it notifies
// nothing. SQLite needs no trigger: `PRAGMA data_version` tells a connection another one committed.
import type { Migration } from './migration.ts';

const tables = ['reader_catalog_version', 'reader_items_version', 'search_index_state', 'search_index_backlog'];

const postgres = `
CREATE FUNCTION tidings_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tidings_changes', '');
  RETURN NULL;
END $$;
${tables
  .map(
    (t) =>
      `CREATE TRIGGER ${t}_notify AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_change();`,
  )
  .join('\n')}
`;

// SQLite: nothing to create (data_version is built in); the step is recorded like any other.
const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '086_change_notifications', sqlite, postgres };
