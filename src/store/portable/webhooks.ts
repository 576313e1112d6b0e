// Webhooks and their delivery log / retry queue (src/webhooks).
import type { Sql } from '../sql.ts';
import type { Webhook, WebhookDelivery, WebhookEvent, WebhookRepository } from '../repositories.ts';

const HOOK = 'id, user_id AS userId, url, events, secret_box AS secretBox, created_at AS createdAt';
const DELIVERY = `d.id, d.webhook_id AS webhookId, d.event, d.payload, d.status, d.attempts, d.next_attempt_at AS nextAttemptAt,
  d.last_status AS lastStatus, d.last_error AS lastError, d.created_at AS createdAt, d.finished_at AS finishedAt`;

type HookRow = Omit<Webhook, 'events'> & { events: string };
const toHook = (r: HookRow): Webhook => ({ ...r, events: JSON.parse(r.events) });

export class SqlWebhookRepository implements WebhookRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(
    w: { userId: number; url: string; events: WebhookEvent[]; secretBox: string },
    now: number,
  ): Promise<Webhook> {
    return toHook(
      (await this.s
        .prepare(
          `INSERT INTO webhooks (user_id, url, events, secret_box, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${HOOK}`,
        )
        .get(w.userId, w.url, JSON.stringify(w.events), w.secretBox, now)) as unknown as HookRow,
    );
  }

  async list(userId: number): Promise<Webhook[]> {
    return (
      (await this.s
        .prepare(`SELECT ${HOOK} FROM webhooks WHERE user_id = ? ORDER BY id`)
        .all(userId)) as unknown as HookRow[]
    ).map(toHook);
  }

  async find(id: number): Promise<Webhook | undefined> {
    const r = (await this.s.prepare(`SELECT ${HOOK} FROM webhooks WHERE id = ?`).get(id)) as HookRow | undefined;
    return r && toHook(r);
  }

  async delete(userId: number, id: number): Promise<boolean> {
    return (
      Number((await this.s.prepare('DELETE FROM webhooks WHERE user_id = ? AND id = ?').run(userId, id)).changes) > 0
    );
  }

  async forEvent(userIds: number[], event: WebhookEvent): Promise<Webhook[]> {
    if (!userIds.length) return [];
    return (
      (await this.s
        .prepare(`SELECT ${HOOK} FROM webhooks WHERE user_id IN (SELECT value FROM json_each(?))
      AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) ORDER BY id`)
        .all(JSON.stringify(userIds), event)) as unknown as HookRow[]
    ).map(toHook);
  }

  async forFeedSubscribers(feedId: number, event: WebhookEvent): Promise<Webhook[]> {
    return (
      (await this.s
        .prepare(`SELECT ${HOOK} FROM webhooks WHERE user_id IN (SELECT user_id FROM subscriptions WHERE feed_id = ?)
      AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) ORDER BY id`)
        .all(feedId, event)) as unknown as HookRow[]
    ).map(toHook);
  }

  async enqueue(webhookId: number, event: WebhookEvent, payload: string, now: number): Promise<number> {
    return (
      (await this.s
        .prepare(`INSERT INTO webhook_deliveries (webhook_id, event, payload, status, next_attempt_at, created_at)
      VALUES (?, ?, ?, 'pending', ?, ?) RETURNING id`)
        .get(webhookId, event, payload, now, now)) as { id: number }
    ).id;
  }

  async due(now: number, limit: number): Promise<WebhookDelivery[]> {
    return (await this.s
      // Oldest first, but taking turns between users (each user's oldest, then their second …), so
      // one user's backlog of stuck deliveries never pushes another user's past the limit.
      .prepare(`SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= ?
      ORDER BY row_number() OVER (PARTITION BY w.user_id ORDER BY d.next_attempt_at, d.id), d.next_attempt_at, d.id
      LIMIT ?`)
      .all(now, limit)) as unknown as WebhookDelivery[];
  }

  async nextDueAt(): Promise<number | null> {
    return (
      (await this.s
        .prepare(`SELECT min(next_attempt_at) AS t FROM webhook_deliveries WHERE status = 'pending'`)
        .get()) as {
        t: number | null;
      }
    ).t;
  }

  async markDelivered(id: number, status: number, now: number): Promise<void> {
    await this.s
      .prepare(
        `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, finished_at = ? WHERE id = ?`,
      )
      .run(status, now, id);
  }

  async markAttemptFailed(
    id: number,
    status: number | null,
    error: string,
    nextAttemptAt: number | null,
    now: number,
  ): Promise<void> {
    await this.s
      .prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
        status = CASE WHEN CAST(? AS BIGINT) IS NULL THEN 'failed' ELSE 'pending' END, next_attempt_at = coalesce(CAST(? AS BIGINT), next_attempt_at),
        finished_at = CASE WHEN CAST(? AS BIGINT) IS NULL THEN CAST(? AS BIGINT) ELSE NULL END WHERE id = ?`)
      .run(status, error, nextAttemptAt, nextAttemptAt, nextAttemptAt, now, id);
  }

  async deliveries(userId: number, webhookId: number | null, limit: number): Promise<WebhookDelivery[]> {
    return (await this.s
      .prepare(`SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE w.user_id = ? AND (CAST(? AS BIGINT) IS NULL OR d.webhook_id = ?) ORDER BY d.id DESC LIMIT ?`)
      .all(userId, webhookId, webhookId, limit)) as unknown as WebhookDelivery[];
  }

  async purge(before: number): Promise<number> {
    return Number(
      (await this.s.prepare(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < ?`).run(before))
        .changes,
    );
  }
}
