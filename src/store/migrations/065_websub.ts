// 065: WebSub subscriptions, one per feed (a feed is fetched once for all its users, so it is
// pushed once too). The callback path carries a random token; the HMAC secret given to the hub is
// sealed like webhook secrets.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE websub_subscriptions (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
  hub_url TEXT NOT NULL,
  topic_url TEXT NOT NULL,
  callback_token TEXT NOT NULL UNIQUE,
  secret_box TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('discovered', 'requested', 'active', 'unsubscribing', 'failed')),
  lease_expires_at INTEGER,
  lease_seconds INTEGER,                 -- as granted by the hub
  requested_at INTEGER,
  last_error TEXT,
  last_push_at INTEGER,
  pushes INTEGER NOT NULL DEFAULT 0
);
`;

// PostgreSQL: identity ids, BIGINT for ids and times, BYTEA for bytes.
const postgres = `
CREATE TABLE websub_subscriptions (
  feed_id BIGINT PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
  hub_url TEXT NOT NULL,
  topic_url TEXT NOT NULL,
  callback_token TEXT NOT NULL UNIQUE,
  secret_box TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('discovered', 'requested', 'active', 'unsubscribing', 'failed')),
  lease_expires_at BIGINT,
  lease_seconds INTEGER,                 -- as granted by the hub
  requested_at BIGINT,
  last_error TEXT,
  last_push_at BIGINT,
  pushes INTEGER NOT NULL DEFAULT 0
);
`;

export const migration: Migration = { id: '065_websub', sqlite, postgres };
