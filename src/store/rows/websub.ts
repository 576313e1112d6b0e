// Columns of a WebSub subscription as the model names them, shared by the SQLite and PostgreSQL repositories.

export const COLUMNS = `w.feed_id AS feedId, w.hub_url AS hubUrl, w.topic_url AS topicUrl, w.callback_token AS callbackToken, w.secret_box AS secretBox,
  w.state, w.lease_expires_at AS leaseExpiresAt, w.lease_seconds AS leaseSeconds, w.requested_at AS requestedAt, w.last_error AS lastError, w.last_push_at AS lastPushAt, w.pushes,
  (SELECT count(*) FROM subscriptions s WHERE s.feed_id = w.feed_id) AS subscribers`;
