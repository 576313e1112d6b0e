// WebSub subscriptions (src/feeds/websub): one per feed.
import type { Sql } from '../sql.ts';
import type { WebSubRepository, WebSubState, WebSubSubscription } from '../repositories.ts';
import { COLUMNS } from '../rows/websub.ts';

export class SqlWebSubRepository implements WebSubRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async find(feedId: number): Promise<WebSubSubscription | undefined> {
    return (await this.s.prepare(`SELECT ${COLUMNS} FROM websub_subscriptions w WHERE w.feed_id = ?`).get(feedId)) as
      | WebSubSubscription
      | undefined;
  }

  async findByToken(token: string): Promise<WebSubSubscription | undefined> {
    return (await this.s
      .prepare(`SELECT ${COLUMNS} FROM websub_subscriptions w WHERE w.callback_token = ?`)
      .get(token)) as WebSubSubscription | undefined;
  }

  async recordHub(
    feedId: number,
    hubUrl: string,
    topicUrl: string,
    newToken: string,
    newSecretBox: string,
  ): Promise<void> {
    // A different hub or topic is a new subscription: new token and secret, so the old hub's
    // pushes stop being accepted.
    await this.s
      .prepare(`INSERT INTO websub_subscriptions (feed_id, hub_url, topic_url, callback_token, secret_box, state) VALUES (?, ?, ?, ?, ?, 'discovered')
      ON CONFLICT (feed_id) DO UPDATE SET hub_url = excluded.hub_url, topic_url = excluded.topic_url, callback_token = excluded.callback_token,
        secret_box = excluded.secret_box, state = 'discovered', lease_expires_at = NULL, requested_at = NULL, last_error = NULL
      WHERE websub_subscriptions.hub_url <> excluded.hub_url OR websub_subscriptions.topic_url <> excluded.topic_url`)
      .run(feedId, hubUrl, topicUrl, newToken, newSecretBox);
  }

  async setState(
    feedId: number,
    state: WebSubState,
    fields: {
      leaseExpiresAt?: number | null;
      leaseSeconds?: number | null;
      requestedAt?: number | null;
      lastError?: string | null;
    },
  ): Promise<void> {
    const sets = ['state = ?'];
    const params: (string | number | null)[] = [state];
    if ('leaseExpiresAt' in fields) {
      sets.push('lease_expires_at = ?');
      params.push(fields.leaseExpiresAt ?? null);
    }
    if ('leaseSeconds' in fields) {
      sets.push('lease_seconds = ?');
      params.push(fields.leaseSeconds ?? null);
    }
    if ('requestedAt' in fields) {
      sets.push('requested_at = ?');
      params.push(fields.requestedAt ?? null);
    }
    if ('lastError' in fields) {
      sets.push('last_error = ?');
      params.push(fields.lastError ?? null);
    }
    await this.s.prepare(`UPDATE websub_subscriptions SET ${sets.join(', ')} WHERE feed_id = ?`).run(...params, feedId);
  }

  async recordPush(feedId: number, at: number): Promise<void> {
    await this.s
      .prepare('UPDATE websub_subscriptions SET last_push_at = ?, pushes = pushes + 1 WHERE feed_id = ?')
      .run(at, feedId);
  }

  async delete(feedId: number): Promise<void> {
    await this.s.prepare('DELETE FROM websub_subscriptions WHERE feed_id = ?').run(feedId);
  }

  async maintenance(now: number, renewAheadSeconds: number, retryBefore: number): Promise<WebSubSubscription[]> {
    // Portable: the derived table has a name, its camelCase columns are quoted, and the smaller of
    // two values is a CASE (SQLite's min(a, b) is least(a, b) on PostgreSQL).
    return (await this.s
      .prepare(`SELECT * FROM (SELECT ${COLUMNS} FROM websub_subscriptions w) x WHERE
         (subscribers = 0 AND state <> 'unsubscribing')
      OR (subscribers = 0 AND state = 'unsubscribing' AND "requestedAt" < ?3)
      OR (subscribers > 0 AND (state = 'discovered'
          OR (state = 'active' AND "leaseExpiresAt" < ?1 + CASE WHEN ?2 < coalesce("leaseSeconds", ?2 * 2) / 2 THEN ?2 ELSE coalesce("leaseSeconds", ?2 * 2) / 2 END)
          OR (state IN ('requested', 'failed', 'unsubscribing') AND coalesce("requestedAt", 0) < ?3)))
      ORDER BY "feedId"`)
      .all(now, renewAheadSeconds, retryBefore)) as unknown as WebSubSubscription[];
  }
}
