// Migration 135: tell every process when a chat API key it may have cached changes what it may do.
// On PostgreSQL each process now reuses the API key rows it read to authenticate for a few seconds
// (portable/api-keys.ts, AuthRowCache), as it does token rows since migration 095; a key revoked,
// disabled, re-tiered or its beta features withdrawn by another process (the CLI's `tidings key`
// and `tidings access approve`, a second server process, the web app's "revoke") must apply there
// at once. The statement trigger sends migration 095's notification (payload `auth`) at the
// commit: PgChangeSignal.authGeneration moves, the caches drop their rows. `UPDATE OF` leaves out
// name (a label: a key renamed elsewhere authenticates as before) and created_at (never updated).
// DELETE covers keys deleted with their user (ON DELETE CASCADE) or by hand. SQLite caches no such
// rows (a lookup costs microseconds there): nothing to create; the step is recorded like any other.
import type { Migration } from './migration.ts';

const postgres = `
CREATE TRIGGER api_keys_revoked_notify
  AFTER UPDATE OF id, user_id, key_hash, tier, features, disabled, revoked_at OR DELETE
  ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_auth_change();
`;

const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '135_api_key_change_notifications', sqlite, postgres };
