// Keeps the index in step with the items table: the feed engine reports every committed ingest
// through app.notifyItemChanges, and this listener queues the ids; the queue is indexed in
// batches on later event-loop turns (one transaction each), so a refresh cycle is not held up by
// indexing (measured: the synchronous listener was 60-70 % of a first refresh of 1,000 feeds).
// Searches and app.close() flush the queue first, so a search always sees every committed item.
// reindexAll rebuilds everything now (`tidings search reindex`, to repair); a rebuild a migration
// asks for runs in the background instead, so an upgrade does not keep the server from starting.
// Both go in batches, so memory stays flat.
import type { App } from '../app.ts';
import { perApp } from '../per-app.ts';
import type { ItemChanges } from '../model/item.ts';
import type { IndexedItem, SearchIndexRepository, SearchItemSource } from '../store/repositories.ts';
import type { Store } from '../store/open-store.ts';
import { htmlToText } from '../feeds/sanitizer/html-to-text.ts';
import { splitPassages, wordCount } from './passages.ts';
import { IndexBatch } from './index-batch.ts';
import { BackgroundJob } from './background-job.ts';
import { compactionDue, PostingsCompaction } from './compaction.ts';
import { reportQueueDepth } from '../observability/events.ts';

/** The index repository of an App. */
export function searchIndexRepository(app: App): SearchIndexRepository {
  return app.store.searchIndex;
}

/**
 * Registers the listener that indexes items as the feed engine stores them, and carries on a
 * pending rebuild in the background (a migration that changed the index asks for one).
 */
export async function installSearchIndexing(app: App): Promise<void> {
  const repo = app.store.searchIndex;
  // One process rebuilds for all (the background role of `serve --workers N`, see src/cli/README.md).
  if (app.role.background && (await repo.state()).rebuildAfter !== null) {
    // Searches meanwhile see the articles indexed so far, and every new one through the queue.
    let indexed = 0;
    const rebuild = new BackgroundJob(app, {
      name: 'rebuilding the search index',
      step: async () => {
        const step = await rebuildStep(app.store, IndexQueue.BATCH);
        indexed += step?.indexed ?? 0;
        return !step || step.done;
      },
      progress: () => ({ indexed }),
    }).start();
    app.onClose(() => rebuild.stop());
  }
  const maintenance = new PostingsMaintenance(app);
  app.onClose(() => maintenance.stop());
  const queue = indexQueue(app);
  queue.afterBatch = () => maintenance.check();
  reportQueueDepth(app, 'search_index', () => ({ waiting: queue.size }));
  app.itemChangeListeners.push((changes) => queue.enqueue(changes));
  app.onClose(() => queue.flush());
}

const indexQueue = perApp(
  (app) => new IndexQueue(app.store, (err) => app.log.error({ err }, 'search indexing failed')),
);

/** Starts a postings compaction in the background when removals have piled up (checked after indexing). */
class PostingsMaintenance {
  private job: BackgroundJob | undefined;
  private starting = false;
  private readonly app: App;

  constructor(app: App) {
    this.app = app;
  }

  async check(): Promise<void> {
    if (this.job?.running || this.starting) return;
    const store = this.app.store;
    this.starting = true;
    try {
      if (!compactionDue(await store.searchIndex.state())) return;
      const compaction = await PostingsCompaction.start(store.searchIndex);
      this.job = new BackgroundJob(this.app, {
        name: 'compacting the search postings',
        step: () =>
          store.transaction(async () => {
            await store.searchIndex.lockForWriting();
            return compaction.step();
          }),
        progress: () => ({ terms: compaction.terms, dropped: compaction.dropped }),
      }).start();
    } finally {
      this.starting = false;
    }
  }

  stop(): void {
    this.job?.stop();
  }
}

/** Indexes every queued change now (searches call this so they never miss a committed item). */
export async function flushSearchIndexing(app: App): Promise<void> {
  await indexQueue(app).flush();
}

/** Items waiting to be indexed (added/updated) or removed, processed in bounded batches. */
export class IndexQueue {
  static readonly BATCH = 500;
  private readonly pending = new Set<number>();
  private readonly deleted = new Set<number>();
  private scheduled = false;
  /** The batch being indexed, if any: batches never overlap. */
  private running: Promise<void> | undefined;
  private readonly store: Store;
  private readonly onError: (e: unknown) => void;
  afterBatch: () => Promise<void> | void;

  constructor(store: Store, onError: (e: unknown) => void, afterBatch: () => Promise<void> | void = () => {}) {
    this.store = store;
    this.onError = onError;
    this.afterBatch = afterBatch;
  }

  get size(): number {
    return this.pending.size + this.deleted.size;
  }

  enqueue(changes: ItemChanges): void {
    // Order matters: an id deleted and then reused by a new item must end up indexed.
    for (const id of changes.deleted) {
      this.pending.delete(id);
      this.deleted.add(id);
    }
    for (const id of [...changes.added, ...changes.updated]) {
      this.deleted.delete(id);
      this.pending.add(id);
    }
    this.schedule();
  }

  /** Resolves once every queued change is indexed and committed, including a batch in flight. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.running) {
        await this.running;
        continue;
      }
      if (!this.size) return;
      await this.runBatch();
    }
  }

  private schedule(): void {
    if (this.scheduled || !this.size) return;
    this.scheduled = true;
    // setTimeout, not setImmediate: leaves room for I/O (fetches, HTTP requests) between batches.
    setTimeout(() => {
      this.scheduled = false;
      this.runBatch().then(
        () => this.schedule(),
        (e: unknown) => {
          this.onError(e);
          this.schedule();
        },
      );
    }, 0).unref();
  }

  private async runBatch(): Promise<void> {
    while (this.running) await this.running;
    const deleted = take(this.deleted, IndexQueue.BATCH);
    const ids = take(this.pending, IndexQueue.BATCH);
    if (!deleted.length && !ids.length) return;
    const run = (async () => {
      try {
        await applyItemChanges(this.store, { added: ids, updated: [], deleted });
        await this.afterBatch();
      } catch (e) {
        // Nothing is lost: the items stay in the store; `tidings search reindex` repairs the index.
        this.onError(e);
      }
    })();
    this.running = run;
    try {
      await run;
    } finally {
      this.running = undefined;
    }
  }
}

function take(set: Set<number>, n: number): number[] {
  const out: number[] = [];
  for (const id of set) {
    if (out.length === n) break;
    out.push(id);
  }
  for (const id of out) set.delete(id);
  return out;
}

export async function applyItemChanges(store: Store, changes: ItemChanges): Promise<void> {
  await store.transaction(async () => {
    await store.searchIndex.lockForWriting();
    await store.searchIndex.deleteItems(changes.deleted);
    await indexItemsNow(store.searchIndex, [...changes.added, ...changes.updated]);
  });
}

/** Rebuilds the whole index now; returns the number of items and passages indexed. */
export async function reindexAll(
  app: App,
  opts: { batchSize?: number; onProgress?: (items: number) => void } = {},
): Promise<{ items: number; passages: number }> {
  const { store } = app;
  await store.transaction(async () => {
    await store.searchIndex.lockForWriting();
    await store.searchIndex.deleteAll();
  });
  let items = 0;
  for (;;) {
    const step = await rebuildStep(store, opts.batchSize ?? 500);
    if (!step || step.done) break;
    items += step.indexed;
    opts.onProgress?.(items);
  }
  return { items, passages: await store.searchIndex.passageCount() };
}

/**
 * Finishes a pending rebuild now (a command-line search: the process would end long before the
 * background rebuild did). Returns the items indexed; 0 when none was pending.
 */
export async function finishPendingRebuild(app: App, onProgress?: (items: number) => void): Promise<number> {
  let items = 0;
  for (;;) {
    const step = await rebuildStep(app.store, IndexQueue.BATCH);
    if (!step || step.done) return items;
    items += step.indexed;
    onProgress?.(items);
  }
}

/**
 * Indexes the next batch of a pending rebuild, in one transaction (several processes on one
 * database share the cursor, so each batch is done once). Null when no rebuild is pending.
 */
export function rebuildStep(store: Store, batchSize: number): Promise<{ indexed: number; done: boolean } | null> {
  const repo = store.searchIndex;
  return store.transaction(async () => {
    await repo.lockForWriting();
    const state = await repo.state();
    if (state.rebuildAfter === null) return null;
    const ids = await repo.itemIdsAfter(state.rebuildAfter, batchSize, state.rebuildUntil ?? undefined);
    if (!ids.length) {
      await repo.setRebuildCursor(null);
      return { indexed: 0, done: true };
    }
    await indexItemsNow(repo, ids);
    await repo.setRebuildCursor(ids[ids.length - 1]!);
    return { indexed: ids.length, done: false };
  });
}

/** Indexes the items (replacing earlier versions); the caller holds the transaction. */
export async function indexItemsNow(repo: SearchIndexRepository, ids: number[]): Promise<number> {
  const sources = await repo.itemSources(ids);
  if (!sources.length) return 0;
  let docNo = await repo.reserveDocNumbers(sources.length);
  const batch = new IndexBatch();
  let passages = 0;
  const empty: number[] = [];
  const articles: Parameters<SearchIndexRepository['storeArticles']>[0] = [];
  for (const src of sources) {
    const parts = itemPassages(src);
    if (!parts.length) {
      empty.push(src.id);
      continue;
    }
    const item = indexedItem(src);
    const lengths = batch.add(docNo, { title: item.title, body: parts.join('\n'), url: src.url });
    articles.push({
      article: {
        ...item,
        docNo: docNo++,
        titleLength: lengths.title,
        bodyLength: lengths.body,
        urlLength: lengths.url,
      },
      passages: parts.map((text) => ({ text, words: wordCount(text) })),
    });
    passages += parts.length;
  }
  await repo.deleteItems(empty);
  await repo.storeArticles(articles);
  await batch.write(repo);
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
