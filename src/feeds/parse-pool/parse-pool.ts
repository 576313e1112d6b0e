// Parsing (XML, normalising, sanitizing HTML) is the CPU-heavy step of a refresh. A small pool of
// worker threads runs it beside the main thread, which keeps storing items and serving the APIs:
// a refresh of thousands of feeds neither stalls HTTP requests nor uses only one core. A worker
// also bounds a pathological document: past the time limit it is terminated and replaced.
import { Worker } from 'node:worker_threads';
import type { ParsedFeed } from '../../model/feed.ts';
import { FeedError, formatDuration } from '../errors.ts';
import { FeedParseError, parseFeed, type ParseFeedOptions } from '../parser/parse-feed.ts';

export interface ParseJob { id: number; body: Uint8Array; url: string; contentType: string | null; crawlTime?: number }
export type ParseReply = { id: number; parsed: ParsedFeed } | { id: number; error: { parseError: boolean; message: string } };

interface Pending { job: ParseJob; resolve: (p: ParsedFeed) => void; reject: (e: Error) => void }
interface Slot { worker: Worker; current: Pending | null; timer: NodeJS.Timeout | null }

const WORKER_URL = new URL('./parse-worker.ts', import.meta.url);

export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly size: number;
  private readonly timeLimitMs: number;
  private nextId = 1;
  private closed = false;

  constructor(size: number, timeLimitMs = 30_000) {
    this.size = size;
    this.timeLimitMs = timeLimitMs;
  }

  /** Parses on a worker; with a pool of size 0, on this thread. Rejects with FeedParseError like parseFeed. */
  parse(body: Buffer, opts: ParseFeedOptions): Promise<ParsedFeed> {
    if (this.size <= 0) {
      try { return Promise.resolve(parseFeed(body, opts)); } catch (e) { return Promise.reject(e as Error); }
    }
    if (this.closed) return Promise.reject(new FeedError('network', 'parse pool closed (shutting down)'));
    return new Promise<ParsedFeed>((resolve, reject) => {
      const job: ParseJob = { id: this.nextId++, body, url: opts.url, contentType: opts.contentType ?? null, crawlTime: opts.crawlTime };
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.current === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const p = this.queue.shift()!;
      slot.current = p;
      slot.timer = setTimeout(() => this.kill(slot!, new FeedError('not-a-feed', `parsing took longer than ${formatDuration(this.timeLimitMs)}; the document is pathological`)), this.timeLimitMs);
      slot.worker.postMessage(p.job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL);
    worker.unref();
    const slot: Slot = { worker, current: null, timer: null };
    worker.on('message', (r: ParseReply) => {
      const p = slot.current;
      if (!p || p.job.id !== r.id) return;
      this.finish(slot);
      if ('parsed' in r) p.resolve(r.parsed);
      else p.reject(r.error.parseError ? new FeedParseError(r.error.message) : new Error(r.error.message));
      this.pump();
    });
    worker.on('error', (e) => this.kill(slot, e));
    worker.on('exit', () => this.kill(slot, new Error('parse worker exited')));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.current = null;
  }

  /** Drops a worker (crashed or over time), failing its job; the next job spawns a fresh one. */
  private kill(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    const p = slot.current;
    this.finish(slot);
    void slot.worker.terminate();
    p?.reject(err);
    if (!this.closed) this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new FeedError('network', 'parse pool closed (shutting down)'));
    await Promise.all(this.slots.splice(0).map((s) => { this.finish(s); s.current?.reject(new FeedError('network', 'parse pool closed (shutting down)')); return s.worker.terminate(); }));
  }
}
