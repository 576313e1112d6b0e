// Reciprocal rank fusion (Cormack et al., 2009): merges ranked lists whose scores are not
// comparable (BM25 of the local index, web result order, one list per reformulated query) using
// ranks only. k = 60 is the value from the paper; it keeps one list's top result from drowning the
// other's. The search service fuses the local index with web providers; the answer pipelines fuse
// the lists of several queries. Both use this one function, so an article is "the same" in both.
// Near-duplicates (one story under two URLs or on two sites) are a second, text-based identity,
// used where hits become an answer's sources (../answer/pipelines/retrieve.ts).
import type { SearchHit } from './types.ts';

export const RRF_K = 60;

/**
 * Fuses ranked lists into one, best first, at most `limit` hits. Hits of the same article (same
 * URL up to `fusionUrl`) add their reciprocal ranks and keep the passages of every list; the
 * local copy wins over a web one (it carries the item id). One list is returned as it is (its
 * scores stay the engine's own).
 */
export function reciprocalRankFusion(lists: SearchHit[][], limit = Number.POSITIVE_INFINITY, k = RRF_K): SearchHit[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  const fused = new Map<string, { hit: SearchHit; score: number }>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const key = fusionUrl(hit.url) || `item:${hit.itemId}`;
      const entry = fused.get(key);
      const add = 1 / (k + rank + 1);
      if (!entry) {
        fused.set(key, { hit, score: add });
        return;
      }
      entry.score += add;
      const [keep, other] = entry.hit.origin === 'web' && hit.origin === 'local' ? [hit, entry.hit] : [entry.hit, hit];
      const passages = [...keep.passages];
      for (const p of other.passages) if (!passages.some((x) => x.text === p.text)) passages.push(p);
      entry.hit = { ...keep, passages };
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ hit, score }) => ({ ...hit, score }));
}

/**
 * Fuses the result lists of one question searched several ways (the question as asked first, then
 * its reformulations): the first list's best `kept` hits stay in their places, and reciprocal rank
 * fusion of every list orders the rest. The question as asked is the best single ranking of the
 * lists fused (BENCHMARKS.md, ## Search): fused by rank alone, a hit of the names-only query took a
 * top place from it. Hits keep what reciprocalRankFusion gives them (merged passages, fused score);
 * the order, not the score, carries the ranking.
 */
export function fuseKeepingLead(lists: SearchHit[][], kept: number, limit = Number.POSITIVE_INFINITY): SearchHit[] {
  const fused = reciprocalRankFusion(lists);
  if (lists.length < 2 || kept <= 0) return fused.slice(0, limit);
  const key = (h: SearchHit) => fusionUrl(h.url) || `item:${h.itemId}`;
  const byKey = new Map(fused.map((h) => [key(h), h]));
  const lead = lists[0]!.slice(0, kept).map((h) => byKey.get(key(h))!);
  const inLead = new Set(lead.map(key));
  return [...lead, ...fused.filter((h) => !inLead.has(key(h)))].slice(0, limit);
}

/**
 * URL identity for fusion: scheme and host lowercased (WHATWG parsing does that), default port
 * and fragment dropped, one trailing slash ignored. Query strings stay: they often name the article.
 * A string that is not an absolute URL is compared as it is.
 */
export function fusionUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** Words per shingle: long enough that two stories on one topic rarely share one by chance. */
const SHINGLE_WORDS = 5;
/** Shared share of shingles (Jaccard) from which two hits are one story told twice. */
const NEAR_DUPLICATE_SIMILARITY = 0.5;

/**
 * The hits without near-duplicates: an article whose passages share at least `similarity` of
 * their 5-word shingles (Jaccard, Broder 1997) with a better-ranked hit is the same story — one
 * article under two URLs ("…/index.html"), a re-titled update, a wire story syndicated on two sites
 * — and is dropped, so the sources an answer lists are distinct stories, as Perplexity's are.
 * Titles alone do not decide it: section titles ("50 States") repeat over different stories.
 * Hits without text are never duplicates. Order is kept.
 */
export function withoutNearDuplicates(
  hits: SearchHit[],
  similarity = NEAR_DUPLICATE_SIMILARITY,
  /**
   * Hits wanted: reading stops once this many are kept (a hit is kept or dropped by the hits
   * before it only, so the first `max` are those of the whole list; a chat search fuses twice the
   * hits it lists, and reading the rest was a few % of an answer's CPU).
   */
  max = Number.POSITIVE_INFINITY,
): SearchHit[] {
  const kept: SearchHit[] = [];
  const sizes: number[] = [];
  // Each shingle seen so far -> the kept hit that had it first (shingleOwners below): one look-up per
  // shingle of a new hit counts what it shares with every kept hit at once (comparing sets
  // pairwise took twice as long). Kept hits share little with each other, so crediting a shingle
  // to the first is enough.
  const owners = shingleOwners(Math.min(hits.length, max) * MAX_SHINGLES);
  const shared: number[] = [];
  for (const hit of hits) {
    if (kept.length >= max) break;
    const size = shinglesOf(hit);
    const shingles = shingleBuffer;
    shared.fill(0);
    for (let i = 0; i < size; i++) {
      const owner = owners.ownerOf(shingles[i]!);
      if (owner >= 0) shared[owner]!++;
    }
    if (size && shared.some((n, k) => n && n / (sizes[k]! + size - n) >= similarity)) continue;
    const k = kept.push(hit) - 1;
    sizes.push(size);
    shared.push(0);
    for (let i = 0; i < size; i++) owners.claim(shingles[i]!, k);
  }
  return kept.length === hits.length ? hits : kept;
}

/** Shingles of one hit, at most: a word is a character and a separator. */
const MAX_SHINGLES = 1_000 / 2;

/**
 * Shingle -> owner, open addressing over typed arrays kept between calls, so a call makes no
 * garbage (sorted arrays merged on each keep did, and were two thirds of this dedup's time; a Map
 * boxed half of the 32-bit hashes): a slot is empty unless stamped by the current call.
 */
let ownerKeys = new Int32Array(0);
let ownerValues = new Int32Array(0);
let ownerStamps = new Int32Array(0);
let ownerStamp = 0;

function shingleOwners(most: number): { ownerOf(s: number): number; claim(s: number, owner: number): void } {
  // Under half full even with `most` shingles, and never less than the last call's table.
  let size = Math.max(ownerKeys.length, 1_024);
  while (size < 2 * most) size *= 2;
  if (size !== ownerKeys.length || ownerStamp >= 0x7fffffff) {
    ownerKeys = new Int32Array(size);
    ownerValues = new Int32Array(size);
    ownerStamps = new Int32Array(size);
    ownerStamp = 0;
  }
  const stamp = ++ownerStamp;
  const mask = size - 1;
  // Multiplicative hashing: the product's top bits pick the slot.
  const shift = 32 - Math.log2(size);
  const keys = ownerKeys;
  const values = ownerValues;
  const stamps = ownerStamps;
  const slotOf = (s: number): number => {
    let i = Math.imul(s, 0x9e3779b1) >>> shift;
    while (stamps[i] === stamp && keys[i] !== s) i = (i + 1) & mask;
    return i;
  };
  return {
    ownerOf(s) {
      const i = slotOf(s);
      return stamps[i] === stamp ? values[i]! : -1;
    },
    claim(s, owner) {
      const i = slotOf(s);
      if (stamps[i] === stamp) return;
      stamps[i] = stamp;
      keys[i] = s;
      values[i] = owner;
    },
  };
}

/** Characters of a hit's passages compared: copies of one story agree from their first words. */
const COMPARED_CHARS = 1_000;

/** Word hashes and shingles of the hit read last (shinglesOf): reused, so a call makes no garbage. */
const wordBuffer = new Int32Array(COMPARED_CHARS / 2 + 1);
let shingleBuffer = new Int32Array(COMPARED_CHARS / 2);

/**
 * The 5-word shingles of the hit's passages, best first, joined by line breaks and cut at
 * COMPARED_CHARS (a passage is read while fewer are read), as 32-bit hashes (FNV-1a per word,
 * mixed in order), sorted, each once, into shingleBuffer; returns how many. Read in one pass over
 * the passages' characters without joining them (the joined copy was a third of this dedup's
 * garbage): this runs on the 20 hits of every answer, and a Unicode regex with string shingles
 * cost 5-12 ms there. A word is a run of ASCII letters and digits or of non-ASCII characters other
 * than spaces, quotes and dashes; ASCII is folded to lower case. Both copies of a story are read
 * the same way, which is all a duplicate test needs.
 */
function shinglesOf(hit: SearchHit): number {
  const words = wordBuffer;
  let count = 0;
  let h = 0x811c9dc5;
  let inWord = false;
  // Characters read so far, as the joined text's length: a line break before every passage but
  // the first (when something was read), none past COMPARED_CHARS.
  let read = 0;
  const endWord = () => {
    if (inWord) {
      words[count++] = h;
      h = 0x811c9dc5;
      inWord = false;
    }
  };
  for (const p of hit.passages) {
    if (read >= COMPARED_CHARS) break;
    const text = p.text;
    if (read > 0) {
      read++;
      endWord();
    }
    const end = Math.min(text.length, COMPARED_CHARS - read);
    for (let i = 0; i < end; i++) {
      let c = text.charCodeAt(i);
      const word =
        (c >= 97 && c <= 122) ||
        (c >= 48 && c <= 57) ||
        (c >= 65 && c <= 90 && (c += 32)) ||
        (c > 127 && c !== 0xa0 && (c < 0x2000 || c > 0x206f));
      if (word) {
        h = Math.imul(h ^ c, 0x01000193);
        inWord = true;
      } else endWord();
    }
    read += text.length;
  }
  endWord();
  const n = Math.max(0, count - SHINGLE_WORDS + 1);
  if (shingleBuffer.length < n) shingleBuffer = new Int32Array(n);
  const all = shingleBuffer;
  for (let i = 0; i < n; i++) {
    let s = 0x811c9dc5;
    for (let j = i; j < i + SHINGLE_WORDS; j++) s = Math.imul(s ^ words[j]!, 0x01000193);
    all[i] = s;
  }
  // Sorted as 32-bit integers, natively (a sort calling a comparator was a third of this
  // function's time), each shingle once (what the Set of them held).
  all.subarray(0, n).sort();
  let kept = 0;
  for (let i = 0; i < n; i++) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i]!;
  return kept;
}
