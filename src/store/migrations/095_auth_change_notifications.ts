// Migration 095: tell every process when authentication rows it may have cached stop being valid.
// On PostgreSQL each process reuses the token rows it read to authenticate for a few seconds
// (postgres/accounts.ts, AuthRowCache); a token revoked or deleted by another process (a second
// server process, the CLI) must stop working there at once. Statement triggers NOTIFY the change
// channel of migration 086 with the payload `auth` at the commit (PgChangeSignal.authGeneration
// moves, the cache drops its rows): tokens revoked or rewritten, tokens deleted (purge, idle
// ClientLogin tokens, and a deleted user's tokens through ON DELETE CASCADE), users deleted.
// `UPDATE OF` leaves out last_used_at: recording a token's use (once a minute per token) revokes
// nothing and must not empty every process's cache. SQLite caches no such rows (a lookup costs
// microseconds there): nothing to create; the step is recorded like any other.
import type { Migration } from './migration.ts';

const postgres = `
CREATE FUNCTION tidings_notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tidings_changes', 'auth');
  RETURN NULL;
END $$;
CREATE TRIGGER auth_tokens_revoked_notify
  AFTER UPDATE OF token_hash, user_id, kind, scopes, client_id, grant_id, expires_at, revoked_at OR DELETE
  ON auth_tokens FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_auth_change();
CREATE TRIGGER users_deleted_notify
  AFTER DELETE ON users FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_auth_change();
`;

const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '095_auth_change_notifications', sqlite, postgres };
