// The article index: BM25 over whole articles (title, body and the words of the URL's path as
// fields), from our own postings (./postings.ts) scored term by term in memory.
//
// Why not FTS5 (which this replaced; BENCHMARKS.md, ## Search): an OR query over a question's
// words matches a large share of a news collection, and FTS5's bm25() decodes every match's
// positions, looks up its row size and runs the ranking callback for each one (175 ms p50 at 1M
// passages). Here a query decodes only the query terms' compact postings into typed arrays and
// accumulates scores in a reused array indexed by document number; filters are tested once per
// article from the in-memory article table (./article-table.ts). Owning the formula also let the
// ranking use what FTS5's fixed bm25() could not.
import type { ArticleMatch, PassageFilter, SearchIndexRepository, SearchIndexState } from '../store/repositories.ts';
import { ArticleTable, type SnapshotOptions } from './article-table.ts';
import { firstDocument, PostingsBuffer } from './postings.ts';
import { queryWordStems } from './tokenizer.ts';

export interface FieldWeights {
  title: number;
  body: number;
  url: number;
}

export interface ArticleScoring {
  weights: FieldWeights;
  /** BM25 term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /**
   * BM25+'s lower bound (Lv & Zhai 2011): every matched query term adds at least this times its
   * idf, however long the article, so long articles that match many of the question's words are
   * not buried under short ones that repeat one word.
   */
  delta: number;
}

/** Distinct stems of the query words, in order: the same tokens and stems the index made. */
export function queryStems(words: string[]): string[] {
  const out = new Set<string>();
  for (const w of words) for (const t of queryWordStems(w)) out.add(t);
  return [...out];
}

/** Users whose subscribed feeds are kept between searches (a few hundred bytes each per feed set). */
const SUBSCRIBERS_KEPT = 1000;

/** The scope and filters of a search as per-article tests over the article table. */
interface CompiledFilter {
  feeds?: ReadonlySet<number>;
  docs?: Set<number>;
  /** Per host id: 1 allowed, 0 denied (absent: no host filter). */
  hostAllowed?: Uint8Array;
  publishedAfter: number;
  publishedBefore: number;
  updatedAfter: number;
  updatedBefore: number;
}

/**
 * Candidates taken beyond the limit, for numbers that turn out removed when checked against the
 * store. Pruning keeps the top limit + CANDIDATE_SLACK exact; past that (many removed articles
 * among the best), the next ones are approximate until the table is reloaded.
 */
const CANDIDATE_SLACK = 16;

/** Scores articles for a query. One per database connection (its buffers are reused). */
export class ArticleIndex {
  private readonly repo: SearchIndexRepository;
  private readonly table: ArticleTable;
  private readonly postings = new PostingsBuffer();
  private scores = new Float64Array(0);
  /** Per document number: 0 not seen in this query, 1 passes the filter, 2 filtered out. */
  private seen = new Uint8Array(0);
  private touched = new Int32Array(0);
  /** Entries of `touched` written by the current search. */
  private touchedSoFar = 0;
  /** What the last search did (for tests and the benchmark). */
  lastSearch = { postings: 0, articles: 0, prunedTerms: 0, skippedChunks: 0, candidates: 0 };
  /**
   * The search holding the reused buffers, if any. Scoring itself is synchronous, but checking
   * the candidates against the store is not: the next search waits (on SQLite, where the store
   * answers at once, it never has to).
   */
  private busy: Promise<unknown> | undefined;
  /**
   * The feeds each user subscribes to, with the change-signal generation they were read at: every
   * answer scoped to the key owner's subscriptions needed them, and they change only when a
   * subscription is added or removed (a write that moves the signal in every process: on
   * PostgreSQL the catalog-version triggers notify). Bounded: cleared past SUBSCRIBERS_KEPT users.
   */
  private readonly subscribed = new Map<number, { at: number; feeds: ReadonlySet<number> }>();

  constructor(repo: SearchIndexRepository, snapshot?: SnapshotOptions) {
    this.repo = repo;
    this.table = new ArticleTable(repo, snapshot);
  }

  /** The article table (its snapshot state, for tests and commands). */
  get articleTable(): ArticleTable {
    return this.table;
  }

  /** Bytes of the article table and the per-article scoring buffers (memory accounting). */
  get memoryBytes(): number {
    return this.table.byteLength + this.scores.byteLength + this.seen.byteLength + this.touched.byteLength;
  }

  /**
   * The best `limit` current articles for the stemmed query terms under the filter, by BM25
   * (higher is better). Articles that match no term are not returned.
   */
  async search(
    stems: string[],
    filter: PassageFilter,
    limit: number,
    scoring: ArticleScoring,
  ): Promise<ArticleMatch[]> {
    while (this.busy) await this.busy;
    const run = this.searchNow(stems, filter, limit, scoring);
    this.busy = run;
    try {
      return await run;
    } finally {
      this.busy = undefined;
    }
  }

  private async searchNow(
    stems: string[],
    filter: PassageFilter,
    limit: number,
    scoring: ArticleScoring,
  ): Promise<ArticleMatch[]> {
    if (!stems.length || limit <= 0) return [];
    // Independent reads at once (on a database server they overlap instead of queueing): the
    // table's catch-up then the filter (it needs the table's hosts), and every term's postings, all
    // read before scoring starts so scoring runs in one go.
    const [{ state, compiled }, byTerm] = await Promise.all([
      this.table.sync().then(async (state) => ({ state, compiled: await this.compile(filter) })),
      this.repo.postingsOf(stems),
    ]);
    if (state.articles === 0) return [];
    const postings = stems.map((term) => byTerm.get(term) ?? { chunks: [], count: 0 });
    try {
      const touchedCount = this.accumulate(postings, state, compiled, scoring, limit + CANDIDATE_SLACK);
      return await this.best(touchedCount, limit, state);
    } finally {
      // Leave the reused buffers clean for the next query, also after an error (a corrupt chunk).
      const { scores, seen, touched } = this;
      for (let i = 0; i < this.touchedSoFar; i++) {
        const d = touched[i]!;
        scores[d] = 0;
        seen[d] = 0;
      }
      this.touchedSoFar = 0;
    }
  }

  private ensureBuffers(size: number): void {
    if (this.scores.length >= size) return;
    let n = Math.max(1024, this.scores.length);
    while (n < size) n *= 2;
    this.scores = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.touched = new Int32Array(n);
  }

  /**
   * Term-at-a-time BM25+ (FTS5's BM25 variant: field-weighted term frequency over the whole
   * article's length; plus delta), with MaxScore pruning: terms go rarest first, and once the
   * k-th best score so far beats what all remaining terms together could give an article, those
   * terms only add to articles already scored: no new article can reach the top k any more. From
   * then on only the *candidates* are scored: scored articles whose score plus what the remaining
   * terms could add still reaches the k-th best score so far (a lower bound of the final k-th).
   * The others are frozen, and a chunk of a remaining term that holds no candidate (its document
   * range, from its first document to the next chunk's, read without decoding) is not decoded:
   * at 500k passages most chunks of the common words. The top k, scores and order, is exactly the
   * exhaustive one (src/search/article-index.test.ts compares them on a generated index).
   */
  private accumulate(
    postings: { chunks: Uint8Array[]; count: number }[],
    state: SearchIndexState,
    filter: CompiledFilter,
    scoring: ArticleScoring,
    k: number,
  ): number {
    const t = this.table;
    this.ensureBuffers(t.size);
    const { scores, seen, touched } = this;
    const { k1, b, delta } = scoring;
    const w = scoring.weights;
    const n = state.articles;
    const avgLength = Math.max(1, (state.titleLength + state.bodyLength + state.urlLength) / n);
    const { live, titleLength, bodyLength, urlLength } = t;
    const p = this.postings;
    const terms = postings
      .map(({ chunks, count }) => {
        // FTS5's idf, never negative for words in more than half the articles. Postings of removed
        // articles still count until a compaction: the frequency is capped at the article count.
        const df = Math.min(count, n);
        const idf = Math.max(1e-6, Math.log((n - df + 0.5) / (df + 0.5)));
        // tf (k1+1) / (tf + …) stays below k1 + 1: the most one term can add to an article.
        return { chunks, count, idf, bound: idf * (k1 + 1 + delta) };
      })
      .filter((x) => x.count > 0)
      .sort((x, y) => y.bound - x.bound);
    let remaining = terms.reduce((sum, x) => sum + x.bound, 0);
    const stats = (this.lastSearch = { postings: 0, articles: 0, prunedTerms: 0, skippedChunks: 0, candidates: 0 });
    let touchedCount = 0;
    let best = 0;
    let admitNew = true;
    /** Once no new article is admitted: the candidates in increasing document number. */
    let candidates: Int32Array | undefined;
    let candidateCount = 0;
    for (const { chunks, idf, bound } of terms) {
      if (admitNew && touchedCount >= k && best > remaining) {
        const top = topK(scores, touched, touchedCount, k);
        if (top.length === k && scores[top[k - 1]!]! > remaining) admitNew = false;
      }
      if (!admitNew) {
        if (!candidates) {
          // The few that can still make it, out of all the scored articles, then in order.
          candidates = new Int32Array(touchedCount);
          candidateCount = this.narrow(touched, touchedCount, candidates, k, remaining);
          candidates = candidates.subarray(0, candidateCount).sort();
        } else candidateCount = this.narrow(candidates, candidateCount, candidates, k, remaining);
        stats.candidates = candidateCount;
      }
      remaining -= bound;
      if (!admitNew) stats.prunedTerms++;
      let next = 0; // the first candidate not below the current chunk's first document
      let ordered = candidates !== undefined;
      let low = ordered && chunks.length ? firstDocument(chunks[0]!) : 0;
      for (let c = 0; c < chunks.length; c++) {
        const chunk = chunks[c]!;
        if (ordered) {
          const high = c + 1 < chunks.length ? firstDocument(chunks[c + 1]!) : Infinity;
          // Chunks out of order (never written so, but not worth a wrong answer): decode them all.
          if (low < 0 || high <= low) ordered = false;
          else {
            while (next < candidateCount && candidates![next]! < low) next++;
            low = high;
            if (next >= candidateCount || candidates![next]! >= high) {
              stats.skippedChunks++;
              continue;
            }
          }
        }
        // Past the admission, only the candidates' postings are taken out of the chunk.
        const len = candidates ? p.decodeAmong(chunk, candidates, 0, candidateCount) : p.decode(chunk);
        stats.postings += len;
        const docs = p.docs,
          tTitle = p.title,
          tBody = p.body,
          tUrl = p.url;
        for (let i = 0; i < len; i++) {
          const d = docs[i]!;
          if (d >= t.size) continue; // committed by another process after the table's sync
          let s = seen[d]!;
          if (s === 0) {
            if (!admitNew) continue;
            s = live[d] === 1 && this.passes(d, filter) ? 1 : 2;
            seen[d] = s;
            touched[touchedCount++] = d;
            this.touchedSoFar = touchedCount;
          }
          if (s !== 1) continue;
          const tf = w.title * tTitle[i]! + w.body * tBody[i]! + w.url * tUrl[i]!;
          if (tf <= 0) continue;
          const length = titleLength[d]! + bodyLength[d]! + urlLength[d]!;
          const score = scores[d]! + idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgLength)) + delta);
          scores[d] = score;
          if (score > best) best = score;
        }
      }
    }
    stats.articles = touchedCount;
    return touchedCount;
  }

  /**
   * Copies (in order; `candidates` may be `from`) the articles that can still reach the top k: the k-th best
   * score among them is a lower bound of the final k-th (scores only grow), and an article below
   * it by more than `remaining` never reaches it. Dropped articles are frozen (marked as filtered
   * out, their partial score left below the top k). Returns the new count.
   */
  private narrow(from: Int32Array, count: number, candidates: Int32Array, k: number, remaining: number): number {
    const { scores, seen } = this;
    const top = topK(scores, from, count, k);
    if (top.length < k) {
      if (from !== candidates) candidates.set(from.subarray(0, count));
      return count;
    }
    const kth = scores[top[k - 1]!]!;
    // The margin covers the rounding of the sums (bound and score are added in different orders):
    // an article is dropped only when it misses by more than that.
    const floor = kth - remaining - 1e-9 * kth;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const d = from[i]!;
      if (seen[d] === 1 && scores[d]! >= floor) candidates[kept++] = d;
      else seen[d] = 2;
    }
    return kept;
  }

  private passes(d: number, f: CompiledFilter): boolean {
    const t = this.table;
    if (f.feeds || f.docs) {
      const inScope = (f.feeds?.has(t.feedId[d]!) ?? false) || (f.docs?.has(d) ?? false);
      if (!inScope) return false;
    }
    if (f.hostAllowed && f.hostAllowed[t.hostId[d]!] !== 1) return false;
    const published = t.publishedAt[d]!,
      updated = t.updatedAt[d]!;
    return (
      published >= f.publishedAfter &&
      published <= f.publishedBefore &&
      updated >= f.updatedAfter &&
      updated <= f.updatedBefore
    );
  }

  /**
   * The best-scored touched articles that are still current (checked against the store: a
   * removed or re-indexed article's old number is dropped and remembered as removed).
   */
  private async best(touchedCount: number, limit: number, state: SearchIndexState): Promise<ArticleMatch[]> {
    const { scores, touched } = this;
    if (this.table.liveIsCurrent(state)) {
      // Nothing removed since the table was loaded: its numbers are the store's (one round trip
      // less on a database server).
      const itemIds = this.table.itemId;
      return topK(scores, touched, touchedCount, limit).map((d) => ({ itemId: itemIds[d]!, score: scores[d]! }));
    }
    let want = limit;
    for (;;) {
      const top = topK(scores, touched, touchedCount, want + CANDIDATE_SLACK);
      const live = await this.repo.liveDocuments(top);
      const out: ArticleMatch[] = [];
      for (const d of top) {
        const itemId = live.get(d);
        if (itemId === undefined) {
          this.table.markRemoved(d);
          continue;
        }
        out.push({ itemId, score: scores[d]! });
        if (out.length === limit) break;
      }
      if (out.length === limit || top.length < want + CANDIDATE_SLACK) return out;
      want *= 4;
    }
  }

  /**
   * The `limit` newest dated current articles under the filter, newest first, their publication
   * time as score: a roundup ("what's new?") asks for no words. One pass over the article table
   * (bench/search-newest.bench.ts); undated articles are left out, as they cannot be placed.
   */
  async newest(filter: PassageFilter, limit: number): Promise<ArticleMatch[]> {
    if (limit <= 0) return [];
    const state = await this.table.sync();
    if (state.articles === 0) return [];
    const compiled = await this.compile(filter);
    const t = this.table;
    for (let want = limit + CANDIDATE_SLACK; ; want *= 4) {
      const top = this.newestDocuments(compiled, want);
      const live = t.liveIsCurrent(state) ? undefined : await this.repo.liveDocuments(top);
      const out: ArticleMatch[] = [];
      for (const d of top) {
        const itemId = live ? live.get(d) : t.itemId[d]!;
        if (itemId === undefined) {
          t.markRemoved(d);
          continue;
        }
        out.push({ itemId, score: t.publishedAt[d]! });
        if (out.length === limit) break;
      }
      if (out.length === limit || top.length < want) return out;
    }
  }

  /** Document numbers of the `k` newest dated articles that pass, newest first. */
  private newestDocuments(f: CompiledFilter, k: number): number[] {
    const { live, publishedAt } = this.table;
    const top: number[] = [];
    for (let d = 1; d < this.table.size; d++) {
      const p = publishedAt[d]!;
      if (live[d] !== 1 || !(p > 0)) continue;
      if (top.length === k && p <= publishedAt[top[k - 1]!]!) continue;
      if (!this.passes(d, f)) continue;
      let i = top.length === k ? k - 1 : top.length;
      while (i > 0 && publishedAt[top[i - 1]!]! < p) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = d;
    }
    return top;
  }

  private async subscribedFeeds(userId: number): Promise<ReadonlySet<number>> {
    const at = this.repo.changes.generation();
    const kept = this.subscribed.get(userId);
    if (kept && kept.at === at) return kept.feeds;
    const feeds = new Set(await this.repo.subscribedFeedIds(userId));
    if (this.subscribed.size >= SUBSCRIBERS_KEPT) this.subscribed.clear();
    this.subscribed.set(userId, { at, feeds });
    return feeds;
  }

  private async compile(f: PassageFilter): Promise<CompiledFilter> {
    const out: CompiledFilter = {
      publishedAfter: f.publishedAfter ?? -Infinity,
      publishedBefore: f.publishedBefore ?? Infinity,
      updatedAfter: f.updatedAfter ?? -Infinity,
      updatedBefore: f.updatedBefore ?? Infinity,
    };
    const scope = f.scope;
    if (scope.kind === 'subscriptions') out.feeds = await this.subscribedFeeds(scope.userId);
    if (scope.kind === 'streams') {
      out.feeds = new Set(scope.feedIds);
      out.docs = new Set(
        scope.taggedLabelIds.length || scope.states.length
          ? await this.repo.docNosTaggedOrInState(scope.userId, scope.taggedLabelIds, scope.states)
          : [],
      );
    }
    // Narrowed to some feeds of the scope: items of other feeds, and tagged or starred ones, are out.
    if (f.onlyFeeds) {
      const scoped = out.feeds;
      out.feeds = new Set(f.onlyFeeds.filter((id) => !scoped || scoped.has(id)));
      out.docs = undefined;
    }
    if (f.allowHosts?.length || f.denyHosts?.length) {
      const hosts = this.table.hosts;
      const allowed = new Uint8Array(hosts.length);
      const matches = (host: string, rule: string) => host === rule || host.endsWith('.' + rule);
      const allow = (f.allowHosts ?? []).map((h) => h.toLowerCase());
      const deny = (f.denyHosts ?? []).map((h) => h.toLowerCase());
      hosts.forEach((h, i) => {
        const ok = (!allow.length || allow.some((r) => matches(h, r))) && !deny.some((r) => matches(h, r));
        allowed[i] = ok ? 1 : 0;
      });
      out.hostAllowed = allowed;
    }
    return out;
  }
}

/** Indices of the k highest scores among the touched documents (score > 0), best first; ties by lower number. */
export function topK(scores: Float64Array, touched: Int32Array, count: number, k: number): number[] {
  // A min-heap of size k over (score, docNo): O(n log k) with no allocation per document.
  const heap: number[] = [];
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1,
        r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      // Swapped through a variable: a destructuring swap made two arrays per step.
      const t = heap[i]!;
      heap[i] = heap[m]!;
      heap[m] = t;
      i = m;
    }
  };
  for (let i = 0; i < count; i++) {
    const d = touched[i]!;
    if (!(scores[d]! > 0)) continue;
    if (heap.length < k) {
      heap.push(d);
      for (let j = heap.length - 1; j > 0; ) {
        const parent = (j - 1) >> 1;
        if (!worse(heap[j]!, heap[parent]!)) break;
        const t = heap[j]!;
        heap[j] = heap[parent]!;
        heap[parent] = t;
        j = parent;
      }
    } else if (worse(heap[0]!, d)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}

const indexes = new WeakMap<SearchIndexRepository, ArticleIndex>();
const snapshots = new WeakMap<SearchIndexRepository, SnapshotOptions>();

/**
 * Gives the repository's article index a snapshot file for its article table (call before the
 * first search): a process then starts from the snapshot instead of reading every article row.
 */
export function useArticleTableSnapshot(repo: SearchIndexRepository, opts: SnapshotOptions): void {
  snapshots.set(repo, opts);
}

/** Resolves once the repository's article index has no snapshot write under way. */
export async function articleIndexSettled(repo: SearchIndexRepository): Promise<void> {
  await indexes.get(repo)?.articleTable.settled();
}

/** Bytes held by the repository's article index, 0 before its first search. */
export function articleIndexMemory(repo: SearchIndexRepository): number {
  return indexes.get(repo)?.memoryBytes ?? 0;
}

/** The article index over a repository (one per connection: its article table and buffers are shared). */
export function articleIndexOf(repo: SearchIndexRepository): ArticleIndex {
  let index = indexes.get(repo);
  if (!index) indexes.set(repo, (index = new ArticleIndex(repo, snapshots.get(repo))));
  return index;
}
