// Drops the postings of removed and replaced articles. Re-indexing an article gives it a new
// document number and leaves its old postings behind (searches skip them: the number is no
// longer in search_articles), so an instance whose feeds edit or lose items slowly accumulates
// postings that are read and thrown away on every query. Once removals since the last compaction
// pass a fifth of the articles, a compaction rewrites each term's postings without them.
//
// It works term by term, in steps (each its own transaction, between event-loop turns), against
// a snapshot of the current document numbers: articles indexed after the snapshot have higher
// numbers and are kept; articles removed after it are dropped by the next compaction.
import type { SearchIndexRepository, SearchIndexState } from '../store/repositories.ts';
import { encodeSegment, PostingsBuffer } from './postings.ts';

/** Removals below this never start a compaction (small indexes are cheap to read anyway). */
const MIN_REMOVED = 1000;
const TERMS_PER_STEP = 200;

export function compactionDue(state: SearchIndexState, minRemoved = MIN_REMOVED): boolean {
  return (
    state.rebuildAfter === null && state.removed - state.compactedRemoved > Math.max(minRemoved, state.articles / 5)
  );
}

export class PostingsCompaction {
  private readonly repo: SearchIndexRepository;
  private readonly live: Uint8Array;
  private readonly removedAtStart: number;
  private readonly buffer = new PostingsBuffer();
  private cursor = '';
  /** Terms looked at and postings dropped so far. */
  terms = 0;
  dropped = 0;

  private constructor(repo: SearchIndexRepository, state: SearchIndexState, liveDocNumbers: number[]) {
    this.repo = repo;
    this.removedAtStart = state.removed;
    this.live = new Uint8Array(state.nextDocNo);
    for (const d of liveDocNumbers) if (d < this.live.length) this.live[d] = 1;
  }

  /** A compaction against a snapshot of the current document numbers. */
  static async start(repo: SearchIndexRepository): Promise<PostingsCompaction> {
    const state = await repo.state();
    return new PostingsCompaction(repo, state, await repo.liveDocNumbers());
  }

  /** Compacts the next terms (the caller holds a transaction); true when every term is done. */
  async step(terms = TERMS_PER_STEP): Promise<boolean> {
    const list = await this.repo.termsAfter(this.cursor, terms);
    for (const term of list) await this.compactTerm(term);
    this.terms += list.length;
    if (list.length < terms) {
      await this.repo.setCompactedRemoved(this.removedAtStart);
      return true;
    }
    this.cursor = list[list.length - 1]!;
    return false;
  }

  private async compactTerm(term: string): Promise<void> {
    const { chunks, count } = await this.repo.postings(term);
    const kept: number[] = [];
    const b = this.buffer,
      live = this.live;
    for (const chunk of chunks) {
      const n = b.decode(chunk);
      for (let i = 0; i < n; i++) {
        const d = b.docs[i]!;
        // Numbers past the snapshot belong to articles indexed since: kept.
        if (d >= live.length || live[d] === 1) kept.push(d, b.title[i]!, b.body[i]!, b.url[i]!);
      }
    }
    const keptCount = kept.length / 4;
    if (keptCount === count) return;
    this.dropped += count - keptCount;
    await this.repo.replacePostings(term, this.chunksOf(kept));
  }

  /** The postings re-encoded in chunks of about the store's chunk size. */
  private chunksOf(flat: number[]): { bytes: Uint8Array; count: number }[] {
    if (!flat.length) return [];
    const all = encodeSegment(flat);
    const postings = flat.length / 4;
    if (all.length <= this.repo.chunkBytes) return [{ bytes: all, count: postings }];
    const perChunk = Math.max(1, Math.floor((postings * 0.9 * this.repo.chunkBytes) / all.length));
    const out: { bytes: Uint8Array; count: number }[] = [];
    for (let i = 0; i < postings; ) {
      let n = Math.min(perChunk, postings - i);
      let bytes = encodeSegment(flat.slice(i * 4, (i + n) * 4));
      // Gaps vary along the list: shrink a slice that came out over the size.
      while (bytes.length > this.repo.chunkBytes && n > 1) {
        n = Math.max(1, Math.floor(n * 0.9));
        bytes = encodeSegment(flat.slice(i * 4, (i + n) * 4));
      }
      out.push({ bytes, count: n });
      i += n;
    }
    return out;
  }
}
