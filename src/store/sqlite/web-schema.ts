// Tables of the web app (src/web): server-side sessions, per-user settings, admin flags and Ask
// conversations. Migration ids 070-079.

export const WEB_APP_MIGRATION = `
-- Browser sessions: only the SHA-256 of the cookie value is stored (a leaked database holds no
-- usable session). Sliding expiry: expires_at moves forward as the session is used.
CREATE TABLE web_sessions (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  user_agent TEXT
);
CREATE INDEX web_sessions_user ON web_sessions(user_id);
CREATE INDEX web_sessions_expires ON web_sessions(expires_at);

-- Reading preferences of the web app, one JSON object per user (validated by src/web/settings.ts).
CREATE TABLE web_settings (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  settings TEXT NOT NULL
);

-- Administrators. While this table is empty, the oldest account is the administrator (installs
-- whose first user was created with the CLI).
CREATE TABLE web_admins (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE
);

-- Ask: a conversation is a question thread over a scope of the user's feeds.
CREATE TABLE web_conversations (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  scope TEXT NOT NULL,                  -- JSON: {"kind":"all"|"folder"|"feed"|"starred"|"article", …}
  model TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX web_conversations_user ON web_conversations(user_id, updated_at);

CREATE TABLE web_messages (
  id INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES web_conversations(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT NOT NULL,
  sources TEXT,                         -- JSON array of source cards (assistant turns)
  related TEXT,                         -- JSON array of related questions (assistant turns)
  created_at INTEGER NOT NULL
);
CREATE INDEX web_messages_conversation ON web_messages(conversation_id, id);
`;
