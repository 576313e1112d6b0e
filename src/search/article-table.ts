// The indexed articles' numbers in memory, by document number: what scoring reads for every
// posting (field lengths) and what filters test (feed, host, dates), in typed arrays so a query
// over tens of thousands of postings does no lookups in SQLite.
//
// The table follows the store, never the other way round: before each search it reads the
// index's counters (one row) and loads the articles indexed since, by any process (a
// `tidings refresh` beside the server). Removed or replaced articles are noticed when their
// document numbers come up as candidates (the caller checks candidates against the store and
// calls markRemoved); a full reload reclaims them once they add up.
import { endianness } from 'node:os';
import type { IndexedArticleRow, SearchIndexRepository, SearchIndexState } from '../store/repositories.ts';
import { readSnapshot, SNAPSHOT_FORMAT, writeSnapshot } from './article-table-snapshot.ts';

/** Rows loaded per query while catching up. */
const LOAD_PAGE = 5000;

/** Rows loaded from the store since the last snapshot before a new one is written. */
const SNAPSHOT_AFTER_ROWS = 20_000;

/** Where a table keeps its snapshot (./article-table-snapshot.ts), and what it reports failures to. */
export interface SnapshotOptions {
  file: string;
  /** The store's location: a snapshot of another store is never used. */
  location: string;
  onError: (err: unknown) => void;
  /** Rows loaded from the store since the last snapshot that make a new one worth writing. */
  afterRows?: number;
}

export class ArticleTable {
  private readonly repo: SearchIndexRepository;
  /** Highest document number + 1 the arrays can hold. */
  private capacity = 0;
  itemId = new Float64Array(0);
  feedId = new Int32Array(0);
  hostId = new Int32Array(0);
  publishedAt = new Float64Array(0);
  updatedAt = new Float64Array(0);
  titleLength = new Int32Array(0);
  bodyLength = new Int32Array(0);
  urlLength = new Int32Array(0);
  /** 1 while the document number is (as far as we know) a current article. */
  live = new Uint8Array(0);
  /** Interned host names; hostId indexes this. */
  readonly hosts: string[] = [];
  private readonly hostIds = new Map<string, number>();
  /** Rebuild epoch and removal count of the store when the table was last loaded from scratch. */
  private epoch = -1;
  private removedAtLoad = 0;
  /** Every document number below this has been loaded. */
  private loadedUpTo = 1;

  private readonly snapshot: SnapshotOptions | undefined;
  /** Rows read from the store since the snapshot was last read or written. */
  private rowsSinceSnapshot = 0;
  /** The snapshot write under way, if any. */
  private writing: Promise<void> | undefined;
  /** Where the table's rows came from on its first sync (tests, the CLI's timing). */
  restoredFromSnapshot = false;

  constructor(repo: SearchIndexRepository, snapshot?: SnapshotOptions) {
    this.repo = repo;
    this.snapshot = snapshot;
  }

  /** The counters last read, and the change-signal generation they were read at. */
  private state: SearchIndexState | undefined;
  private stateAt = Number.NaN;

  /** Brings the table up to date with the store; returns the counters the ranking uses. */
  async sync(): Promise<SearchIndexState> {
    // Nothing changed anywhere since the last sync (no process indexed, removed or rebuilt):
    // the table is current without a read.
    const at = this.repo.changes.generation();
    if (this.state && at === this.stateAt) return this.state;
    const state = await this.repo.state();
    if (this.epoch === -1 && this.snapshot) await this.restore(state, this.snapshot);
    // A rebuild restarted the numbers, or enough articles went away that their dead entries are
    // worth dropping: load everything again.
    if (state.epoch !== this.epoch || state.removed - this.removedAtLoad > Math.max(1000, state.articles / 5)) {
      this.reset();
      this.epoch = state.epoch;
      this.removedAtLoad = state.removed;
    }
    while (this.loadedUpTo < state.nextDocNo) {
      const rows = await this.repo.articleRows(this.loadedUpTo, LOAD_PAGE);
      for (const r of rows) this.put(r);
      this.loadedUpTo = rows.length === LOAD_PAGE ? rows[rows.length - 1]!.docNo + 1 : state.nextDocNo;
      this.rowsSinceSnapshot += rows.length;
    }
    this.state = state;
    this.stateAt = at;
    if (this.snapshot && this.rowsSinceSnapshot >= (this.snapshot.afterRows ?? SNAPSHOT_AFTER_ROWS) && !this.writing)
      this.save(state, this.snapshot);
    return state;
  }

  /** Takes the snapshot's rows when it is of this store, index and epoch (the catch-up then reads the rest). */
  private async restore(state: SearchIndexState, opts: SnapshotOptions): Promise<void> {
    const snap = await readSnapshot(opts.file);
    if (!snap || !state.indexId) return;
    const h = snap.header;
    if (h.location !== opts.location || h.indexId !== state.indexId || h.epoch !== state.epoch) return;
    if (h.loadedUpTo > state.nextDocNo || h.removedAtLoad > state.removed) return;
    const c = snap.columns;
    this.itemId = c.itemId;
    this.feedId = c.feedId;
    this.hostId = c.hostId;
    this.publishedAt = c.publishedAt;
    this.updatedAt = c.updatedAt;
    this.titleLength = c.titleLength;
    this.bodyLength = c.bodyLength;
    this.urlLength = c.urlLength;
    this.live = c.live;
    this.capacity = h.loadedUpTo;
    this.loadedUpTo = h.loadedUpTo;
    this.hosts.length = 0;
    this.hostIds.clear();
    for (const host of h.hosts) this.internHost(host);
    this.epoch = h.epoch;
    this.removedAtLoad = h.removedAtLoad;
    this.restoredFromSnapshot = true;
  }

  /** Writes the snapshot in the background; `settled()` waits for it. */
  private save(state: SearchIndexState, opts: SnapshotOptions): void {
    this.rowsSinceSnapshot = 0;
    const header = {
      format: SNAPSHOT_FORMAT,
      endianness: endianness(),
      location: opts.location,
      indexId: state.indexId,
      epoch: this.epoch,
      removedAtLoad: this.removedAtLoad,
      loadedUpTo: this.loadedUpTo,
      hosts: [...this.hosts],
    };
    this.writing = writeSnapshot(opts.file, header, this)
      .catch(opts.onError)
      .finally(() => {
        this.writing = undefined;
      });
  }

  /** Resolves once no snapshot write is under way (a command waits for it before it exits). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private reset(): void {
    this.capacity = 0;
    this.itemId = new Float64Array(0);
    this.feedId = new Int32Array(0);
    this.hostId = new Int32Array(0);
    this.publishedAt = new Float64Array(0);
    this.updatedAt = new Float64Array(0);
    this.titleLength = new Int32Array(0);
    this.bodyLength = new Int32Array(0);
    this.urlLength = new Int32Array(0);
    this.live = new Uint8Array(0);
    this.loadedUpTo = 1;
  }

  /** Document numbers below this may have an entry. */
  get size(): number {
    return this.loadedUpTo;
  }

  /** Bytes of the typed arrays (memory accounting). */
  get byteLength(): number {
    return (
      this.itemId.byteLength +
      this.feedId.byteLength +
      this.hostId.byteLength +
      this.publishedAt.byteLength +
      this.updatedAt.byteLength +
      this.titleLength.byteLength +
      this.bodyLength.byteLength +
      this.urlLength.byteLength +
      this.live.byteLength
    );
  }

  /**
   * Whether every number the table holds as live is a current article as of these counters: no
   * article was removed or replaced since the table was loaded from scratch (removals are counted
   * by the store, and an article loaded after one cannot be it). Then the candidates need no
   * check against the store; any removal sends searches back to checking until the next reload.
   */
  liveIsCurrent(state: SearchIndexState): boolean {
    return state.epoch === this.epoch && state.removed === this.removedAtLoad;
  }

  markRemoved(docNo: number): void {
    if (docNo < this.capacity) this.live[docNo] = 0;
  }

  private put(r: IndexedArticleRow): void {
    this.grow(r.docNo + 1);
    const d = r.docNo;
    this.itemId[d] = r.itemId;
    this.feedId[d] = r.feedId;
    this.hostId[d] = this.internHost(r.host);
    this.publishedAt[d] = r.publishedAt;
    this.updatedAt[d] = r.updatedAt;
    this.titleLength[d] = r.titleLength;
    this.bodyLength[d] = r.bodyLength;
    this.urlLength[d] = r.urlLength;
    this.live[d] = 1;
  }

  private internHost(host: string): number {
    let id = this.hostIds.get(host);
    if (id === undefined) {
      id = this.hosts.length;
      this.hosts.push(host);
      this.hostIds.set(host, id);
    }
    return id;
  }

  private grow(needed: number): void {
    if (needed <= this.capacity) return;
    let size = Math.max(1024, this.capacity);
    while (size < needed) size *= 2;
    const int = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    const float = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.itemId = float(this.itemId);
    this.feedId = int(this.feedId);
    this.hostId = int(this.hostId);
    this.publishedAt = float(this.publishedAt);
    this.updatedAt = float(this.updatedAt);
    this.titleLength = int(this.titleLength);
    this.bodyLength = int(this.bodyLength);
    this.urlLength = int(this.urlLength);
    const live = new Uint8Array(size);
    live.set(this.live);
    this.live = live;
    this.capacity = size;
  }
}
