// Keeps the index in step with the items table. Every transaction that stores or changes items
// also records them in search_index_backlog (triggers, migration 085), so nothing waiting to be
// indexed is lost to a crash; this module drains that backlog in batches on later event-loop turns
// (one transaction each), so a refresh cycle is not held up by indexing (measured: the synchronous
// listener was 60-70 % of a first refresh of 1,000 feeds). app.notifyItemChanges starts a drain at
// once; a drain also starts at start-up and whenever a periodic look finds items another process
// left. Searches and app.close() drain first, so a search always sees every committed item.
// reindexAll rebuilds everything now (`tidings search reindex`, to repair); a rebuild a migration
// asks for runs in the background instead, so an upgrade does not keep the server from starting.
// Both go in batches, so memory stays flat.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { BacklogEntry, IndexedArticle, SearchIndexRepository, SearchItemSource } from '../store/repositories.ts';
import type { Store } from '../store/open-store.ts';
import { IndexBatch } from './index-batch.ts';
import { type PreparedItem, prepareItem } from './prepare.ts';
import { PrepareThread } from './prepare-thread.ts';
import { availableParallelism } from 'node:os';
import { BackgroundJob } from './background-job.ts';
import { compactionDue, PostingsCompaction } from './compaction.ts';
import { reportQueueDepth } from '../observability/events.ts';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { articleIndexSettled, useArticleTableSnapshot } from './article-index.ts';

/** The article table's snapshot in the data folder (./article-table-snapshot.ts). */
export const ARTICLE_TABLE_SNAPSHOT = 'search-article-table.snapshot';

/**
 * Where the article table's snapshot lives: the data folder; on PostgreSQL without one (nothing
 * else is stored locally, and a command must not create an empty data folder) the user's cache
 * folder, one file per database.
 */
function snapshotFile(app: App): string {
  if (existsSync(app.config.dataDir)) return join(app.config.dataDir, ARTICLE_TABLE_SNAPSHOT);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const id = createHash('sha256').update(app.store.location).digest('hex').slice(0, 16);
  return join(cache, 'tidings', `search-article-table-${id}.snapshot`);
}

/** The index repository of an App. */
export function searchIndexRepository(app: App): SearchIndexRepository {
  return app.store.searchIndex;
}

/** The rebuild this process found pending when it opened and carries on in the background. */
const backgroundRebuilds = new WeakMap<App, BackgroundJob>();

/** Whether this process found a rebuild pending when it opened (it may have finished it since). */
export function rebuildFoundAtStart(app: App): boolean {
  return backgroundRebuilds.has(app);
}

/**
 * Registers the listener that indexes items as the feed engine stores them, and carries on a
 * pending rebuild in the background (a migration that changed the index asks for one).
 */
export async function installSearchIndexing(app: App): Promise<void> {
  const repo = app.store.searchIndex;
  useArticleTableSnapshot(repo, {
    file: snapshotFile(app),
    location: app.store.location,
    onError: (err) => app.log.warn({ err }, 'search article table snapshot not written'),
  });
  app.onClose(() => articleIndexSettled(repo));
  // One process rebuilds for all (the background role of `serve --workers N`, see src/cli/README.md).
  if (app.role.background && (await repo.state()).rebuildAfter !== null) {
    // Searches meanwhile see the articles indexed so far, and every new one through the queue.
    let indexed = 0;
    const rebuild = new BackgroundJob(app, {
      name: 'rebuilding the search index',
      step: async () => {
        const step = await rebuildStep(app.store, BacklogDrain.BATCH);
        indexed += step?.indexed ?? 0;
        return !step || step.done;
      },
      progress: () => ({ indexed }),
    }).start();
    backgroundRebuilds.set(app, rebuild);
    app.onClose(() => rebuild.stop());
  }
  const maintenance = new PostingsMaintenance(app);
  app.onClose(() => maintenance.stop());
  const drain = backlogDrain(app);
  drain.afterBatch = () => maintenance.check();
  reportQueueDepth(app, 'search_index', () => ({ waiting: drain.waiting }));
  let storedHere = false;
  app.itemChangeListeners.push((changes) => {
    if (!changes.added.length && !changes.updated.length) return;
    storedHere = true;
    drain.nudge();
  });
  app.onClose(async () => {
    drain.stop();
    // A command that stored items (`tidings refresh`) indexes them before it ends; one that did
    // not (`tidings users list`) leaves others' backlog to the server. A server stopping leaves
    // its backlog too: it is durable, and the next server (or any search) indexes it, so a
    // SIGTERM does not wait for thousands of items to be indexed.
    if (storedHere && !drain.leftToServers) await drain.flush();
    else await drain.idle();
  });
}

/**
 * Catches up, in a long-running process (the server), on the backlog other processes left: a
 * crashed or killed one, a CLI that stopped. At once, then every BACKLOG_CHECK_MS (one indexed read).
 * Short CLI commands do not call this: they index what they stored themselves, on close.
 */
export function watchSearchBacklog(app: App): void {
  const drain = backlogDrain(app);
  drain.leftToServers = true;
  const check = () => drain.check().catch((err: unknown) => app.log.warn({ err }, 'search backlog check failed'));
  void check();
  const watch = setInterval(check, BACKLOG_CHECK_MS);
  watch.unref();
  app.onClose(() => clearInterval(watch));
}

const BACKLOG_CHECK_MS = 10_000;

const backlogDrain = perApp(
  (app) =>
    new BacklogDrain(
      app.store,
      (err) => app.log.error({ err }, 'search indexing failed'),
      () => {},
      undefined,
      new PrepareAhead(prepareWorker(app)),
    ),
);

/**
 * The worker thread that prepares the backlog's next batch while the main thread writes the
 * current one (config.searchIndexWorker; none on one core, where the two would only take turns).
 * Started at the first batch; it exits after a minute without work.
 */
function prepareWorker(app: App): ((sources: SearchItemSource[]) => Promise<PreparedItem[]>) | undefined {
  if (!app.config.searchIndexWorker || availableParallelism() < 2) return undefined;
  const thread = new PrepareThread();
  app.onClose(() => thread.close());
  return (sources) => thread.run(sources);
}

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

/**
 * Indexes every item waiting in the backlog now, whichever process stored it (searches call this
 * so they never miss a committed item).
 */
export async function flushSearchIndexing(app: App): Promise<void> {
  await backlogDrain(app).flush();
}

/**
 * Drains the durable backlog (search_index_backlog, filled by triggers in the transactions that
 * store items) in bounded batches, one transaction each: the batch's items are indexed and taken
 * off the backlog together, so a crash at any point leaves them either indexed or still queued.
 * A batch holds its backlog entries, so each is indexed once; writers of the postings take turns
 * on the index lock (`drainBatch`), so batches of several processes overlap up to it. A process
 * can run up to `parallel` batches at once while the backlog keeps coming back full (PARALLEL_PG).
 */
export class BacklogDrain {
  /**
   * Items per batch. 1,000 on PostgreSQL was measured (2026-11-27, BENCHMARKS.md, Feed engine):
   * its postings statements took 30 % less, the server 0.45 s less CPU a 1,000-feed first refresh,
   * but peak RSS rose by 8-24 MB and the refresh process's CPU did not measurably fall.
   */
  static readonly BATCH = 500;
  /**
   * Batches of one process at once on PostgreSQL (SQLite has one writer: one). 2 was measured
   * and lost (2026-11-27, BENCHMARKS.md, Feed engine: 2-3 s more CPU per 1,000-feed first refresh,
   * 0.78-0.95x in 4 alternated pairs on a loaded machine); processes still overlap each other.
   */
  static readonly PARALLEL_PG = 1;
  /** A background drain that failed retries after this long (the items stay queued meanwhile). */
  static readonly RETRY_MS = 5000;
  private scheduled: ReturnType<typeof setTimeout> | undefined;
  /** Batches of this process being indexed (each removes itself when it settles). */
  private readonly running = new Set<Promise<number>>();
  private readonly parallel: number;
  /** The last batch came back full: more is waiting, so batches run side by side. */
  private full = false;
  /** A nudge came while every slot was busy: look again when a batch ends. */
  private pending = false;
  private stopped = false;
  private readonly store: Store;
  private readonly onError: (e: unknown) => void;
  afterBatch: () => Promise<void> | void;
  /** Set in a server: what is still waiting when it stops is left to the next one. */
  leftToServers = false;
  /** Items seen waiting by the last look at the backlog (for the queue-depth metric). */
  waiting = 0;
  /** The next batch prepared while this one is written (one batch at a time only). */
  private readonly ahead: PrepareAhead | undefined;

  /** `ahead`: null prepares each batch in its transaction (as before batches were prepared ahead). */

  constructor(
    store: Store,
    onError: (e: unknown) => void,
    afterBatch: () => Promise<void> | void = () => {},
    parallel = store.backend === 'postgres' ? BacklogDrain.PARALLEL_PG : 1,
    ahead: PrepareAhead | null = new PrepareAhead(),
  ) {
    this.store = store;
    this.onError = onError;
    this.afterBatch = afterBatch;
    this.parallel = parallel;
    this.ahead = parallel === 1 ? (ahead ?? undefined) : undefined;
  }

  /** Starts draining in the background (new items were stored, or the process just started). */
  nudge(delayMs = 0): void {
    if (this.scheduled || this.stopped) return;
    // setTimeout, not setImmediate: leaves room for I/O (fetches, HTTP requests) between batches.
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.pump();
    }, delayMs);
    this.scheduled.unref();
  }

  /** Starts background batches: one while the backlog is short, up to `parallel` while it is not. */
  private pump(): void {
    const want = this.full ? this.parallel : 1;
    if (this.running.size >= want) this.pending = true;
    while (!this.stopped && this.running.size < want) {
      this.runBatch().then(
        (n) => {
          this.full = n === BacklogDrain.BATCH;
          if (n > 0 || this.pending) {
            this.pending = false;
            this.nudge();
          }
        },
        (e: unknown) => {
          this.onError(e);
          this.nudge(BacklogDrain.RETRY_MS);
        },
      );
    }
  }

  /** Change-signal generation at which the backlog was last seen empty. */
  private emptyAt = Number.NaN;

  /** Resolves once the backlog is empty (or a batch failed: that is logged, and retried later). */
  async flush(): Promise<void> {
    for (;;) {
      // Seen empty, and nothing changed anywhere since: no read (the search path of an idle store).
      const at = this.store.changes.generation();
      if (at === this.emptyAt && !this.running.size) return;
      try {
        // Batches side by side until none finds an entry it can take; then one that waits for the
        // entries other indexers hold (another process's batch): empty only when it finds none.
        let took = 0;
        await Promise.all(
          Array.from({ length: this.parallel }, async () => {
            for (let n = await this.runBatch(); n > 0; n = await this.runBatch()) took += n;
          }),
        );
        if (took === 0 && (await this.runBatch({ waitForLocked: true })) === 0) {
          this.emptyAt = at;
          return;
        }
      } catch (e) {
        this.onError(e);
        this.nudge(BacklogDrain.RETRY_MS);
        return;
      }
    }
  }

  /** Looks at the backlog now and then: another process may have left items (it crashed, or stopped). */
  async check(): Promise<void> {
    if (this.running.size || this.scheduled) return;
    if (await this.store.searchIndex.hasBacklog()) this.nudge();
  }

  /** Resolves when no batch of this process is running. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
  }

  /** Indexes the next batch of the backlog; returns how many items it took (0: none it could take). */
  private async runBatch(opts: { waitForLocked?: boolean } = {}): Promise<number> {
    while (this.running.size >= this.parallel) await Promise.race(this.running).catch(() => {});
    // Everything the batch does, its follow-up included, is inside `run`, which leaves `running`
    // before it settles: a waiter must never see a settled promise still marked as running.
    let run: Promise<number> | undefined;
    run = (async () => {
      try {
        const n = await drainBatch(this.store, BacklogDrain.BATCH, opts, this.ahead);
        this.waiting = n === BacklogDrain.BATCH ? Math.max(this.waiting - n, n) : 0;
        if (n) await this.afterBatch();
        return n;
      } finally {
        // Set by now: drainBatch awaited before this runs.
        if (run) this.running.delete(run);
      }
    })();
    this.running.add(run);
    return run;
  }
}

/**
 * One batch of the backlog, indexed and taken off in one transaction; returns the items taken.
 * The batch's entries are held by the transaction (PostgreSQL: FOR UPDATE SKIP LOCKED, so other
 * indexers, of this process or another, take the next ones meanwhile); its text is extracted and
 * its passages written before the index lock, which is held only for the document numbers,
 * articles and postings. `waitForLocked`: entries another indexer holds are waited for instead of
 * skipped (a flush that must see the backlog empty).
 */
export async function drainBatch(
  store: Store,
  batchSize: number,
  opts: { waitForLocked?: boolean } = {},
  ahead?: PrepareAhead,
): Promise<number> {
  const repo = store.searchIndex;
  // A read first: an empty backlog costs no write transaction (nor, on SQLite, the write lock).
  if (!(await repo.hasBacklog())) return 0;
  // What was prepared ahead is awaited before the transaction opens: on SQLite it holds the only
  // write lock, on PostgreSQL a connection and the vacuum horizon.
  const ready = await ahead?.take(repo, batchSize);
  return store.transaction(async () => {
    const entries = await repo.backlog(batchSize, opts);
    if (!entries.length) return 0;
    // A full batch: more is waiting, most likely the entries right after these. They are read now
    // and counted on the worker while this batch is written.
    if (entries.length === batchSize) await ahead?.start(repo, entries[entries.length - 1]!.itemId, batchSize);
    // Items gone meanwhile took their backlog rows and index rows with them (ON DELETE CASCADE;
    // PostgreSQL: passages and backlog rows by the trigger of migration 130).
    await indexItemsNow(
      repo,
      entries.map((e) => e.itemId),
      { locked: false, prepared: ready && PrepareAhead.matching(ready, entries) },
    );
    await repo.removeFromBacklog(entries);
    return entries.length;
  });
}

/**
 * The next batch of the backlog, prepared (text extracted, words counted: most of indexing's
 * JavaScript, prepare.ts) before its write transaction: with a worker thread, while the batch
 * before it is written (the two then run on two cores), else on the main thread just before the
 * transaction opens. It is a guess, read without holding the entries: the transaction still takes
 * its batch from the backlog as before, and uses what was prepared only for entries whose item is
 * unchanged since (the same `seq`); anything else is prepared in the transaction as before.
 */
export class PrepareAhead {
  /** Where the next batch most likely starts, and (on the worker) its preparation under way. */
  private next: { afterId: number; started?: Started } | undefined;
  private readonly prepare: (sources: SearchItemSource[]) => Promise<PreparedItem[]>;
  private readonly onWorker: boolean;

  /** `worker`: prepares a batch's sources on a worker thread (none: on the calling thread). */
  constructor(worker?: (sources: SearchItemSource[]) => Promise<PreparedItem[]>) {
    this.onWorker = worker !== undefined;
    this.prepare = worker ?? (async (sources) => sources.map(prepareItem));
  }

  /**
   * The next batch most likely takes the entries after `afterId` (called in the transaction of the
   * batch before it). On the worker they are read and their preparation starts now; on the main
   * thread both wait for take(), outside the transaction.
   */
  async start(repo: SearchIndexRepository, afterId: number, limit: number): Promise<void> {
    this.next = { afterId, started: this.onWorker ? await this.begin(repo, afterId, limit) : undefined };
  }

  /** What was prepared for the next batch; with nothing started, the first entries of the backlog. */
  async take(repo: SearchIndexRepository, limit: number): Promise<Prepared | undefined> {
    const next = this.next;
    this.next = undefined;
    const started = next?.started ?? (await this.begin(repo, next?.afterId ?? 0, limit));
    return started?.done;
  }

  /** Reads the entries and their items, and starts preparing them. */
  private async begin(repo: SearchIndexRepository, afterId: number, limit: number): Promise<Started | undefined> {
    const entries = await repo.backlogAfter(afterId, limit);
    if (!entries.length) return undefined;
    const sources = await repo.itemSources(entries.map((e) => e.itemId));
    const done = this.prepare(sources).then(
      (items) => ({ entries, items }),
      // A worker stopped (the pool closing, a time limit): the transaction prepares them itself.
      () => undefined,
    );
    return { done };
  }

  /**
   * The prepared items of these entries whose item is the version prepared: the same entry (seq
   * and time queued: an item indexed since by another indexer and changed again is queued anew,
   * at seq 0 again but later).
   */
  static matching(ready: Prepared, entries: BacklogEntry[]): Map<number, PreparedItem> {
    const key = (e: BacklogEntry) => `${e.seq}@${e.queuedAt}`;
    const read = new Map(ready.entries.map((e) => [e.itemId, key(e)]));
    const wanted = new Set(entries.filter((e) => read.get(e.itemId) === key(e)).map((e) => e.itemId));
    const out = new Map<number, PreparedItem>();
    for (const item of ready.items) if (wanted.has(item.id)) out.set(item.id, item);
    return out;
  }
}

interface Prepared {
  entries: BacklogEntry[];
  items: PreparedItem[];
}

interface Started {
  done: Promise<Prepared | undefined>;
}

export interface IndexStatusReport {
  backend: 'sqlite' | 'postgres';
  /** Items stored. */
  stored: number;
  /** Articles in the index (an item without any text is never indexed). */
  indexed: number;
  passages: number;
  /** Items waiting to be indexed, by any process. */
  waiting: number;
  /** Items left out for having no text to index (no title, no body): never indexed, not waiting. */
  noText: number;
  /** Seconds the oldest waiting item has waited; null when none waits. */
  lagSeconds: number | null;
  /** A rebuild left pending (an upgrade, `search reindex` interrupted): its cursor. */
  rebuild: { afterItemId: number } | null;
}

/** What `tidings search status` reports. */
export async function searchIndexStatus(app: App, now = Date.now()): Promise<IndexStatusReport> {
  const repo = app.store.searchIndex;
  const [status, state] = [await repo.indexStatus(), await repo.state()];
  return {
    backend: app.store.backend,
    stored: status.items,
    indexed: status.articles,
    passages: status.passages,
    waiting: status.waiting,
    noText: Number(status.noText),
    lagSeconds: status.oldestQueuedAt === null ? null : Math.max(0, (now - status.oldestQueuedAt) / 1000),
    rebuild: state.rebuildAfter === null ? null : { afterItemId: state.rebuildAfter },
  };
}

/**
 * Items per transaction of a rebuild run in the foreground on SQLite (`tidings search reindex`, a
 * command's search finishing a pending rebuild). Each batch writes one segment per distinct term,
 * and every such write rewrites the term's last chunk and dirties its page, so the postings' share
 * of a batch falls as batches grow (a batch of 4x the articles has far fewer than 4x the distinct
 * terms). Measured (`node bench/search-build.bench.ts`, BENCHMARKS.md, Search at 10M passages):
 * 2,000 against 500 took 0.74-0.96x the CPU and 1.1-1.9x the speed at load 13-19. The drain and a
 * server's background rebuild keep BacklogDrain.BATCH: a batch holds SQLite's only write lock,
 * which ingest waits for. PostgreSQL keeps 500 too: at load 20 one postings statement of a
 * rebuild passed the 60 s statement timeout in that bench (a plan made on the statistics of the
 * emptied tables, since fixed in the store: BENCHMARKS.md, "Search index rebuilds in a row on
 * PostgreSQL"), and no larger batch was measured there.
 */
export const REINDEX_BATCH = 2000;

function reindexBatch(store: Store): number {
  return store.backend === 'sqlite' ? REINDEX_BATCH : BacklogDrain.BATCH;
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
    const step = await rebuildStep(store, opts.batchSize ?? reindexBatch(store));
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
  // This process's background job stops here: every step is its own transaction on a shared
  // cursor, so the loop below carries on from where the job was.
  backgroundRebuilds.get(app)?.stop();
  let items = 0;
  for (;;) {
    const step = await rebuildStep(app.store, reindexBatch(app.store));
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

/**
 * Indexes the items (replacing earlier versions); the caller holds the transaction. `locked`
 * (default): the caller holds `lockForWriting` (a rebuild). Otherwise the caller holds the items'
 * backlog entries, and this takes `lockForPassages` and then `lockForPostings` itself: everything
 * up to the passages (reading the items, extracting text, counting words, writing passages) runs
 * beside other indexers; only the document numbers, articles and postings take turns.
 */
export async function indexItemsNow(
  repo: SearchIndexRepository,
  ids: number[],
  opts: { locked?: boolean; prepared?: Map<number, PreparedItem> } = {},
): Promise<number> {
  // Before reading: whether an item was indexed before (so has passages to replace) must not
  // change until its passages are written (a rebuild holds this lock exclusively).
  if (opts.locked === false) await repo.lockForPassages();
  // Items prepared ahead (text extracted and words counted before this transaction, maybe on a
  // worker thread) need only whether they are indexed; the others are read and prepared now.
  const ready = opts.prepared ?? new Map<number, PreparedItem>();
  const toRead = ready.size ? ids.filter((id) => !ready.has(id)) : ids;
  const sources = await repo.itemSources(toRead);
  const indexed = new Map<number, boolean | undefined>(sources.map((s) => [s.id, s.indexed]));
  const aheadIds = ids.filter((id) => ready.has(id));
  if (aheadIds.length) {
    const known = await repo.indexedAmong(aheadIds);
    for (const id of aheadIds) indexed.set(id, known ? known.has(id) : undefined);
  }
  const bySource = new Map(sources.map((s) => [s.id, s]));
  const items: PreparedItem[] = [];
  for (const id of [...ids].sort((x, y) => x - y)) {
    const item = ready.get(id) ?? (bySource.has(id) ? prepareItem(bySource.get(id)!) : undefined);
    if (item) items.push(item);
  }
  if (!items.length) return 0;
  // Words are counted under document numbers 1..n; the real ones are reserved under the lock.
  const batch = new IndexBatch();
  let passages = 0;
  let rel = 0;
  const empty: number[] = [];
  const articles: IndexedArticle[] = [];
  const texts: { itemId: number; passages: { text: string; words: number }[]; replace: boolean }[] = [];
  for (const { id, article } of items) {
    if (!article) {
      if (indexed.get(id) !== false) empty.push(id);
      continue;
    }
    const { lengths } = article.counted;
    batch.addCounted(++rel, article.counted);
    articles.push({
      ...article.item,
      docNo: rel,
      titleLength: lengths.title,
      bodyLength: lengths.body,
      urlLength: lengths.url,
    });
    texts.push({ itemId: id, passages: article.passages, replace: indexed.get(id) !== false });
    passages += article.passages.length;
  }
  // Synchronously after the last add: the word counts leave the slots every batch shares.
  const postings = batch.detach();
  await repo.storePassages(texts);
  if (opts.locked === false) await repo.lockForPostings();
  const offset = articles.length ? (await repo.reserveDocNumbers(articles.length)) - 1 : 0;
  await repo.deleteItems(empty);
  await repo.storeArticles(
    articles.map((a, k) => ({ article: { ...a, docNo: a.docNo + offset }, replace: texts[k]!.replace })),
  );
  await repo.appendPostings(postings.encode(offset));
  return passages;
}

export { hostOf, indexedItem, itemPassages } from './prepare.ts';
