// Async chat completions (deep research): jobs are rows in SQLite, run in the background by the
// server with bounded concurrency, with progress stored as they go. On start the runner picks up
// jobs left CREATED or IN_PROGRESS by a previous process (an interrupted job is re-run from the
// start: the pipeline has no resumable checkpoints); after MAX_ATTEMPTS interruptions it fails.
// Jobs and results are purged after the retention period (asyncJobRetentionDays, 7 by default).
import type { AsyncJob } from '../model/chat.ts';
import type { ChatApi } from './context.ts';
import { parseChatRequest, scopeFor } from './request-schema.ts';
import { computeCost } from './prices.ts';
import { toCompletionObject } from './completion-object.ts';
import { filterImages } from './image-filter.ts';
import { toApiError } from './errors.ts';
import { recordUsage } from './usage.ts';
import { reportQueueDepth } from '../observability/events.ts';

export const MAX_ATTEMPTS = 3;
const PROGRESS_WRITE_INTERVAL_MS = 1000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class AsyncJobRunner {
  private readonly api: ChatApi;
  private readonly concurrency: number;
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Map<string, { ac: AbortController; done: Promise<void> }>();
  private closed = false;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(api: ChatApi, concurrency: number) {
    this.api = api;
    this.concurrency = Math.max(1, concurrency);
  }

  /**
   * Purges expired jobs and queues the unfinished ones of earlier processes; with `resume` false
   * (a worker of `serve --workers N` without the background role) only runs the jobs submitted to it.
   */
  async start(resume = true): Promise<void> {
    reportQueueDepth(this.api.app, 'async_jobs', () => ({ waiting: this.queue.length, running: this.running.size }));
    if (!resume) return;
    await this.purge();
    this.purgeTimer = setInterval(
      () => {
        this.purge().catch((err: unknown) => this.api.app.log.error({ err }, 'could not purge async chat jobs'));
      },
      60 * 60 * 1000,
    );
    this.purgeTimer.unref();
    const unfinished = await this.api.store.jobs.listUnfinished();
    if (unfinished.length) this.api.app.log.info({ jobs: unfinished.length }, 'resuming async chat jobs');
    for (const j of unfinished) this.enqueue(j.id);
  }

  enqueue(id: string): void {
    if (this.closed || this.queued.has(id) || this.running.has(id)) return;
    this.queue.push(id);
    this.queued.add(id);
    this.pump();
  }

  async purge(): Promise<number> {
    const before = nowSeconds() - this.api.app.config.asyncJobRetentionDays * 86400;
    const n = await this.api.store.jobs.purgeCreatedBefore(before);
    if (n) this.api.app.log.info({ purged: n }, 'purged expired async chat jobs');
    return n;
  }

  /** Stops taking jobs and interrupts running ones; they stay IN_PROGRESS and re-run on the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.purgeTimer);
    for (const r of this.running.values()) r.ac.abort(new Error('server shutting down'));
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Resolves when no job is queued or running (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.running.size || (this.queue.length && !this.closed))
      await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.queue.length) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      const ac = new AbortController();
      const done = this.run(id, ac.signal)
        .catch((err) => this.api.app.log.error({ err, jobId: id }, 'async chat job crashed'))
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
      this.running.set(id, { ac, done });
    }
  }

  private async run(id: string, signal: AbortSignal): Promise<void> {
    const { jobs, keys } = this.api.store;
    const job = await jobs.find(id);
    if (!job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
    if (job.attempts >= MAX_ATTEMPTS) {
      await jobs.markFailed(
        id,
        `The job was interrupted ${job.attempts} times (server restarts) and was given up; submit it again.`,
        nowSeconds(),
      );
      return;
    }
    const key = await keys.findById(job.keyId);
    if (!key || key.revokedAt !== null) {
      await jobs.markFailed(id, 'The API key that submitted this job was revoked before it ran.', nowSeconds());
      return;
    }
    await jobs.markStarted(id, nowSeconds());
    // Shut down while the job was being marked (storage calls take real time on a server).
    if (signal.aborted) return;
    const startedAt = performance.now();
    const shouldWrite = progressThrottle(PROGRESS_WRITE_INTERVAL_MS);
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
              jobs
                .setProgress(id, p)
                .catch((err: unknown) =>
                  this.api.app.log.warn({ err, jobId: id }, 'could not store async job progress'),
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
      await jobs.markCompleted(id, obj, nowSeconds());
      recordUsage(this.api, key, {
        endpoint: 'async',
        model: parsed.model,
        status: 200,
        usage: result.usage,
        cost,
        startedAt,
      });
    } catch (e) {
      if (signal.aborted) return; // shutdown: stays IN_PROGRESS, re-run on the next start
      const err = toApiError(e);
      if (err.status >= 500) this.api.app.log.error({ err: e, jobId: id }, 'async chat job failed');
      await jobs.markFailed(id, err.message, nowSeconds());
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
