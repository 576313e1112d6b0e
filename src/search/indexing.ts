// Keeps the index in step with the items table: the feed engine reports every committed ingest
// through app.notifyItemChanges, and this listener queues the ids; the queue is indexed in
// batches on later event-loop turns (one transaction each), so a refresh cycle is not held up by
// indexing (measured: the synchronous listener was 60-70 % of a first refresh of 1,000 feeds).
// Searches and app.close() flush the queue first, so a search always sees every committed item. reindexAll rebuilds everything (after a tokenizer change or
// to repair), in batches so memory stays flat.
import type { App } from '../app.ts';
import type { ItemChanges } from '../model/item.ts';
import { transaction, type Db } from '../store/db.ts';
import type { IndexedItem, SearchIndexRepository, SearchItemSource } from '../store/repositories.ts';
import { SqliteSearchIndex } from '../store/sqlite/search-index.ts';
import { htmlToText } from '../feeds/sanitizer/html-to-text.ts';
import { splitPassages } from './passages.ts';
import { IndexBatch } from './index-batch.ts';

const repos = new WeakMap<Db, SqliteSearchIndex>();

/** The index repository of a database (one per connection: statements are prepared once). */
export function searchIndexRepository(db: Db): SqliteSearchIndex {
  let r = repos.get(db);
  if (!r) repos.set(db, (r = new SqliteSearchIndex(db)));
  return r;
}

/** Registers the listener that indexes items as the feed engine stores them. */
export function installSearchIndexing(app: App): void {
  const repo = searchIndexRepository(app.db);
  // A database whose index is empty but has items (migration 031 asks for a rebuild) is indexed now.
  if (repo.articleCount() === 0 && repo.itemIdsAfter(0, 1).length) {
    app.log.info('building the search index');
    const { items, passages } = reindexAll(app);
    app.log.info({ items, passages }, 'search index built');
  }
  const queue = new IndexQueue(app.db, repo, (err) => app.log.error({ err }, 'search indexing failed'));
  queues.set(app, queue);
  app.itemChangeListeners.push((changes) => queue.enqueue(changes));
  app.onClose(() => queue.flush());
}

const queues = new WeakMap<App, IndexQueue>();

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

  constructor(db: Db, repo: SearchIndexRepository, onError: (e: unknown) => void) {
    this.db = db; this.repo = repo; this.onError = onError;
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

/** Rebuilds the whole index; returns the number of items and passages indexed. */
export function reindexAll(app: App, opts: { batchSize?: number; onProgress?: (items: number) => void } = {}): { items: number; passages: number } {
  const repo = searchIndexRepository(app.db);
  const batchSize = opts.batchSize ?? 500;
  transaction(app.db, () => repo.deleteAll());
  let after = 0;
  let items = 0;
  for (;;) {
    const ids = repo.itemIdsAfter(after, batchSize);
    if (!ids.length) break;
    transaction(app.db, () => indexItemsNow(repo, ids));
    items += ids.length;
    after = ids[ids.length - 1]!;
    opts.onProgress?.(items);
  }
  return { items, passages: repo.passageCount() };
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
    repo.storeArticle({ ...item, docNo: docNo++, titleLength: lengths.title, bodyLength: lengths.body, urlLength: lengths.url }, parts);
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
