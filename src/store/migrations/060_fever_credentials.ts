// 060: one Fever API key per user. The key itself is md5(username:fever-password) by the Fever
// spec; what is stored is an HMAC of it under the server key (src/auth/keys.ts), so a copy of the
// database alone does not let anyone call the API (nor brute-force a weak Fever password offline).
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE fever_credentials (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  key_mac TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
`;

// PostgreSQL: identity ids, BIGINT for ids and times, BYTEA for bytes.
const postgres = `
CREATE TABLE fever_credentials (
  user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  key_mac TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);
`;

export const migration: Migration = { id: '060_fever_credentials', sqlite, postgres };
