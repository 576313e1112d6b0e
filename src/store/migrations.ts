// Versioned schema migrations, applied in list order on every start (see db.ts).
// Rules: never edit a migration that has shipped; add a new one with a new id. Each domain
// appends its own entries (ids are "NNN_domain_what"), so parallel work does not collide.
//
// Time units: *_at columns are Unix seconds; *_us columns are Unix microseconds (the Google
// Reader API's timestampUsec/crawlTimeMsec come from items.crawled_us).

import { SEARCH_INDEX_MIGRATION, SEARCH_ARTICLES_MIGRATION, DROP_PASSAGE_FTS_MIGRATION, SEARCH_POSTINGS_MIGRATION } from './sqlite/search-schema.ts';
import { CHAT_API_MIGRATION } from './sqlite/chat-schema.ts';
import { READER_CATALOG_MIGRATION, READER_ITEMS_VERSION_MIGRATION } from './sqlite/reader-schema.ts';
import { WEB_APP_MIGRATION } from './sqlite/web-schema.ts';

export interface Migration { id: string; sql: string }

const core = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email TEXT,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- Feeds are shared by every user who subscribes: fetched once, stored once.
CREATE TABLE feeds (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  site_url TEXT,
  title TEXT,
  description TEXT,
  icon_url TEXT,
  etag TEXT,
  last_modified TEXT,
  last_fetched_at INTEGER,
  last_success_at INTEGER,
  last_status INTEGER,
  last_error TEXT,
  error_count INTEGER NOT NULL DEFAULT 0,
  next_fetch_at INTEGER NOT NULL DEFAULT 0,
  interval_seconds INTEGER,
  item_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX feeds_next_fetch ON feeds(next_fetch_at);

CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  url TEXT,
  title TEXT NOT NULL DEFAULT '',
  author TEXT,
  content TEXT,
  summary TEXT,
  published_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  crawled_us INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  enclosures TEXT,
  image_url TEXT,
  categories TEXT,
  UNIQUE (feed_id, guid)
);
CREATE INDEX items_feed_crawled ON items(feed_id, crawled_us);

CREATE TABLE subscriptions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  title TEXT,
  unread_count INTEGER NOT NULL DEFAULT 0,
  newest_item_us INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  UNIQUE (user_id, feed_id)
);
CREATE INDEX subscriptions_feed ON subscriptions(feed_id);

-- Folders and tags share the user/-/label/<name> namespace; names are case-sensitive.
CREATE TABLE labels (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE (user_id, name)
);

CREATE TABLE subscription_labels (
  subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (subscription_id, label_id)
) WITHOUT ROWID;
CREATE INDEX subscription_labels_label ON subscription_labels(label_id);

-- Per-user state of every item of every subscribed feed (fan-out on ingest and on subscribe).
-- crawled_us and feed_id are copied from items so stream queries are index-only keyset scans.
CREATE TABLE user_items (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  feed_id INTEGER NOT NULL,
  crawled_us INTEGER NOT NULL,
  read INTEGER NOT NULL DEFAULT 0,
  starred INTEGER NOT NULL DEFAULT 0,
  liked INTEGER NOT NULL DEFAULT 0,
  broadcast INTEGER NOT NULL DEFAULT 0,
  saved INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, item_id)
) WITHOUT ROWID;
CREATE INDEX user_items_all ON user_items(user_id, crawled_us, item_id);
CREATE INDEX user_items_read ON user_items(user_id, read, crawled_us, item_id);
CREATE INDEX user_items_feed ON user_items(user_id, feed_id, read, crawled_us, item_id);
CREATE INDEX user_items_starred ON user_items(user_id, crawled_us, item_id) WHERE starred = 1;

-- Custom tags on items (user/-/label/<name> applied with edit-tag).
CREATE TABLE item_labels (
  label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL,
  PRIMARY KEY (label_id, item_id)
) WITHOUT ROWID;
CREATE INDEX item_labels_user_item ON item_labels(user_id, item_id);

-- Unread counters maintained on write (reads dominate: unread-count must not recount).
CREATE TRIGGER user_items_count_insert AFTER INSERT ON user_items BEGIN
  UPDATE subscriptions
     SET unread_count = unread_count + (NEW.read = 0),
         newest_item_us = max(newest_item_us, NEW.crawled_us)
   WHERE user_id = NEW.user_id AND feed_id = NEW.feed_id;
END;
CREATE TRIGGER user_items_count_delete AFTER DELETE ON user_items WHEN OLD.read = 0 BEGIN
  UPDATE subscriptions SET unread_count = unread_count - 1
   WHERE user_id = OLD.user_id AND feed_id = OLD.feed_id;
END;
CREATE TRIGGER user_items_count_update AFTER UPDATE OF read ON user_items WHEN OLD.read <> NEW.read BEGIN
  UPDATE subscriptions SET unread_count = unread_count + (CASE WHEN NEW.read = 0 THEN 1 ELSE -1 END)
   WHERE user_id = NEW.user_id AND feed_id = NEW.feed_id;
END;
`;

// Authentication (src/auth). Secrets are never stored: tokens, codes and client secrets are kept as
// SHA-256 hashes (they are high-entropy random strings), passwords as scrypt hashes (users table).
const auth = `
-- Server-side keys (HMAC key for write tokens and consent-form CSRF tokens), created on first use.
CREATE TABLE auth_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE oauth_clients (
  id INTEGER PRIMARY KEY,
  client_id TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  name TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,           -- JSON array, matched exactly
  grant_types TEXT NOT NULL,             -- JSON array: authorization_code, refresh_token
  created_at INTEGER NOT NULL
);

-- Bearer credentials: ClientLogin tokens, OAuth access and refresh tokens.
CREATE TABLE auth_tokens (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('clientlogin', 'oauth_access', 'oauth_refresh')),
  scopes TEXT NOT NULL,                  -- space-separated: "read" or "read write"
  client_id TEXT REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  grant_id TEXT,                         -- OAuth: every token descending from one authorization code
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER,
  label TEXT
);
CREATE INDEX auth_tokens_user ON auth_tokens(user_id);
CREATE INDEX auth_tokens_grant ON auth_tokens(grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX auth_tokens_expires ON auth_tokens(expires_at);

CREATE TABLE oauth_codes (
  id INTEGER PRIMARY KEY,
  code_hash TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_uri TEXT,                     -- as sent in the authorization request; NULL when omitted
  scopes TEXT NOT NULL,
  code_challenge TEXT,
  code_challenge_method TEXT,
  grant_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);
`;

// Reader API (020-029 share the range with auth): indexes for the stream queries that the core
// schema does not cover — all items of one feed in crawl order (the core feed index has `read`
// before crawled_us), and the rare states as partial indexes so their streams are keyset scans.
const readerStreamIndexes = `
CREATE INDEX user_items_feed_all ON user_items(user_id, feed_id, crawled_us, item_id);
CREATE INDEX user_items_liked ON user_items(user_id, crawled_us, item_id) WHERE liked = 1;
CREATE INDEX user_items_broadcast ON user_items(user_id, crawled_us, item_id) WHERE broadcast = 1;
CREATE INDEX user_items_saved ON user_items(user_id, crawled_us, item_id) WHERE saved = 1;
`;

// Feed engine (src/feeds): fetch state beyond 001_core, and the index behind the adaptive interval.
const feedsFetchState = `
ALTER TABLE feeds ADD COLUMN ttl_minutes INTEGER;
ALTER TABLE feeds ADD COLUMN body_hash TEXT;
ALTER TABLE feeds ADD COLUMN last_duration_ms INTEGER;
CREATE INDEX items_feed_published ON items(feed_id, published_at);
`;

export const MIGRATIONS: Migration[] = [
  { id: '001_core', sql: core },
  { id: '010_feeds_fetch_state', sql: feedsFetchState },
  { id: '020_auth_tokens_oauth', sql: auth },
  { id: '030_search_passages', sql: SEARCH_INDEX_MIGRATION },
  { id: '031_search_articles', sql: SEARCH_ARTICLES_MIGRATION },
  { id: '032_search_drop_passage_fts', sql: DROP_PASSAGE_FTS_MIGRATION },
  { id: '033_search_postings', sql: SEARCH_POSTINGS_MIGRATION },
  { id: '025_reader_stream_indexes', sql: readerStreamIndexes },
  { id: '026_reader_catalog_version', sql: READER_CATALOG_MIGRATION },
  { id: '027_reader_items_version', sql: READER_ITEMS_VERSION_MIGRATION },
  { id: '040_chat_api', sql: CHAT_API_MIGRATION },
  { id: '070_web_app', sql: WEB_APP_MIGRATION },
];
