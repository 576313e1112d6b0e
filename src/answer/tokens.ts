// Token counting for usage and max_tokens when the engine (extractive, or an upstream that does not
// report usage) gives no counts: o200k_base, the encoding of current OpenAI models, a fair stand-in
// for "tokens" in usage and prices. The vocabulary and split pattern come from gpt-tokenizer (pure
// JS, no download); the byte-pair merge is ours, for two reasons (issues 25.1 and 26.4):
//
// - gpt-tokenizer 4.0.0's merge rescans the whole piece for the lowest-ranked pair at each merge,
//   so it is quadratic in the length of one regex piece. The o200k pattern bounds digit runs but
//   not runs of letters, punctuation or whitespace: 80,000 'M' froze the server for 44 s, and an
//   article with a 120,000-character run froze it on every chat question citing it. The same bug
//   is reported for tiktoken (#195; per its PR #551 the Rust core now merges pieces of 100+ bytes
//   with a heap), js-tiktoken (PRs #101, #156, open) and ai-tokenizer (#6, open); gpt-tokenizer
//   4.0.0 has no fix (our report: docs/upstream/gpt-tokenizer-bpe.md). Here a piece of HEAP_FROM
//   bytes or more is merged with a min-heap keyed (rank, position), the same "lowest rank,
//   leftmost first" order as the scan, so the ids are the same (the tests compare with
//   gpt-tokenizer on the news corpus and on random and adversarial strings) and a piece of n
//   bytes costs O(n log n).
// - gpt-tokenizer's encoder builds a 200k-entry Map, a sorted binary table and a 100k-entry merge
//   cache that grows with the text counted. Here one Map from each token's bytes (a latin1 string)
//   to its rank, built on first use (an idle server never pays it: test/lazy-loading.test.ts);
//   bench/token-count.bench.ts measures both loads.
//
// Two differences from gpt-tokenizer, both towards tiktoken's reference ids: special-token text
// ("<|endoftext|>") is counted as ordinary text (gpt-tokenizer's countTokens threw on it, which
// made a chat message quoting it a server error), and U+FEFF is merged into its token 5574
// (gpt-tokenizer's TextDecoder strips a leading BOM when it looks the merged bytes up, so it never
// forms that token: 1 of the 5,386 news articles counts one token fewer here).
import { createRequire } from 'node:module';

interface Vocabulary {
  /** token bytes (one char per byte, latin1) -> rank */
  rank: Map<string, number>;
  /** rank -> token bytes (latin1) */
  bytes: string[];
}

/** The longest o200k token is 128 bytes: a longer span is never a token. */
export const MAX_TOKEN_BYTES = 128;
/** Below this many bytes the plain rescan is faster than the heap (measured: bench/tokens.bench.ts). */
const HEAP_FROM = 64;

let vocabulary: Vocabulary | undefined;
let splitPattern: RegExp | undefined;

function vocab(): Vocabulary {
  if (vocabulary) return vocabulary;
  const require = createRequire(import.meta.url);
  const path = require.resolve('gpt-tokenizer/cjs/bpeRanks/o200k_base');
  const raw = require(path) as { default: readonly (string | readonly number[] | undefined)[] };
  const ranks = raw.default;
  const rank = new Map<string, number>();
  const bytes: string[] = new Array(ranks.length);
  for (let r = 0; r < ranks.length; r++) {
    const v = ranks[r];
    if (v === undefined) continue;
    const b = typeof v === 'string' ? toBytes(v) : String.fromCharCode(...v);
    rank.set(b, r);
    bytes[r] = b;
  }
  // The raw table (strings and arrays) is no longer needed: let it be collected.
  delete require.cache[path];
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  splitPattern = new RegExp(constants.O200K_TOKEN_SPLIT_REGEX.source, 'gu');
  vocabulary = { rank, bytes };
  return vocabulary;
}

/** UTF-8 bytes of s as a latin1 string (one char per byte); ASCII is returned as is. */
function toBytes(s: string): string {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return Buffer.from(s, 'utf8').toString('latin1');
  }
  return s;
}

/** Calls onPiece with the UTF-8 bytes (latin1) of each piece of the o200k split pattern. */
function eachPiece(text: string, onPiece: (bytes: string) => void): void {
  vocab();
  const re = splitPattern as RegExp;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) onPiece(toBytes(m[0]));
}

/**
 * The byte-pair merge of one piece: the start offset of each resulting token, then piece.length.
 * Repeatedly merges the adjacent pair whose concatenation has the lowest rank, leftmost first.
 */
function merge(piece: string, rank: Map<string, number>): number[] {
  const n = piece.length;
  const pairRank = (a: number, b: number): number =>
    b - a > MAX_TOKEN_BYTES ? Infinity : (rank.get(piece.slice(a, b)) ?? Infinity);
  if (n < HEAP_FROM) {
    const starts: number[] = [];
    for (let i = 0; i <= n; i++) starts.push(i);
    const ranks: number[] = [];
    for (let i = 0; i + 2 <= n; i++) ranks.push(pairRank(i, i + 2));
    while (ranks.length > 0) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length; i++) {
        if (ranks[i] < best) {
          best = ranks[i];
          at = i;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      if (at < ranks.length) ranks[at] = pairRank(starts[at], starts[at + 2]);
      if (at > 0) ranks[at - 1] = pairRank(starts[at - 1], starts[at + 1]);
    }
    return starts;
  }
  // Parts as a linked list over byte offsets; a heap of (rank, offset) candidates packed in one
  // double (rank < 2^21, offset < 2^31). An entry is current while its part is alive and still
  // has that rank; stale entries are skipped when popped.
  const next = new Int32Array(n + 1);
  const prev = new Int32Array(n + 1);
  const current = new Float64Array(n + 1).fill(Infinity);
  const alive = new Uint8Array(n + 1).fill(1);
  for (let i = 0; i <= n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  const heap: number[] = [];
  const push = (key: number): void => {
    let i = heap.length;
    heap.push(key);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p] <= key) break;
      heap[i] = heap[p];
      i = p;
    }
    heap[i] = key;
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap.pop() as number;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) break;
        const c = l + 1 < heap.length && heap[l + 1] < heap[l] ? l + 1 : l;
        if (heap[c] >= last) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = last;
    }
    return top;
  };
  const SHIFT = 2 ** 31;
  // Every live part is a token: the rank of two adjacent parts' concatenation depends only on
  // their two ranks, so it is memoized by that pair. Long runs repeat a few pairs (a run of 'M' or
  // of spaces has a handful), which then cost no string slicing or hashing.
  const partRank = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) partRank[i] = rank.get(piece[i]) as number;
  const memo = new Map<number, number>();
  const rerank = (i: number): void => {
    const j = next[i];
    let r = Infinity;
    if (j < n) {
      const key = partRank[i] * 262_144 + partRank[j];
      const known = memo.get(key);
      if (known !== undefined) r = known;
      else {
        r = pairRank(i, next[j]);
        memo.set(key, r);
      }
    }
    current[i] = r;
    if (r !== Infinity) push(r * SHIFT + i);
  };
  for (let i = 0; i < n; i++) rerank(i);
  while (heap.length > 0) {
    const key = pop();
    const r = Math.floor(key / SHIFT);
    const i = key - r * SHIFT;
    if (!alive[i] || current[i] !== r) continue;
    const j = next[i];
    alive[j] = 0;
    partRank[i] = r;
    next[i] = next[j];
    prev[next[j]] = i;
    rerank(i);
    if (prev[i] >= 0) rerank(prev[i]);
  }
  const starts: number[] = [];
  for (let i = 0; i <= n; i = next[i]) starts.push(i);
  return starts;
}

export function countTokens(text: string): number {
  if (!text) return 0;
  const { rank } = vocab();
  let count = 0;
  eachPiece(text, (piece) => {
    count += rank.has(piece) ? 1 : merge(piece, rank).length - 1;
  });
  return count;
}

/** The o200k token ids of text. */
export function encodeTokens(text: string): number[] {
  const { rank } = vocab();
  const ids: number[] = [];
  eachPiece(text, (piece) => {
    const whole = rank.get(piece);
    if (whole !== undefined) {
      ids.push(whole);
      return;
    }
    const starts = merge(piece, rank);
    for (let k = 0; k + 1 < starts.length; k++) ids.push(rank.get(piece.slice(starts[k], starts[k + 1])) as number);
  });
  return ids;
}

/** The longest prefix of text that fits in maxTokens tokens (whole tokens). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  // Every token is at least one UTF-8 byte.
  if (Buffer.byteLength(text) <= maxTokens) return text;
  const ids = encodeTokens(text);
  if (ids.length <= maxTokens) return text;
  const { bytes } = vocab();
  let out = '';
  for (let k = 0; k < maxTokens; k++) out += bytes[ids[k]];
  // A cut inside a character drops its incomplete bytes, as gpt-tokenizer's decode did.
  return new TextDecoder('utf-8').decode(Buffer.from(out, 'latin1'), { stream: true });
}
