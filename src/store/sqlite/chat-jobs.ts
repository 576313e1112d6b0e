import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { AsyncJobRepository } from '../repositories.ts';
import type { AsyncJob, JobStatus } from '../../model/chat.ts';

interface Row {
  id: string;
  key_id: string;
  user_id: number;
  model: string;
  request_json: string;
  idempotency_key: string | null;
  status: JobStatus;
  attempts: number;
  progress_json: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  response_json: string | null;
  error_message: string | null;
}

const toJob = (r: Row): AsyncJob => ({
  id: r.id,
  keyId: r.key_id,
  userId: r.user_id,
  model: r.model,
  request: JSON.parse(r.request_json),
  idempotencyKey: r.idempotency_key,
  status: r.status,
  attempts: r.attempts,
  progress: r.progress_json ? JSON.parse(r.progress_json) : null,
  createdAt: r.created_at,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  failedAt: r.failed_at,
  response: r.response_json ? JSON.parse(r.response_json) : null,
  errorMessage: r.error_message,
});

export class SqliteAsyncJobRepository implements AsyncJobRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async create(j: {
    id: string;
    keyId: string;
    userId: number;
    model: string;
    request: unknown;
    idempotencyKey: string | null;
    createdAt: number;
  }): Promise<AsyncJob> {
    const r = this.s
      .get(`INSERT INTO chat_async_jobs (id, key_id, user_id, model, request_json, idempotency_key, status, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'CREATED', ?) RETURNING *`)
      .get(
        j.id,
        j.keyId,
        j.userId,
        j.model,
        JSON.stringify(j.request),
        j.idempotencyKey,
        j.createdAt,
      ) as unknown as Row;
    return toJob(r);
  }
  async find(id: string) {
    const r = this.s.get('SELECT * FROM chat_async_jobs WHERE id = ?').get(id) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async findByIdempotencyKey(keyId: string, idempotencyKey: string) {
    const r = this.s
      .get('SELECT * FROM chat_async_jobs WHERE key_id = ? AND idempotency_key = ?')
      .get(keyId, idempotencyKey) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async listForUser(userId: number, limit: number, before?: { createdAt: number; id: string }): Promise<AsyncJob[]> {
    const rows = before
      ? this.s
          .get(`SELECT * FROM chat_async_jobs WHERE user_id = ? AND (created_at, id) < (?, ?)
                     ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(userId, before.createdAt, before.id, limit)
      : this.s
          .get('SELECT * FROM chat_async_jobs WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?')
          .all(userId, limit);
    return (rows as unknown as Row[]).map(toJob);
  }
  async claimNext(owner: string, nowMs: number, leaseUntilMs: number, startedAt: number) {
    // Polled every few seconds by every process: look first with a read, which never waits for
    // another process's write lock (WAL), and take the lock only when there is a job to claim.
    if (
      !this.s
        .get(`SELECT 1 FROM chat_async_jobs WHERE status IN ('CREATED', 'IN_PROGRESS')
              AND (lease_until IS NULL OR lease_until < ?) LIMIT 1`)
        .get(nowMs)
    )
      return undefined;
    // One write statement: SQLite takes the write lock before the subquery reads, so no other
    // process can pick the same row between the choice and the update.
    const r = this.s
      .get(`UPDATE chat_async_jobs SET status = 'IN_PROGRESS', started_at = ?, attempts = attempts + 1,
              lease_owner = ?, lease_until = ?
            WHERE id = (SELECT id FROM chat_async_jobs WHERE status IN ('CREATED', 'IN_PROGRESS')
                          AND (lease_until IS NULL OR lease_until < ?) ORDER BY created_at, id LIMIT 1)
            RETURNING *`)
      .get(startedAt, owner, leaseUntilMs, nowMs) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async countClaimable(nowMs: number): Promise<number> {
    return (
      this.s
        .get(`SELECT count(*) AS n FROM chat_async_jobs WHERE status IN ('CREATED', 'IN_PROGRESS')
              AND (lease_until IS NULL OR lease_until < ?)`)
        .get(nowMs) as { n: number }
    ).n;
  }
  async renewLease(id: string, owner: string, leaseUntilMs: number): Promise<boolean> {
    return (
      Number(
        this.s
          .get(`UPDATE chat_async_jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
          .run(leaseUntilMs, id, owner).changes,
      ) > 0
    );
  }
  async releaseLease(id: string, owner: string): Promise<void> {
    this.s
      .get(`UPDATE chat_async_jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?`)
      .run(id, owner);
  }
  async setProgress(id: string, owner: string, progress: unknown): Promise<void> {
    this.s
      .get(`UPDATE chat_async_jobs SET progress_json = ? WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
      .run(JSON.stringify(progress), id, owner);
  }
  async markCompleted(id: string, owner: string, response: unknown, at: number): Promise<boolean> {
    const r = this.s
      .get(`UPDATE chat_async_jobs SET status = 'COMPLETED', completed_at = ?, response_json = ?, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
      .run(at, JSON.stringify(response), id, owner);
    return Number(r.changes) > 0;
  }
  async markFailed(id: string, owner: string, message: string, at: number): Promise<boolean> {
    const r = this.s
      .get(`UPDATE chat_async_jobs SET status = 'FAILED', failed_at = ?, error_message = ?, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
      .run(at, message, id, owner);
    return Number(r.changes) > 0;
  }
  async purgeCreatedBefore(before: number): Promise<number> {
    return Number(this.s.get('DELETE FROM chat_async_jobs WHERE created_at < ?').run(before).changes);
  }
}
