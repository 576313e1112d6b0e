// Schema of the chat completions API (migration range 040-049): API keys, per-request usage,
// async (deep research) jobs and access-form requests for higher rate-limit tiers.
export const CHAT_API_MIGRATION = `
-- API keys: only the SHA-256 of the key is stored; the public id (embedded in the key) finds the row.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL DEFAULT '',
  key_hash TEXT NOT NULL,
  tier INTEGER NOT NULL DEFAULT 0 CHECK (tier BETWEEN 0 AND 5),
  features TEXT NOT NULL DEFAULT '',       -- approved beta features, comma-separated
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_keys_user ON api_keys(user_id);

-- One row per authenticated request (success or error). No FK to api_keys: usage outlives keys.
CREATE TABLE chat_usage (
  id INTEGER PRIMARY KEY,
  created_at INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  user_id INTEGER NOT NULL,
  endpoint TEXT NOT NULL,
  model TEXT NOT NULL,
  status INTEGER NOT NULL,
  error_type TEXT,
  stream INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  citation_tokens INTEGER NOT NULL DEFAULT 0,
  search_queries INTEGER NOT NULL DEFAULT 0,
  input_cost REAL NOT NULL DEFAULT 0,
  output_cost REAL NOT NULL DEFAULT 0,
  reasoning_cost REAL NOT NULL DEFAULT 0,
  citation_cost REAL NOT NULL DEFAULT 0,
  search_cost REAL NOT NULL DEFAULT 0,
  request_cost REAL NOT NULL DEFAULT 0,
  total_cost REAL NOT NULL DEFAULT 0,
  latency_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chat_usage_time ON chat_usage(created_at);
CREATE INDEX chat_usage_user_time ON chat_usage(user_id, created_at);

CREATE TABLE chat_async_jobs (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  request_json TEXT NOT NULL,
  idempotency_key TEXT,
  status TEXT NOT NULL CHECK (status IN ('CREATED', 'IN_PROGRESS', 'COMPLETED', 'FAILED')),
  attempts INTEGER NOT NULL DEFAULT 0,
  progress_json TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER,
  failed_at INTEGER,
  response_json TEXT,
  error_message TEXT
);
CREATE UNIQUE INDEX chat_async_jobs_idempotency ON chat_async_jobs(key_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX chat_async_jobs_user ON chat_async_jobs(user_id, created_at, id);
CREATE INDEX chat_async_jobs_open ON chat_async_jobs(status) WHERE status IN ('CREATED', 'IN_PROGRESS');

CREATE TABLE chat_access_requests (
  id INTEGER PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  requested_tier INTEGER NOT NULL CHECK (requested_tier BETWEEN 0 AND 5),
  reason TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  granted_tier INTEGER,
  note TEXT,
  created_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX chat_access_requests_status ON chat_access_requests(status, id);
`;
