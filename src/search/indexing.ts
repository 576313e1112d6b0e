// Keeps the index in step with the items table: the feed engine reports every committed ingest
// through app.notifyItemChanges, and this listener queues the ids; the queue is indexed in
// batches on later event-loop turns (one transaction each), so a refresh cycle is not held up by
// indexing (measured: the synchronous listener was 60-70 % of a first refresh of 1,000 feeds).
// Searches and app.close() flush the queue first, so a search always sees every committed item.
// reindexAll rebuilds everything now (`tidings search reindex`, to repair); a rebuild a migration
// asks for runs in the background instead, so an upgrade does not keep the server from starting.
// Both go in batches, so memory stays flat.
import type { App } from '../app.ts';
import type { ItemChanges } from '../model/item.ts';
import { transaction, type Db } from '../store/db.ts';
import type { IndexedItem, SearchIndexRepository, SearchItemSource } from '../store/repositories.ts';
import { SqliteSearchIndex } from '../store/sqlite/search-index.ts';
import { htmlToText } from '../feeds/sanitizer/html-to-text.ts';
import { splitPassages, wordCount } from './passages.ts';
import { IndexBatch } from './index-batch.ts';
import { BackgroundJob } from './background-job.ts';
import { compactionDue, PostingsCompaction } from './compaction.ts';
import { reportQueueDepth } from '../observability/metrics.ts';

const repos = new WeakMap<Db, SqliteSearchIndex>();

/** The index repository of a database (one per connection: statements are prepared once). */
export function searchIndexRepository(db: Db): SqliteSearchIndex {
  let r = repos.get(db);
  if (!r) repos.set(db, (r = new SqliteSearchIndex(db)));
  return r;
}

/**
 * Registers the listener that indexes items as the feed engine stores them, and carries on a
 * pending rebuild in the background (a migration that changed the index asks for one).
 */
export function installSearchIndexing(app: App): void {
  const repo = searchIndexRepository(app.db);
  if (repo.state().rebuildAfter !== null) {
    // Searches meanwhile see the articles indexed so far, and every new one through the queue.
    let indexed = 0;
    const rebuild = new BackgroundJob(app, {
      name: 'rebuilding the search index',
      step: () => {
        const step = rebuildStep(app.db, repo, IndexQueue.BATCH);
        indexed += step?.indexed ?? 0;
        return !step || step.done;
      },
      progress: () => ({ indexed }),
    }).start();
    app.onClose(() => rebuild.stop());
  }
  const maintenance = new PostingsMaintenance(app, repo);
  app.onClose(() => maintenance.stop());
  const queue = new IndexQueue(app.db, repo, (err) => app.log.error({ err }, 'search indexing failed'), () => maintenance.check());
  queues.set(app, queue);
  reportQueueDepth(app, 'search_index', () => ({ waiting: queue.size }));
  app.itemChangeListeners.push((changes) => queue.enqueue(changes));
  app.onClose(() => queue.flush());
}

const queues = new WeakMap<App, IndexQueue>();

/** Starts a postings compaction in the background when removals have piled up (checked after indexing). */
class PostingsMaintenance {
  private job: BackgroundJob | undefined;
  private readonly app: App;
  private readonly repo: SearchIndexRepository;

  constructor(app: App, repo: SearchIndexRepository) {
    this.app = app;
    this.repo = repo;
  }

  check(): void {
    if (this.job?.running || !compactionDue(this.repo.state())) return;
    const compaction = new PostingsCompaction(this.repo);
    this.job = new BackgroundJob(this.app, {
      name: 'compacting the search postings',
      step: () => transaction(this.app.db, () => compaction.step()),
      progress: () => ({ terms: compaction.terms, dropped: compaction.dropped }),
    }).start();
  }

  stop(): void {
    this.job?.stop();
  }
}

/** Indexes every queued change now (searches call this so they never miss a committed item). */
export function flushSearchIndexing(app: App): void {
  queues.get(app)?.flush();
}

/** Items waiting to be indexed (added/updated) or removed, processed in bounded batches. */
export class IndexQueue {
  static readonly BATCH = 500;
  private readonly pending = new Set<number>();
  private readonly deleted = new Set<number>();
  private scheduled = false;
  private readonly db: Db;
  private readonly repo: SearchIndexRepository;
  private readonly onError: (e: unknown) => void;

  private readonly afterBatch: () => void;

  constructor(db: Db, repo: SearchIndexRepository, onError: (e: unknown) => void, afterBatch: () => void = () => {}) {
    this.db = db; this.repo = repo; this.onError = onError; this.afterBatch = afterBatch;
  }

  get size(): number { return this.pending.size + this.deleted.size; }

  enqueue(changes: ItemChanges): void {
    // Order matters: an id deleted and then reused by a new item must end up indexed.
    for (const id of changes.deleted) { this.pending.delete(id); this.deleted.add(id); }
    for (const id of [...changes.added, ...changes.updated]) { this.deleted.delete(id); this.pending.add(id); }
    this.schedule();
  }

  flush(): void {
    while (this.size) this.runBatch();
  }

  private schedule(): void {
    if (this.scheduled || !this.size) return;
    this.scheduled = true;
    // setTimeout, not setImmediate: leaves room for I/O (fetches, HTTP requests) between batches.
    setTimeout(() => {
      this.scheduled = false;
      try { this.runBatch(); } catch (e) { this.onError(e); }
      this.schedule();
    }, 0).unref();
  }

  private runBatch(): void {
    const deleted = take(this.deleted, IndexQueue.BATCH);
    const ids = take(this.pending, IndexQueue.BATCH);
    try {
      applyItemChanges(this.db, this.repo, { added: ids, updated: [], deleted });
      this.afterBatch();
    } catch (e) {
      // Nothing is lost: the items stay in the store; `tidings search reindex` repairs the index.
      this.onError(e);
    }
  }
}

function take(set: Set<number>, n: number): number[] {
  const out: number[] = [];
  for (const id of set) { if (out.length === n) break; out.push(id); }
  for (const id of out) set.delete(id);
  return out;
}

export function applyItemChanges(db: Db, repo: SearchIndexRepository, changes: ItemChanges): void {
  transaction(db, () => {
    repo.deleteItems(changes.deleted);
    indexItemsNow(repo, [...changes.added, ...changes.updated]);
  });
}

/** Rebuilds the whole index now; returns the number of items and passages indexed. */
export function reindexAll(app: App, opts: { batchSize?: number; onProgress?: (items: number) => void } = {}): { items: number; passages: number } {
  const repo = searchIndexRepository(app.db);
  transaction(app.db, () => repo.deleteAll());
  let items = 0;
  for (;;) {
    const step = rebuildStep(app.db, repo, opts.batchSize ?? 500);
    if (!step || step.done) break;
    items += step.indexed;
    opts.onProgress?.(items);
  }
  return { items, passages: repo.passageCount() };
}

/**
 * Finishes a pending rebuild now (a command-line search: the process would end long before the
 * background rebuild did). Returns the items indexed; 0 when none was pending.
 */
export function finishPendingRebuild(app: App, onProgress?: (items: number) => void): number {
  const repo = searchIndexRepository(app.db);
  let items = 0;
  for (;;) {
    const step = rebuildStep(app.db, repo, IndexQueue.BATCH);
    if (!step || step.done) return items;
    items += step.indexed;
    onProgress?.(items);
  }
}

/**
 * Indexes the next batch of a pending rebuild, in one transaction (several processes on one
 * database share the cursor, so each batch is done once). Null when no rebuild is pending.
 */
export function rebuildStep(db: Db, repo: SearchIndexRepository, batchSize: number): { indexed: number; done: boolean } | null {
  return transaction(db, () => {
    const state = repo.state();
    if (state.rebuildAfter === null) return null;
    const ids = repo.itemIdsAfter(state.rebuildAfter, batchSize, state.rebuildUntil ?? undefined);
    if (!ids.length) {
      repo.setRebuildCursor(null);
      return { indexed: 0, done: true };
    }
    indexItemsNow(repo, ids);
    repo.setRebuildCursor(ids[ids.length - 1]!);
    return { indexed: ids.length, done: false };
  });
}

/** Indexes the items (replacing earlier versions); the caller holds the transaction. */
export function indexItemsNow(repo: SearchIndexRepository, ids: number[]): number {
  const sources = repo.itemSources(ids);
  if (!sources.length) return 0;
  let docNo = repo.reserveDocNumbers(sources.length);
  const batch = new IndexBatch();
  let passages = 0;
  for (const src of sources) {
    const parts = itemPassages(src);
    if (!parts.length) { repo.deleteItems([src.id]); continue; }
    const item = indexedItem(src);
    const lengths = batch.add(docNo, { title: item.title, body: parts.join('\n'), url: src.url });
    repo.storeArticle({ ...item, docNo: docNo++, titleLength: lengths.title, bodyLength: lengths.body, urlLength: lengths.url },
      parts.map((text) => ({ text, words: wordCount(text) })));
    passages += parts.length;
  }
  batch.write(repo);
  return passages;
}

/** The passages of an item: its body text (content, else summary) split into a few sentences each. */
export function itemPassages(src: Pick<SearchItemSource, 'content' | 'summary' | 'title'>): string[] {
  const body = htmlToText(src.content || src.summary || '');
  const passages = splitPassages(body);
  // An item with no body (a link post) is still findable by its title.
  return passages.length ? passages : src.title ? [src.title] : [];
}

export function indexedItem(src: SearchItemSource): IndexedItem {
  return {
    id: src.id,
    feedId: src.feedId,
    host: hostOf(src.url) ?? hostOf(src.feedSiteUrl) ?? hostOf(src.feedUrl) ?? '',
    title: htmlToText(src.title, { singleLine: true }),
    publishedAt: src.publishedAt,
    updatedAt: src.updatedAt,
  };
}

export function hostOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}
