// One worker thread that prepares the backlog's next batch (prepare.ts) while the main thread
// writes the current one (indexing.ts, PrepareAhead). Jobs run one at a time, in order; the thread
// starts with the first and exits after a while without work, giving back its heap. Not the feed
// engine's parse pool: that one may have no worker (parseWorkers 0), its workers carry the
// sanitize memo of the feeds they parse, and the feeds domain imports this one (retention).
import { Worker } from 'node:worker_threads';
import type { SearchItemSource } from '../store/repositories.ts';
import type { PreparedItem } from './prepare.ts';

// The packaged build (dist/) is JavaScript.
const WORKER_URL = new URL(
  import.meta.url.endsWith('.js') ? './prepare-worker.js' : './prepare-worker.ts',
  import.meta.url,
);

type Reply = { items: PreparedItem[] } | { error: string };

export class PrepareThread {
  private worker: Worker | undefined;
  private idle: NodeJS.Timeout | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly idleMs: number;

  constructor(idleMs = 60_000) {
    this.idleMs = idleMs;
  }

  /** Prepares the items on the thread; rejects if it fails or the thread is closed meanwhile. */
  run(sources: SearchItemSource[]): Promise<PreparedItem[]> {
    const job = this.tail.then(
      () => this.send(sources),
      () => this.send(sources),
    );
    this.tail = job.catch(() => {});
    return job;
  }

  private send(sources: SearchItemSource[]): Promise<PreparedItem[]> {
    if (this.closed) return Promise.reject(new Error('search index preparation stopped (shutting down)'));
    clearTimeout(this.idle);
    const worker = (this.worker ??= this.spawn());
    return new Promise<PreparedItem[]>((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (this.worker === worker && !this.closed) {
          this.idle = setTimeout(() => this.stopWorker(), this.idleMs);
          this.idle.unref();
        }
      };
      const onMessage = (reply: Reply) => {
        done();
        if ('error' in reply) reject(new Error(`preparing a search index batch: ${reply.error}`));
        else resolve(reply.items);
      };
      const onError = (e: Error) => {
        done();
        this.worker = undefined;
        reject(e);
      };
      const onExit = () => {
        done();
        this.worker = undefined;
        reject(new Error('search index preparation stopped (shutting down)'));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(sources);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    // A process with nothing else to do must not stay up for an idle preparer.
    worker.unref();
    return worker;
  }

  private stopWorker(): void {
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idle);
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}
