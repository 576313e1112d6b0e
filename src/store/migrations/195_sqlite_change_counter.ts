// Migration 195 (SQLite): the cross-process change signal tells a write that matters from a quiet
// one. `PRAGMA data_version` moves on any commit by another connection, whatever it wrote: under
// `tidings serve --workers N` every chat answer worker A served (a usage row, a rate-limit pour:
// writes nothing caches, SqliteChangeSignal.quietWrite) made worker B read the user's
// subscriptions (1,898 rows for the chat bench's user), the index counters and the backlog again
// on its next answer. Now a row counts the writes that matter, bumped by triggers on the tables
// and columns PostgreSQL's notifications watch (migrations 086, 095, 125, 135) but one, and one
// more for a migration step applied by another process. The one left out is search_postings: no
// SQLite process holds postings between searches (PostgreSQL's hold their chunks), and a trigger
// there, a counter update per postings row, made an index rebuild take 1.2-1.3x the CPU and 2-3x
// the time (its DELETE of every row lost SQLite's truncation; BENCHMARKS.md). When data_version moved, the signal reads this
// row (one statement, at most once per event-loop turn) and moves only if a counter moved:
// `changes` for what the caches keep (src/store/change-signal.ts), `auth` for the authentication
// rows (portable/auth-row-cache.ts, as PostgreSQL's `auth` payload). `origin` is random per
// database: a file restored over this one is another history even where the counts match.
// A cache that reads a table not listed here must add its triggers (here for SQLite, a
// notification for PostgreSQL); src/store/change-signal.test.ts checks both lists.
import type { Migration } from './migration.ts';

/** Tables whose every insert, update and delete moves `changes` (PostgreSQL: migrations 086 and 125, and search_postings). */
export const COUNTED_TABLES = [
  'reader_catalog_version',
  'reader_items_version',
  'search_index_state',
  'search_index_backlog',
  'search_passages',
] as const;

const bump = (column: 'changes' | 'auth') =>
  `BEGIN UPDATE change_counter SET ${column} = ${column} + 1 WHERE id = 1; END;`;

const sqlite = `
CREATE TABLE change_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  changes INTEGER NOT NULL,
  auth INTEGER NOT NULL,
  origin TEXT NOT NULL
);
INSERT INTO change_counter (id, changes, auth, origin) VALUES (1, 0, 0, lower(hex(randomblob(16))));
${COUNTED_TABLES.flatMap((t) =>
  ['INSERT', 'UPDATE', 'DELETE'].map(
    (op) => `CREATE TRIGGER ${t}_counted_${op.toLowerCase()} AFTER ${op} ON ${t} ${bump('changes')}`,
  ),
).join('\n')}
CREATE TRIGGER items_counted_delete AFTER DELETE ON items ${bump('changes')}
CREATE TRIGGER items_counted_image AFTER UPDATE OF image_url, feed_id ON items
  WHEN OLD.image_url IS NOT NEW.image_url OR OLD.feed_id IS NOT NEW.feed_id ${bump('changes')}
CREATE TRIGGER schema_migrations_counted AFTER INSERT ON schema_migrations
  BEGIN UPDATE change_counter SET changes = changes + 1, auth = auth + 1 WHERE id = 1; END;
CREATE TRIGGER auth_tokens_counted_revoked
  AFTER UPDATE OF token_hash, user_id, kind, scopes, client_id, grant_id, expires_at, revoked_at ON auth_tokens ${bump('auth')}
CREATE TRIGGER auth_tokens_counted_delete AFTER DELETE ON auth_tokens ${bump('auth')}
CREATE TRIGGER users_counted_delete AFTER DELETE ON users ${bump('auth')}
CREATE TRIGGER api_keys_counted_revoked
  AFTER UPDATE OF id, user_id, key_hash, tier, features, disabled, revoked_at ON api_keys ${bump('auth')}
CREATE TRIGGER api_keys_counted_delete AFTER DELETE ON api_keys ${bump('auth')}
`;

// PostgreSQL's signal counts no commit it was not notified of: nothing to create.
export const migration: Migration = { id: '195_sqlite_change_counter', sqlite, postgres: 'SELECT 1;' };
