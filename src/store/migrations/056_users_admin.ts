// 056 (ops): admin users. The first account of an instance is its operator's (FreshRSS and
// Miniflux make it the admin too); admins' API keys get the beta features without approval.
import type { Migration } from './migration.ts';

const sqlite = `
ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;
UPDATE users SET is_admin = 1 WHERE id = (SELECT min(id) FROM users);
`;

export const migration: Migration = { id: '056_users_admin', sqlite, postgres: sqlite };
