// 061: one favicon per feed (the site's <link rel="icon">, else /favicon.ico), fetched through the
// SSRF guard with a size limit and kept as bytes, so neither reader apps nor the web app ever load
// a third-party URL to show it. A failed lookup is recorded too (retried after a while, not per refresh).
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE feed_icons (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
  mime TEXT,
  data BLOB,
  source_url TEXT,
  error TEXT,
  fetched_at INTEGER NOT NULL
);
`;

// PostgreSQL: identity ids, BIGINT for ids and times, BYTEA for bytes.
const postgres = `
CREATE TABLE feed_icons (
  feed_id BIGINT PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
  mime TEXT,
  data BYTEA,
  source_url TEXT,
  error TEXT,
  fetched_at BIGINT NOT NULL
);
`;

export const migration: Migration = { id: '061_feed_icons', sqlite, postgres };
