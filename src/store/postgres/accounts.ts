// Users, authentication (tokens, OAuth clients and codes, server secrets) and the chat API's
// keys, usage, async jobs and access requests on PostgreSQL: the SQLite repositories' statements
// in PostgreSQL's dialect (numbered parameters, ON CONFLICT, FILTER, arrays instead of json_each).
import type { PgDatabase } from './client.ts';
import type { AsyncJobRepository } from '../repositories.ts';
import type { AsyncJob, JobStatus } from '../../model/chat.ts';

interface JobRow {
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
const toJob = (r: JobRow): AsyncJob => ({
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

export class PgAsyncJobRepository implements AsyncJobRepository {
  private readonly db: PgDatabase;
  constructor(db: PgDatabase) {
    this.db = db;
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
    return toJob(
      (await this.db.row<JobRow>(
        `INSERT INTO chat_async_jobs (id, key_id, user_id, model, request_json, idempotency_key, status, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, 'CREATED', $7) RETURNING *`,
        [j.id, j.keyId, j.userId, j.model, JSON.stringify(j.request), j.idempotencyKey, j.createdAt],
      ))!,
    );
  }
  async find(id: string) {
    const r = await this.db.row<JobRow>('SELECT * FROM chat_async_jobs WHERE id = $1', [id]);
    return r ? toJob(r) : undefined;
  }
  async findByIdempotencyKey(keyId: string, idempotencyKey: string) {
    const r = await this.db.row<JobRow>('SELECT * FROM chat_async_jobs WHERE key_id = $1 AND idempotency_key = $2', [
      keyId,
      idempotencyKey,
    ]);
    return r ? toJob(r) : undefined;
  }
  async listForUser(userId: number, limit: number, before?: { createdAt: number; id: string }): Promise<AsyncJob[]> {
    const rows = before
      ? await this.db.rows<JobRow>(
          `SELECT * FROM chat_async_jobs WHERE user_id = $1 AND (created_at, id) < ($2, $3)
                                    ORDER BY created_at DESC, id DESC LIMIT $4`,
          [userId, before.createdAt, before.id, limit],
        )
      : await this.db.rows<JobRow>(
          'SELECT * FROM chat_async_jobs WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
          [userId, limit],
        );
    return rows.map(toJob);
  }
  async claimNext(owner: string, nowMs: number, leaseUntilMs: number, startedAt: number) {
    // SKIP LOCKED: a process claiming at the same moment takes the next job instead of waiting
    // for this one (and the re-check under the row lock keeps it from taking this one twice).
    const r = await this.db.row<JobRow>(
      `UPDATE chat_async_jobs SET status = 'IN_PROGRESS', started_at = $1, attempts = attempts + 1,
        lease_owner = $2, lease_until = $3
      WHERE id = (SELECT id FROM chat_async_jobs WHERE status IN ('CREATED', 'IN_PROGRESS')
                    AND (lease_until IS NULL OR lease_until < $4) ORDER BY created_at, id LIMIT 1
                    FOR UPDATE SKIP LOCKED)
      RETURNING *`,
      [startedAt, owner, leaseUntilMs, nowMs],
    );
    return r ? toJob(r) : undefined;
  }
  async countClaimable(nowMs: number): Promise<number> {
    const r = await this.db.row<{ n: number }>(
      `SELECT count(*) AS n FROM chat_async_jobs WHERE status IN ('CREATED', 'IN_PROGRESS')
      AND (lease_until IS NULL OR lease_until < $1)`,
      [nowMs],
    );
    return r?.n ?? 0;
  }
  async renewLease(id: string, owner: string, leaseUntilMs: number): Promise<boolean> {
    return (
      (await this.db.changes(
        `UPDATE chat_async_jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'IN_PROGRESS'`,
        [leaseUntilMs, id, owner],
      )) > 0
    );
  }
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.db.query(
      'UPDATE chat_async_jobs SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2',
      [id, owner],
    );
  }
  async setProgress(id: string, owner: string, progress: unknown): Promise<void> {
    await this.db.query(
      `UPDATE chat_async_jobs SET progress_json = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'IN_PROGRESS'`,
      [JSON.stringify(progress), id, owner],
    );
  }
  async markCompleted(id: string, owner: string, response: unknown, at: number): Promise<boolean> {
    return (
      (await this.db.changes(
        `UPDATE chat_async_jobs SET status = 'COMPLETED', completed_at = $1, response_json = $2, lease_owner = NULL, lease_until = NULL
        WHERE id = $3 AND lease_owner = $4 AND status = 'IN_PROGRESS'`,
        [at, JSON.stringify(response), id, owner],
      )) > 0
    );
  }
  async markFailed(id: string, owner: string, message: string, at: number): Promise<boolean> {
    return (
      (await this.db.changes(
        `UPDATE chat_async_jobs SET status = 'FAILED', failed_at = $1, error_message = $2, lease_owner = NULL, lease_until = NULL
        WHERE id = $3 AND lease_owner = $4 AND status = 'IN_PROGRESS'`,
        [at, message, id, owner],
      )) > 0
    );
  }
  purgeCreatedBefore(before: number): Promise<number> {
    return this.db.changes('DELETE FROM chat_async_jobs WHERE created_at < $1', [before]);
  }
}
