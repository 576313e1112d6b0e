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
