// Parsing (XML, normalising, sanitizing HTML) is the CPU-heavy step of a refresh. A small pool of
// worker threads runs it beside the main thread, which keeps storing items and serving the APIs:
// a refresh of thousands of feeds neither stalls HTTP requests nor uses only one core. A worker
// also bounds a pathological document: past the time limit it is terminated and replaced. Every
// read of remote content goes through it (run-job.ts: feeds on refresh and on subscribe, article
// pages, a page's feed and icon links, OPML files): a crafted feed parsed on the main thread froze
// every request for 5-15 s (issue 25.2).
//
// A feed is always parsed by the same worker (its id modulo the pool size): each worker remembers
// the fragments it sanitized (sanitize-html.ts), and a changed feed mostly repeats the entries it
// had last time, so routing it back to the worker that saw them turns most of its sanitizing into
// memo hits. Jobs without a key go to the least busy worker.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ParsedFeed } from '../../model/parsed-feed.ts';
import { FeedError, formatDuration } from '../errors.ts';
import { FeedParseError } from '../parser/feed-parse-error.ts';
import { OpmlError } from '../opml/opml-error.ts';
import type { ParseFeedOptions } from '../parser/parse-feed.ts';
import type { ExtractedArticle, ReadablePage } from '../fulltext/extract.ts';
import type { FeedLink } from '../discovery/find-feed-links.ts';
import type { OpmlSubscription } from '../opml/opml.ts';
import type { JobResult } from './run-job.ts';

/**
 * What a job reads (run-job.ts): a feed; an article page, reduced to its readable text (full
 * text); a page's announced feed links (discovery) or icon links (favicons); an OPML file. Or
 * (kind 'module') another domain's CPU-heavy step on untrusted input: the worker imports `module`
 * and returns what its `runInWorker(input)` returns. Other domains pass their module's URL instead
 * of the feeds domain importing them (filter rules: src/rules/match-worker.ts).
 */
export type JobKind = 'feed' | 'article' | 'web-page' | 'feed-links' | 'icon-links' | 'opml';
export interface DocumentJob {
  id: number;
  kind?: JobKind;
  body: Uint8Array;
  url: string;
  contentType: string | null;
  crawlTime?: number;
}
export type ParseJob = DocumentJob | { id: number; kind: 'module'; module: string; input: unknown };
export type ParseReply =
  | { id: number; value: JobResult }
  | { id: number; result: unknown }
  | { id: number; error: { kind: 'parse' | 'opml' | 'other'; message: string } };

/** How a job over its time limit is described ("… took longer than 30 s"). */
const DOING: Record<JobKind, string> = {
  feed: 'parsing',
  article: 'reading the article page',
  'web-page': 'reading the web page',
  'feed-links': "reading the page's feed links",
  'icon-links': "reading the page's icon links",
  opml: 'reading the OPML file',
};

interface Pending {
  job: ParseJob;
  /** Memory handed to the worker with the job instead of copied (transferBody). */
  transfer?: ArrayBuffer[];
  resolve: (p: any) => void;
  reject: (e: Error) => void;
  /** This job's time limit, when not the pool's (module jobs). */
  timeLimitMs?: number;
  /** What the job does, for the time-limit error ("matching the filter rules"). */
  what?: string;
}
interface Slot {
  index: number;
  worker: Worker;
  current: Pending | null;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
  /** Jobs done, for the periodic heap check. */
  jobs: number;
  /** Its heap grew past the recycle size: replaced before its next job, or at once when idle. */
  retire: boolean;
  /** Heap check once the worker has had nothing to do for a moment (the end of a refresh). */
  settle: NodeJS.Timeout | null;
  /**
   * Retired while jobs wait: its replacement, started at once so it loads its modules while this
   * worker finishes its job, and takes over the queue without a pause (see warmSuccessor).
   */
  successor: Successor | null;
}
interface Successor {
  worker: Worker;
  /** Drops the successor from its slot should it exit before taking over. */
  onExit: () => void;
}

// The packaged build (dist/, see tsconfig.build.json) is JavaScript: the worker file is .js there.
const WORKER_URL = new URL(
  import.meta.url.endsWith('.js') ? './parse-worker.js' : './parse-worker.ts',
  import.meta.url,
);

/**
 * V8 grows a thread's young generation with its allocation rate, up to 128 MB here: a parse worker
 * ended a 1,000-feed refresh holding a 162-175 MB heap of which 40-80 MB was in use. Capped at
 * 16 MB, the heap ended at 57 MB and the process 74-100 MB smaller, with no measurable change in
 * refresh time (74 s against 77 s, loaded machine).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

/**
 * V8 collects a parse worker's old generation late: after a 1,000-feed refresh its heap was
 * 60-130 MB committed for ~24 MB live (of which ~9 MB sanitize memo). A worker past
 * WORKER_IDLE_RECYCLE_HEAP_MB when its queue runs dry is replaced at once (the next refresh starts a
 * fresh one), instead of holding that heap for the 5 idle minutes. While busy, only a heap past
 * WORKER_RECYCLE_HEAP_MB is replaced: recycling at 48 MB during a 1,000-feed parse made it 2-3x
 * slower (20 fresh workers, each loading its modules and warming up again); at 160 MB the heap
 * reached 92-134 MB in a 1,000-feed first refresh, at 96 MB it is replaced about once per such
 * refresh (BENCHMARKS.md, Feed engine). The heap is checked every RECYCLE_CHECK_EVERY jobs and
 * after SETTLE_MS without work (one message each).
 */
const WORKER_RECYCLE_HEAP_MB = 96;
const WORKER_IDLE_RECYCLE_HEAP_MB = 48;
const RECYCLE_CHECK_EVERY = 10;
const SETTLE_MS = 2000;
/**
 * Pool size for config.parseWorkers; negative means automatic: one less than the CPU cores, at
 * most 2, at least 1. Measured on 2 cores (BENCHMARKS.md, Feed engine): one worker parsing while the main
 * thread fetches and stores beat both no worker and two (two workers compete with the main thread
 * for the cores, and each adds ~100-150 MB of heap). One core still gets a worker: without one,
 * parses run on the thread serving requests with no time limit.
 */
export function parseWorkerCount(configured: number, cores = availableParallelism()): number {
  return configured >= 0 ? configured : Math.max(1, Math.min(2, cores - 1));
}

/**
 * The memory of a body the caller gives away, to move to the worker instead of copying it: only
 * when the body is the whole of its ArrayBuffer. A small Buffer is a slice of Node's shared pool,
 * which must not move (every other Buffer in it would go with it): that one is copied.
 */
export function transferBody(body: Uint8Array): ArrayBuffer[] | undefined {
  const b = body.buffer;
  return b instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === b.byteLength && b.byteLength > 0
    ? [b]
    : undefined;
}

export class ParsePool {
  /** One queue and (once started) one worker per index. */
  private readonly queues: Pending[][];
  private readonly slots: Array<Slot | undefined>;
  /** Number of worker threads (0: parses run on the calling thread). */
  readonly size: number;
  private readonly timeLimitMs: number;
  private readonly idleMs: number;
  private readonly recycleHeapBytes: number;
  private readonly idleRecycleHeapBytes: number;
  private nextId = 1;
  /** Workers replaced because their heap grew past the recycle size (tests, logs). */
  recycled = 0;
  /** Of those, replaced by a successor started while the old worker still had its job (tests). */
  handedOver = 0;
  private closed = false;

  /**
   * `idleMs`: a worker with nothing to do for this long exits, giving back its heap (tens of MB
   * after a big refresh, plus its sanitize memo); the next parse starts a fresh one (~0.3 s). With
   * the scheduler finding due feeds every minute, a busy server keeps its workers.
   */
  constructor(
    size: number,
    timeLimitMs = 30_000,
    idleMs = 5 * 60_000,
    recycleHeapBytes = WORKER_RECYCLE_HEAP_MB * 1024 * 1024,
    idleRecycleHeapBytes = WORKER_IDLE_RECYCLE_HEAP_MB * 1024 * 1024,
  ) {
    this.size = Math.max(0, size);
    this.timeLimitMs = timeLimitMs;
    this.idleMs = idleMs;
    this.recycleHeapBytes = recycleHeapBytes;
    this.idleRecycleHeapBytes = idleRecycleHeapBytes;
    this.queues = Array.from({ length: this.size }, () => []);
    this.slots = new Array(this.size).fill(undefined);
  }

  /**
   * Parses on a worker; with a pool of size 0, on this thread. Rejects with FeedParseError like
   * parseFeed. `affinity` (a feed id) sends every parse of one feed to the same worker.
   * `giveAway`: the caller no longer needs `body`, whose memory then moves to the worker instead
   * of being copied (postMessage's copy of a refresh's 78 KB bodies was 3 % of the main thread's
   * time in a first refresh); `body` reads as empty afterwards.
   */
  parse(body: Buffer, opts: ParseFeedOptions, affinity?: number, giveAway = false): Promise<ParsedFeed> {
    return this.run(
      { kind: 'feed', body, url: opts.url, contentType: opts.contentType ?? null, crawlTime: opts.crawlTime },
      affinity,
      giveAway,
    ) as Promise<ParsedFeed>;
  }

  /**
   * Extracts an article page's readable text on a worker (Readability over a DOM costs ~15 ms a
   * page: off the thread serving the APIs), under the same time limit; undefined when the page
   * has no article. With a pool of size 0, on this thread.
   */
  async extractArticle(
    body: Buffer,
    pageUrl: string,
    contentType: string | null,
  ): Promise<ExtractedArticle | undefined> {
    const a = (await this.run({ kind: 'article', body, url: pageUrl, contentType })) as ExtractedArticle | null;
    return a ?? undefined;
  }

  /** A web search result's page (HTML) reduced to its readable text on a worker; undefined when it has none. */
  async readWebPage(html: string): Promise<ReadablePage | undefined> {
    const page = (await this.run({
      kind: 'web-page',
      body: Buffer.from(html),
      url: '',
      contentType: null,
    })) as ReadablePage | null;
    return page ?? undefined;
  }

  /** The feed links a page announces (subscribe, discover), read on a worker. */
  findFeedLinks(body: Buffer, pageUrl: string, contentType: string | null): Promise<FeedLink[]> {
    return this.run({ kind: 'feed-links', body, url: pageUrl, contentType }) as Promise<FeedLink[]>;
  }

  /** The icon links of a site's page (favicons), read on a worker. */
  findIconLinks(body: Buffer, pageUrl: string): Promise<string[]> {
    return this.run({ kind: 'icon-links', body, url: pageUrl, contentType: null }) as Promise<string[]>;
  }

  /** The subscriptions of an OPML file, parsed on a worker; rejects with OpmlError naming the fix. */
  async parseOpml(xml: string): Promise<OpmlSubscription[]> {
    try {
      return (await this.run({
        kind: 'opml',
        body: Buffer.from(xml),
        url: '',
        contentType: null,
      })) as OpmlSubscription[];
    } catch (e) {
      if (e instanceof FeedError) throw new OpmlError(`the OPML file could not be read: ${e.message}`);
      throw e;
    }
  }

  /**
   * Runs a job on a worker (by affinity, else the least busy one) under the time limit. Without
   * workers the job runs here, its code loaded on first use; with workers, only they load it
   * (feedsmith, sanitize-html, linkedom, Readability: heap the main thread does not need).
   */
  private run(job: Omit<DocumentJob, 'id'>, affinity?: number, giveAway = false): Promise<JobResult> {
    if (this.size === 0) return import('./run-job.ts').then(({ runJob }) => runJob({ ...job, id: 0 }));
    if (this.closed) return Promise.reject(new FeedError('network', 'parse pool closed (shutting down)'));
    const index =
      affinity !== undefined && Number.isSafeInteger(affinity) ? Math.abs(affinity) % this.size : this.leastBusy();
    return new Promise<JobResult>((resolve, reject) => {
      const transfer = giveAway ? transferBody(job.body) : undefined;
      this.queues[index]!.push({ job: { ...job, id: this.nextId++ }, resolve, reject, transfer });
      this.pump(index);
    });
  }

  /**
   * Runs `runInWorker(input)` of the module at `moduleUrl` on a worker, under `timeLimitMs`: past
   * it the worker is terminated (whatever it was doing, a regex included) and the promise rejects
   * with "<what> took longer than …". Unlike parse(), never on the calling thread: a pool of size
   * 0 rejects, so callers that must stay off the main thread keep a pool of their own.
   */
  runModule<T>(moduleUrl: URL, input: unknown, timeLimitMs: number, what: string): Promise<T> {
    if (this.size === 0) return Promise.reject(new Error('this pool has no worker threads'));
    if (this.closed) return Promise.reject(new FeedError('network', 'parse pool closed (shutting down)'));
    const index = this.leastBusy();
    return new Promise<T>((resolve, reject) => {
      const job: ParseJob = { id: this.nextId++, kind: 'module', module: moduleUrl.href, input };
      this.queues[index]!.push({ job, resolve, reject, timeLimitMs, what });
      this.pump(index);
    });
  }

  private busy(): boolean {
    return this.queues.some((q) => q.length > 0) || this.slots.some((slot) => slot?.current);
  }

  private leastBusy(): number {
    let best = 0,
      bestLoad = Infinity;
    for (let i = 0; i < this.size; i++) {
      const load = this.queues[i]!.length + (this.slots[i]?.current ? 1 : 0);
      if (load < bestLoad) {
        best = i;
        bestLoad = load;
      }
    }
    return best;
  }

  private pump(index: number): void {
    const queue = this.queues[index]!;
    if (this.closed) return;
    const old = this.slots[index];
    let successor: Worker | undefined;
    if (old?.retire && !old.current) {
      this.slots[index] = undefined; // first, so the exit event is not taken for a crash
      this.finish(old);
      void old.worker.terminate();
      this.recycled++;
      successor = this.takeSuccessor(old);
    }
    // The successor takes the slot even with no job waiting: in a refresh the next feed's parse is
    // usually a fetch away, and it finds a worker ready instead of starting one.
    if (successor) {
      this.spawn(index, successor);
      this.handedOver++;
    }
    if (!queue.length) {
      this.retireWhenIdle(index);
      return;
    }
    const slot = this.slots[index] ?? this.spawn(index);
    if (slot.idle) {
      clearTimeout(slot.idle);
      slot.idle = null;
    }
    if (slot.settle) {
      clearTimeout(slot.settle);
      slot.settle = null;
    }
    if (slot.current) return;
    const p = queue.shift()!;
    slot.current = p;
    const what = p.what ?? DOING[p.job.kind === 'module' ? 'feed' : (p.job.kind ?? 'feed')];
    const limit = p.timeLimitMs ?? this.timeLimitMs;
    slot.timer = setTimeout(
      () =>
        this.kill(
          slot,
          p.job.kind === 'module'
            ? new Error(`${what} took longer than ${formatDuration(limit)} and was stopped`)
            : new FeedError(
                'not_a_feed',
                `${what} took longer than ${formatDuration(limit)}; the document is pathological`,
              ),
        ),
      limit,
    );
    try {
      slot.worker.postMessage(p.job, p.transfer);
    } catch (e) {
      // Memory Node will not let move (a pool it manages): copied, as any other job.
      if (!p.transfer) throw e;
      slot.worker.postMessage(p.job);
    }
  }

  private retireWhenIdle(index: number): void {
    const slot = this.slots[index];
    if (!slot || slot.current || slot.idle) return;
    slot.settle = setTimeout(() => void this.checkHeap(slot, true), SETTLE_MS).unref();
    slot.idle = setTimeout(() => {
      if (this.slots[index] !== slot || slot.current || this.queues[index]!.length) return;
      this.slots[index] = undefined; // first, so the exit event is not taken for a crash
      void slot.worker.terminate();
    }, this.idleMs).unref();
  }

  /** The running workers' V8 heaps (committed bytes), each its own isolate outside the main heap. */
  async heapBytes(): Promise<number> {
    const running = this.slots.filter((s): s is Slot => s !== undefined);
    const stats = await Promise.all(running.map((s) => s.worker.getHeapStatistics().catch(() => null)));
    return stats.reduce((sum, h) => sum + (h?.total_heap_size ?? 0), 0);
  }

  /** Worker threads running now (tests). */
  get running(): number {
    return this.slots.filter((s) => s !== undefined).length;
  }

  private newWorker(): Worker {
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    worker.unref();
    return worker;
  }

  /**
   * Starts the replacement of a worker retired while jobs wait for it. A worker's start (loading
   * feedsmith, sanitize-html, linkedom: 0.2-0.5 s of CPU, more on a loaded machine) used to happen
   * after the old one exited, with the feeds of a refresh waiting on it: about once per 100 feeds
   * of a first refresh (WORKER_RECYCLE_HEAP_MB). Now it overlaps the old worker's last job.
   */
  private warmSuccessor(slot: Slot): void {
    if (slot.successor || this.closed) return;
    const worker = this.newWorker();
    const onExit = () => {
      if (slot.successor?.worker === worker) slot.successor = null;
    };
    worker.once('exit', onExit);
    worker.on('error', () => {}); // an exit follows, handled above
    slot.successor = { worker, onExit };
  }

  /** The warmed successor of a retired slot, if it is still alive, detached from it. */
  private takeSuccessor(slot: Slot): Worker | undefined {
    const s = slot.successor;
    slot.successor = null;
    if (!s) return undefined;
    s.worker.off('exit', s.onExit);
    return s.worker;
  }

  private spawn(index: number, worker = this.newWorker()): Slot {
    const slot: Slot = {
      index,
      worker,
      current: null,
      timer: null,
      idle: null,
      jobs: 0,
      retire: false,
      settle: null,
      successor: null,
    };
    worker.on('message', (r: ParseReply) => {
      const p = slot.current;
      if (!p || p.job.id !== r.id) return;
      this.finish(slot);
      if (++slot.jobs % RECYCLE_CHECK_EVERY === 0) void this.checkHeap(slot);
      if ('value' in r) p.resolve(r.value);
      else if ('result' in r) p.resolve(r.result);
      else {
        const { kind, message } = r.error;
        p.reject(
          kind === 'parse'
            ? new FeedParseError(message)
            : kind === 'opml'
              ? new OpmlError(message)
              : new Error(message),
        );
      }
      this.pump(index);
    });
    worker.on('error', (e) => this.kill(slot, e));
    worker.on('exit', () => this.kill(slot, new Error('parse worker exited')));
    this.slots[index] = slot;
    return slot;
  }

  /**
   * Marks the worker for replacement when its heap has grown past the recycle size: the busy one
   * in the check every RECYCLE_CHECK_EVERY jobs, the idle one only once it has had nothing to do
   * for SETTLE_MS (`settled`). The periodic check used to take the idle size whenever the queue
   * was empty at that instant, which between two feeds of a refresh it mostly is: a 1,000-feed
   * first refresh replaced its worker 3-9 times at 48 MB, each time loading a fresh one.
   */
  private async checkHeap(slot: Slot, settled = false): Promise<void> {
    const heap = await slot.worker.getHeapStatistics().catch(() => null);
    if (!heap || this.slots[slot.index] !== slot) return;
    const busy = slot.current !== null || this.queues[slot.index]!.length > 0;
    if (heap.total_heap_size <= (settled && !busy ? this.idleRecycleHeapBytes : this.recycleHeapBytes)) return;
    slot.retire = true;
    // Mid-refresh the next job is near: its worker starts now, not when that job comes.
    if (!settled) this.warmSuccessor(slot);
    if (!slot.current) this.pump(slot.index);
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.idle) clearTimeout(slot.idle);
    if (slot.settle) clearTimeout(slot.settle);
    slot.timer = null;
    slot.idle = null;
    slot.settle = null;
    slot.current = null;
  }

  /** Drops a worker (crashed or over time), failing its job; the next job of its queue spawns a fresh one. */
  private kill(slot: Slot, err: Error): void {
    if (this.slots[slot.index] !== slot) return;
    this.slots[slot.index] = undefined;
    const p = slot.current;
    this.finish(slot);
    void slot.worker.terminate();
    void this.takeSuccessor(slot)?.terminate();
    p?.reject(err);
    this.pump(slot.index);
  }

  /**
   * Stops the workers once the jobs in flight and queued are done, and those their callers submit
   * meanwhile: a subscribe whose fetch has just ended, in a server draining on SIGTERM, parses
   * here now (it used to parse on the main thread, which a drain never cut short). Each job is
   * under the time limit, and the server's drain time bounds the whole.
   */
  async close(): Promise<void> {
    for (let quiet = 0; quiet < 3 && !this.closed; ) {
      quiet = this.busy() ? 0 : quiet + 1;
      await new Promise((r) => setTimeout(r, 20));
    }
    this.closed = true;
    const closing = new FeedError('network', 'parse pool closed (shutting down)');
    for (const queue of this.queues) for (const p of queue.splice(0)) p.reject(closing);
    const slots = this.slots.filter((s): s is Slot => s !== undefined);
    this.slots.fill(undefined);
    await Promise.all(
      slots.map((s) => {
        const p = s.current;
        this.finish(s);
        p?.reject(closing);
        void this.takeSuccessor(s)?.terminate();
        return s.worker.terminate();
      }),
    );
  }
}
