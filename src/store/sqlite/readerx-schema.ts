// Schema of the reader features of issue #14 (migrations 060–069): Fever credentials, favicons,
// filter rules, full text, webhooks and WebSub. One constant per migration, in id order.

// 060: one Fever API key per user. The key itself is md5(username:fever-password) by the Fever
// spec; what is stored is an HMAC of it under the server key (src/auth/keys.ts), so a copy of the
// database alone does not let anyone call the API (nor brute-force a weak Fever password offline).
export const FEVER_MIGRATION = `
CREATE TABLE fever_credentials (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  key_mac TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
`;

// 061: one favicon per feed (the site's <link rel="icon">, else /favicon.ico), fetched through the
// SSRF guard with a size limit and kept as bytes, so neither reader apps nor the web app ever load
// a third-party URL to show it. A failed lookup is recorded too (retried after a while, not per refresh).
export const FAVICONS_MIGRATION = `
CREATE TABLE feed_icons (
  feed_id INTEGER PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
  mime TEXT,
  data BLOB,
  source_url TEXT,
  error TEXT,
  fetched_at INTEGER NOT NULL
);
`;

// 062: per-user filter rules, and the items they hid. A rule never touches the shared item: it
// changes that user's row in user_items (read, starred, a tag) or, to hide an item, moves the row
// to rule_hidden_items, so removing the rule puts the item back with its flags as they were.
export const FILTER_RULES_MIGRATION = `
CREATE TABLE filter_rules (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope TEXT NOT NULL CHECK (scope IN ('all', 'feed', 'folder')),
  feed_id INTEGER REFERENCES feeds(id) ON DELETE CASCADE,
  label_id INTEGER REFERENCES labels(id) ON DELETE CASCADE,
  conditions TEXT NOT NULL,              -- JSON [{field, kind, pattern}], all must match
  action TEXT NOT NULL CHECK (action IN ('block', 'keep-only', 'mark-read', 'star', 'label')),
  action_label TEXT,                     -- the label name of action 'label'
  created_at INTEGER NOT NULL,
  last_error TEXT,                       -- why the rule was last skipped (its regex ran out of time)
  last_error_at INTEGER,
  CHECK ((scope = 'feed') = (feed_id IS NOT NULL) AND (scope = 'folder') = (label_id IS NOT NULL))
);
CREATE INDEX filter_rules_user ON filter_rules(user_id);
CREATE INDEX filter_rules_feed ON filter_rules(feed_id) WHERE feed_id IS NOT NULL;

CREATE TABLE rule_hidden_items (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  rule_id INTEGER NOT NULL REFERENCES filter_rules(id) ON DELETE CASCADE,
  feed_id INTEGER NOT NULL,
  crawled_us INTEGER NOT NULL,
  read INTEGER NOT NULL,
  liked INTEGER NOT NULL,
  broadcast INTEGER NOT NULL,
  saved INTEGER NOT NULL,
  PRIMARY KEY (user_id, item_id)
) WITHOUT ROWID;
CREATE INDEX rule_hidden_items_rule ON rule_hidden_items(rule_id);
`;

// 063: full text. A subscriber asks for it per subscription (on/off/auto); the article's text is
// fetched once per item and shared, like the item. item_full_text records each attempt against
// the feed entry's content_hash: when the feed changes the entry, its content is the feed's again
// and the full text is fetched anew. feeds.teaser is the auto-detection's verdict (NULL: not checked).
export const FULL_TEXT_MIGRATION = `
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

// 064: outgoing webhooks and their delivery log. The signing secret must be readable to sign each
// delivery, so it is stored encrypted (AES-256-GCM under a server key kept in auth_secrets),
// never shown again after creation. Deliveries are the log and the retry queue at once.
export const WEBHOOKS_MIGRATION = `
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  events TEXT NOT NULL,                  -- JSON array: new-item, starred
  secret_box TEXT NOT NULL,              -- sealSecret (src/auth/keys.ts): iv.tag.ciphertext
  created_at INTEGER NOT NULL
);
CREATE INDEX webhooks_user ON webhooks(user_id);

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_status INTEGER,                   -- HTTP status of the last answer (NULL: none)
  last_error TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);
`;

// 065: WebSub subscriptions, one per feed (a feed is fetched once for all its users, so it is
// pushed once too). The callback path carries a random token; the HMAC secret given to the hub is
// sealed like webhook secrets.
export const WEBSUB_MIGRATION = `
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
