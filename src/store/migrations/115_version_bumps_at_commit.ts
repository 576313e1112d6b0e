// Migration 115 (PostgreSQL): the Reader API's catalog and item versions (migrations 026, 027) move
// at commit, once per transaction, instead of at each changed row. Each bump updates the one row
// of its version table, which a transaction then holds locked until it ends: with row triggers,
// a feed refresh that stored a feed's new title or site (every feed on its first refresh) held the
// catalog row from that statement through all its item inserts to its commit, so every other
// refresh's transaction waited on it and a 1,000-feed first refresh ran one feed at a time
// (pg_stat_activity: nearly every backend in Lock:transactionid on `UPDATE feeds SET title`).
// Deferred constraint triggers run at commit instead, and the bump skips a row this transaction
// has already bumped (its xmin is ours), so a statement changing 50 items bumps once. Readers see
// the new version and the changes together either way: both commit at once. SQLite has one writer
// at a time, so its row triggers wait on nothing: unchanged there.
import type { Migration } from './migration.ts';

const bump = (table: string) =>
  `UPDATE ${table} SET version = version + 1 WHERE id = 1 AND xmin <> pg_current_xact_id()::xid;`;

/** [trigger, event and table, WHEN condition or ''] of migration 026 (catalog) and 027 (items). */
const catalogTriggers: [string, string, string][] = [
  [
    'reader_catalog_feeds',
    'UPDATE OF url, title, site_url ON feeds',
    'OLD.url IS DISTINCT FROM NEW.url OR OLD.title IS DISTINCT FROM NEW.title OR OLD.site_url IS DISTINCT FROM NEW.site_url',
  ],
  ['reader_catalog_sub_insert', 'INSERT ON subscriptions', ''],
  ['reader_catalog_sub_delete', 'DELETE ON subscriptions', ''],
  ['reader_catalog_sub_title', 'UPDATE OF title ON subscriptions', 'OLD.title IS DISTINCT FROM NEW.title'],
  ['reader_catalog_sl_insert', 'INSERT ON subscription_labels', ''],
  ['reader_catalog_sl_delete', 'DELETE ON subscription_labels', ''],
  ['reader_catalog_label_update', 'UPDATE OF name ON labels', ''],
  ['reader_catalog_label_delete', 'DELETE ON labels', ''],
];

const atCommit = (name: string, event: string, when: string, fn: string) => {
  const table = event.split(' ON ')[1]!;
  return `DROP TRIGGER ${name} ON ${table};
CREATE CONSTRAINT TRIGGER ${name} AFTER ${event} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  ${when ? `WHEN (${when}) ` : ''}EXECUTE FUNCTION ${fn}();`;
};

const postgres = `
CREATE OR REPLACE FUNCTION reader_catalog_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${bump('reader_catalog_version')}
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION reader_items_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${bump('reader_items_version')}
  RETURN NULL;
END $$;
${catalogTriggers.map(([name, event, when]) => atCommit(name, event, when, 'reader_catalog_bump')).join('\n')}
${atCommit('reader_items_changed', 'UPDATE OF url, title, author, content, summary, published_at, updated_at, enclosures ON items', '', 'reader_items_bump')}
`;

// SQLite: nothing to change (the step is recorded like any other).
const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '115_version_bumps_at_commit', sqlite, postgres };
