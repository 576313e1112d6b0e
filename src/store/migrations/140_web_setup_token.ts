// Migration 140: the first-run setup link's secret lives in the database, not in one process's
// memory. `tidings serve` runs one process per core (and installs may run several machines on one
// PostgreSQL): a secret kept in memory worked only on the process that printed it, so the link
// was refused about half the time. Only the SHA-256 of the secret is stored (a leaked database
// holds no usable link). One row at most (id = 1): issuing a link replaces the unused one
// atomically (an upsert), and creating the first account deletes it (DELETE … RETURNING: one
// request wins). src/web/setup.ts says when a link is issued.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE web_setup_token (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  token_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

const postgres = `
CREATE TABLE web_setup_token (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  token_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
`;

export const migration: Migration = { id: '140_web_setup_token', sqlite, postgres };
