// Async chat completions (deep research): jobs are rows in the store, run in the background with
// bounded concurrency by any process serving the API, with progress stored as they go. Several
// processes (`serve --workers`, several machines on one PostgreSQL) share the jobs: a process claims
// a job atomically with a lease (claimLeaseSeconds) and renews it every third of the lease while
// the job runs, so a job runs in one process at a time, and the job of a process that died (kill -9,
// a lost machine) is claimed by another once the lease has run out (by the database's clock, so
// machines whose clocks disagree still agree on that). Only the holder of the lease
// can store the job's progress, result or failure: a process that stalled past its lease and lost
// the job cannot complete it a second time. A process starting up claims only jobs nobody holds
// (new ones, leases run out, jobs given back by a process that shut down) and finds new ones by
// polling (at most every 5 s; at once for jobs submitted to itself). An interrupted job is re-run
// from the start (the pipeline has no resumable checkpoints); after MAX_ATTEMPTS interruptions it
// fails. Jobs and results are purged after the retention period (asyncJobRetentionDays, 7 by default).
import type { AsyncJob } from '../model/chat.ts';
import type { ChatApi } from './context.ts';
import { parseChatRequest, scopeFor } from './request-schema.ts';
import { computeCost } from './prices.ts';
import { toCompletionObject } from './completion-object.ts';
import { filterImages } from './image-filter.ts';
import { toApiError } from './errors.ts';
import { recordUsage } from './usage.ts';
import { reportQueueDepth } from '../observability/events.ts';
import { claimOwner, claimTiming } from '../runtime/claim-owner.ts';

export const MAX_ATTEMPTS = 3;
const PROGRESS_WRITE_INTERVAL_MS = 1000;
const MAX_POLL_MS = 5000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

class LeaseLost extends Error {}

export class AsyncJobRunner {
  private readonly api: ChatApi;
  private readonly concurrency: number;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly running = new Map<string, { ac: AbortController; done: Promise<void> }>();
  private claiming: Promise<void> | null = null;
  private wakeAgain = false;
  private waiting = 0;
  private closed = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(api: ChatApi, concurrency: number) {
    this.api = api;
    this.concurrency = Math.max(1, concurrency);
    this.owner = claimOwner(api.app);
    ({ leaseMs: this.leaseMs, renewMs: this.renewMs } = claimTiming(api.app));
  }

  /** Purges expired jobs, then claims the jobs nobody holds and keeps looking for more. */
  async start(): Promise<void> {
    reportQueueDepth(this.api.app, 'async_jobs', () => ({ waiting: this.waiting, running: this.running.size }));
    await this.purge();
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(60 * 60 * 1000, () => {
      this.purge().catch((err: unknown) => this.api.app.log.error({ err }, 'could not purge async chat jobs'));
    });
    every(this.renewMs, () => void this.renewLeases());
    every(Math.min(this.renewMs, MAX_POLL_MS), () => this.wake());
    this.wake();
  }

  /** A job was submitted (or may be claimable): claim jobs while a slot is free. */
  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.claimWhileFree()
      .catch((err: unknown) => this.api.app.log.error({ err }, 'could not claim async chat jobs'))
      .finally(() => {
        this.claiming = null;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake();
        }
      });
  }

  private async claimWhileFree(): Promise<void> {
    const { jobs } = this.api.store;
    while (!this.closed && this.running.size < this.concurrency) {
      const job = await jobs.claimNext(this.owner, this.leaseMs, nowSeconds());
      if (!job) {
        this.waiting = 0;
        return;
      }
      if (this.closed) {
        await jobs.releaseLease(job.id, this.owner);
        return;
      }
      this.api.app.log.info({ jobId: job.id, attempt: job.attempts }, 'async chat job claimed');
      this.launch(job);
    }
    this.waiting = await jobs.countClaimable();
  }

  private launch(job: AsyncJob): void {
    const ac = new AbortController();
    const done = this.run(job, ac.signal)
      .catch((err) => this.api.app.log.error({ err, jobId: job.id }, 'async chat job crashed'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { ac, done });
  }

  /** Extends the lease of every running job; a job whose lease was lost is stopped here. */
  private async renewLeases(): Promise<void> {
    const { jobs } = this.api.store;
    await Promise.all(
      [...this.running].map(async ([id, r]) => {
        try {
          if (!(await jobs.renewLease(id, this.owner, this.leaseMs))) {
            this.api.app.log.warn(
              { jobId: id },
              'async chat job lease lost (another process took it over): stopped here',
            );
            r.ac.abort(new LeaseLost('the lease of this job was lost'));
          }
        } catch (err) {
          // The database is briefly unreachable: the lease has two more renewals before it runs out.
          this.api.app.log.warn({ err, jobId: id }, 'could not renew the lease of an async chat job');
        }
      }),
    );
  }

  async purge(): Promise<number> {
    const before = nowSeconds() - this.api.app.config.asyncJobRetentionDays * 86400;
    const n = await this.api.store.jobs.purgeCreatedBefore(before);
    if (n) this.api.app.log.info({ purged: n }, 'purged expired async chat jobs');
    return n;
  }

  /**
   * Stops taking jobs and interrupts running ones; they stay IN_PROGRESS and their leases are given
   * back, so another running process (or this one after a restart) takes them over at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    const interrupted = [...this.running.keys()];
    for (const r of this.running.values()) r.ac.abort(new Error('server shutting down'));
    await Promise.all([this.claiming, ...[...this.running.values()].map((r) => r.done)]);
    await Promise.all(
      interrupted.map((id) =>
        this.api.store.jobs
          .releaseLease(id, this.owner)
          .catch((err: unknown) =>
            this.api.app.log.warn({ err, jobId: id }, 'could not give back an async chat job (its lease will run out)'),
          ),
      ),
    );
  }

  /** Resolves when this process is neither claiming nor running a job (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.claiming || this.running.size)
      await Promise.all([this.claiming, ...[...this.running.values()].map((r) => r.done)]);
  }

  private async run(job: AsyncJob, signal: AbortSignal): Promise<void> {
    const { jobs, keys } = this.api.store;
    const id = job.id;
    const owner = this.owner;
    // The claim counted this run as an attempt.
    if (job.attempts > MAX_ATTEMPTS) {
      await jobs.markFailed(
        id,
        owner,
        `The job was interrupted ${job.attempts - 1} times (server restarts or crashes) and was given up; submit it again.`,
        nowSeconds(),
      );
      return;
    }
    const key = await keys.findById(job.keyId);
    if (!key || key.revokedAt !== null) {
      await jobs.markFailed(id, owner, 'The API key that submitted this job was revoked before it ran.', nowSeconds());
      return;
    }
    // Shut down while the job was being claimed (storage calls take real time on a server).
    if (signal.aborted) return;
    const startedAt = performance.now();
    const shouldWrite = progressThrottle(PROGRESS_WRITE_INTERVAL_MS);
    let progressWrites = Promise.resolve();
    try {
      const parsed = parseChatRequest(job.request);
      const size = parsed.answer.searchContextSize;
      const result = await untilAborted(
        signal,
        this.api.answers.complete({
          ...parsed.answer,
          scope: scopeFor(key.userId, parsed.streamIds),
          signal,
          onProgress: (p) => {
            if (shouldWrite(p.fraction === 1)) {
              // In order, and all stored before the job is marked done: only the lease holder
              // of an IN_PROGRESS job can write progress, so a late write would be dropped.
              progressWrites = progressWrites.then(() =>
                jobs
                  .setProgress(id, owner, p)
                  .catch((err: unknown) =>
                    this.api.app.log.warn({ err, jobId: id }, 'could not store async job progress'),
                  ),
              );
            }
          },
        }),
      );
      if (signal.aborted) return;
      const cost = computeCost(this.api.prices, parsed.model, result.usage, size);
      if (result.images) result.images = filterImages(result.images, parsed.imageDomainFilter);
      const obj = toCompletionObject(result, parsed.model, {
        searchContextSize: size,
        cost,
        returnImages: parsed.answer.returnImages ?? false,
        returnRelatedQuestions: parsed.answer.returnRelatedQuestions ?? false,
      });
      await progressWrites;
      if (!(await jobs.markCompleted(id, owner, obj, nowSeconds()))) {
        this.api.app.log.warn({ jobId: id }, 'async chat job finished after its lease was lost: result dropped');
        return;
      }
      recordUsage(this.api, key, {
        endpoint: 'async',
        model: parsed.model,
        status: 200,
        usage: result.usage,
        cost,
        startedAt,
      });
    } catch (e) {
      if (signal.aborted) return; // shutdown or lease lost: the job stays IN_PROGRESS for its next holder
      const err = toApiError(e);
      if (err.status >= 500) this.api.app.log.error({ err: e, jobId: id }, 'async chat job failed');
      await progressWrites;
      if (!(await jobs.markFailed(id, owner, err.message, nowSeconds()))) return;
      recordUsage(this.api, key, {
        endpoint: 'async',
        model: job.model,
        status: err.status,
        errorType: err.type,
        startedAt,
      });
    }
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: shutdown must not wait for a
 * pipeline that is slow to notice the abort (the orphaned work's outcome is ignored).
 */
function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) {
    // The work was started anyway: its own failure (it sees the aborted signal) is expected.
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The wire shape of a job (spec): `response` only on GET by id. */
export function toWireJob(j: AsyncJob, withResponse: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: j.id,
    model: j.model,
    created_at: j.createdAt,
    started_at: j.startedAt,
    completed_at: j.completedAt,
    failed_at: j.failedAt,
  };
  if (withResponse) out.response = j.status === 'COMPLETED' ? j.response : null;
  out.error_message = j.errorMessage;
  out.status = j.status;
  return out;
}

/**
 * Decides which progress reports are stored: the first one always (a job's first report used to be
 * dropped when the process was younger than the interval, because the clock of the last write
 * started at 0), the final one always, and otherwise at most one per interval.
 */
export function progressThrottle(
  intervalMs: number,
  now: () => number = () => performance.now(),
): (final: boolean) => boolean {
  let last: number | undefined;
  return (final) => {
    const t = now();
    if (!final && last !== undefined && t - last < intervalMs) return false;
    last = t;
    return true;
  };
}
