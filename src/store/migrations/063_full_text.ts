// 063: full text. A subscriber asks for it per subscription (on/off/auto); the article's text is
// fetched once per item and shared, like the item. item_full_text records each attempt against
// the feed entry's content_hash: when the feed changes the entry, its content is the feed's again
// and the full text is fetched anew. feeds.teaser is the auto-detection's verdict (NULL: not checked).
import type { Migration } from './migration.ts';

const sqlite = `
ALTER TABLE subscriptions ADD COLUMN full_text TEXT NOT NULL DEFAULT 'auto' CHECK (full_text IN ('on', 'off', 'auto'));
ALTER TABLE feeds ADD COLUMN teaser INTEGER;
ALTER TABLE feeds ADD COLUMN teaser_checked_at INTEGER;
CREATE TABLE item_full_text (
  item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  content_hash TEXT NOT NULL,            -- items.content_hash the attempt was made for
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  error TEXT,
  page_url TEXT,
  attempts INTEGER NOT NULL DEFAULT 1,
  fetched_at INTEGER NOT NULL
);
`;

// PostgreSQL: identity ids, BIGINT for ids and times, BYTEA for bytes.
const postgres = `
ALTER TABLE subscriptions ADD COLUMN full_text TEXT NOT NULL DEFAULT 'auto' CHECK (full_text IN ('on', 'off', 'auto'));
ALTER TABLE feeds ADD COLUMN teaser INTEGER;
ALTER TABLE feeds ADD COLUMN teaser_checked_at BIGINT;
CREATE TABLE item_full_text (
  item_id BIGINT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  content_hash TEXT NOT NULL,            -- items.content_hash the attempt was made for
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  error TEXT,
  page_url TEXT,
  attempts INTEGER NOT NULL DEFAULT 1,
  fetched_at BIGINT NOT NULL
);
`;

export const migration: Migration = { id: '063_full_text', sqlite, postgres };
