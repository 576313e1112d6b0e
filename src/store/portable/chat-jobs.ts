// Async chat completions (src/chat-api/async-jobs.ts): the jobs, claimed with a lease by whichever
// process serving the API has a free slot.
import { DB_NOW_MS, type Sql } from '../sql.ts';
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

// Leases are set and compared by the database's clock (../sql.ts, DB_NOW_MS): processes on
// machines whose clocks disagree by seconds must agree on when a lease has run out, or one would
// take over a job still running elsewhere (or wait long after its holder died).
const CLAIMABLE = `status IN ('CREATED', 'IN_PROGRESS') AND (lease_until IS NULL OR lease_until < ${DB_NOW_MS})`;

// One write statement on both. SQLite takes its write lock before the subquery reads, so no other
// process picks the same row between the choice and the update. PostgreSQL locks the chosen row
// and skips rows another claimer has locked (it takes the next job instead of waiting, and never
// this one twice: without the lock both would pick it, and the second would update it again).
const claim = (lock: string) => `UPDATE chat_async_jobs SET status = 'IN_PROGRESS', started_at = ?,
    attempts = attempts + 1, lease_owner = ?, lease_until = ${DB_NOW_MS} + ?
  WHERE id = (SELECT id FROM chat_async_jobs WHERE ${CLAIMABLE} ORDER BY created_at, id LIMIT 1${lock})
  RETURNING *`;
const CLAIM = { sqlite: claim(''), postgres: claim(' FOR UPDATE SKIP LOCKED') } as const;

export class SqlAsyncJobRepository implements AsyncJobRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(j: Parameters<AsyncJobRepository['create']>[0]): Promise<AsyncJob> {
    const r = (await this.s
      .prepare(`INSERT INTO chat_async_jobs (id, key_id, user_id, model, request_json, idempotency_key, status, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'CREATED', ?) RETURNING *`)
      .get(j.id, j.keyId, j.userId, j.model, JSON.stringify(j.request), j.idempotencyKey, j.createdAt)) as Row;
    return toJob(r);
  }
  async find(id: string) {
    const r = (await this.s.prepare('SELECT * FROM chat_async_jobs WHERE id = ?').get(id)) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async findByIdempotencyKey(keyId: string, idempotencyKey: string) {
    const r = (await this.s
      .prepare('SELECT * FROM chat_async_jobs WHERE key_id = ? AND idempotency_key = ?')
      .get(keyId, idempotencyKey)) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async listForUser(userId: number, limit: number, before?: { createdAt: number; id: string }): Promise<AsyncJob[]> {
    const rows = before
      ? await this.s
          .prepare(`SELECT * FROM chat_async_jobs WHERE user_id = ? AND (created_at, id) < (?, ?)
                     ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(userId, before.createdAt, before.id, limit)
      : await this.s
          .prepare('SELECT * FROM chat_async_jobs WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?')
          .all(userId, limit);
    return (rows as Row[]).map(toJob);
  }
  async claimNext(owner: string, leaseMs: number, startedAt: number) {
    // Polled every few seconds by every process: look first with a read, which waits for no other
    // process's write lock (SQLite's WAL) and writes nothing (PostgreSQL's change signal would
    // count an UPDATE of no rows as this process's write), and claim only when there is a job.
    if (!(await this.s.prepare(`SELECT 1 FROM chat_async_jobs WHERE ${CLAIMABLE} LIMIT 1`).get())) return undefined;
    const r = (await this.s.prepare(CLAIM[this.s.dialect]).get(startedAt, owner, leaseMs)) as Row | undefined;
    return r ? toJob(r) : undefined;
  }
  async countClaimable(): Promise<number> {
    return (
      (await this.s.prepare(`SELECT count(*) AS n FROM chat_async_jobs WHERE ${CLAIMABLE}`).get()) as {
        n: number;
      }
    ).n;
  }
  async renewLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return (
      (
        await this.s
          .prepare(
            `UPDATE chat_async_jobs SET lease_until = ${DB_NOW_MS} + ? WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`,
          )
          .run(leaseMs, id, owner)
      ).changes > 0
    );
  }
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.s
      .prepare('UPDATE chat_async_jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?')
      .run(id, owner);
  }
  async setProgress(id: string, owner: string, progress: unknown): Promise<void> {
    await this.s
      .prepare(
        `UPDATE chat_async_jobs SET progress_json = ? WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`,
      )
      .run(JSON.stringify(progress), id, owner);
  }
  async markCompleted(id: string, owner: string, response: unknown, at: number): Promise<boolean> {
    const r = await this.s
      .prepare(`UPDATE chat_async_jobs SET status = 'COMPLETED', completed_at = ?, response_json = ?, lease_owner = NULL,
          lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
      .run(at, JSON.stringify(response), id, owner);
    return r.changes > 0;
  }
  async markFailed(id: string, owner: string, message: string, at: number): Promise<boolean> {
    const r = await this.s
      .prepare(`UPDATE chat_async_jobs SET status = 'FAILED', failed_at = ?, error_message = ?, lease_owner = NULL,
          lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'IN_PROGRESS'`)
      .run(at, message, id, owner);
    return r.changes > 0;
  }
  async purgeCreatedBefore(before: number): Promise<number> {
    return (await this.s.prepare('DELETE FROM chat_async_jobs WHERE created_at < ?').run(before)).changes;
  }
}
