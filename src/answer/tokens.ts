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
// - gpt-tokenizer's encoder compiles a 2.4 MB JavaScript table, then builds a 200k-entry Map, a
//   sorted binary table and a merge cache that grows with the text counted: 0.2-2 s on the first
//   answer, holding every request. Here flat arrays and a hash table over the tokens' bytes (see
//   Vocabulary), read from the package's o200k_base.tiktoken data file; `tidings serve` reads it before
//   it listens (warmTokenizer), other processes on first use.
//   bench/token-count.bench.ts measures both loads.
//
// Two differences from gpt-tokenizer, both towards tiktoken's reference ids: special-token text
// ("<|endoftext|>") is counted as ordinary text (gpt-tokenizer's countTokens threw "Disallowed
// special token found", failing any request whose text it counted), and U+FEFF is merged into its token 5574
// (gpt-tokenizer's TextDecoder strips a leading BOM when it looks the merged bytes up, so it never
// forms that token: 1 of the 5,386 news articles counts one token fewer here).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * The o200k vocabulary in flat arrays, about 4.5 MB: the tokens' bytes concatenated into one latin1
 * string (`blob`, in rank order), each rank's offset and length in it, and an open-addressing hash
 * table from a span's bytes to rank + 1. A Map from 200k token strings to their ranks (and those
 * strings, each a heap object) held 15 MB of the idle server's heap (issue 26.4); the table also
 * looks up a span of a piece without slicing it into a new string.
 */
interface Vocabulary {
  blob: string;
  start: Int32Array;
  length: Uint8Array;
  /** hash slot -> rank + 1 (0: empty); its size is a power of two, under half full */
  table: Int32Array;
  size: number;
}

/** Vocabulary being read: the table is filled as lines arrive, the blob joined at the end. */
interface VocabularyBuilder {
  parts: string[];
  start: Int32Array;
  length: Uint8Array;
  table: Int32Array;
  at: number;
  size: number;
}

/** The longest o200k token is 128 bytes: a longer span is never a token. */
export const MAX_TOKEN_BYTES = 128;
/**
 * Pieces shorter than this use the plain rescan: ordinary text's pieces are a few bytes, where a
 * heap's set-up costs more than the quadratic scan; long runs take the heap.
 */
const HEAP_FROM = 64;
/** o200k_base has 199,998 ranks; room for a few more keeps a newer file readable. */
const MAX_RANKS = 1 << 18;
const TABLE_BITS = 19;
const TABLE_MASK = (1 << TABLE_BITS) - 1;

let vocabulary: Vocabulary | undefined;
let splitPattern: RegExp | undefined;
/** The same pattern, sticky: matched in place at a position, without a match array (countPieces). */
let stickyPattern: RegExp | undefined;

// The vocabulary as tiktoken publishes it (one "base64-of-the-token-bytes rank" line per token),
// shipped in gpt-tokenizer's data/: read as data, not compiled as a 2.4 MB JavaScript module.
const require = createRequire(import.meta.url);
const VOCABULARY_FILE = require.resolve('gpt-tokenizer/data/o200k_base.tiktoken');
/** Lines parsed between yields when the vocabulary is loaded in the background. */
const LINES_PER_SLICE = 2_500;

/** FNV-1a over the chars (bytes) s[from, to). */
function hashSpan(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function emptyVocabulary(): VocabularyBuilder {
  return {
    parts: [],
    start: new Int32Array(MAX_RANKS).fill(-1),
    length: new Uint8Array(MAX_RANKS),
    table: new Int32Array(1 << TABLE_BITS),
    at: 0,
    size: 0,
  };
}

/** Adds lines [from, from + lines) of the vocabulary file to v; returns where the next line starts. */
function addLines(v: VocabularyBuilder, text: string, from: number, lines: number): number {
  let at = from;
  for (let n = 0; n < lines && at < text.length; n++) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const space = text.indexOf(' ', at);
    if (space > at && space < end) {
      const bytes = atob(text.slice(at, space));
      const r = Number(text.slice(space + 1, end));
      if (!(r >= 0 && r < MAX_RANKS) || bytes.length > MAX_TOKEN_BYTES || v.start[r] >= 0)
        throw new Error(`${VOCABULARY_FILE}: line "${text.slice(at, end)}" is not a new rank below ${MAX_RANKS}`);
      v.parts.push(bytes);
      v.start[r] = v.at;
      v.length[r] = bytes.length;
      v.at += bytes.length;
      // The file's tokens are distinct: a slot is taken by the first empty one along the probe.
      let slot = hashSpan(bytes, 0, bytes.length) & TABLE_MASK;
      while (v.table[slot] !== 0) slot = (slot + 1) & TABLE_MASK;
      v.table[slot] = r + 1;
      v.size++;
    }
    at = end + 1;
  }
  return at;
}

function finish(v: VocabularyBuilder): Vocabulary {
  if (v.size < 199_000) throw new Error(`${VOCABULARY_FILE}: expected the o200k vocabulary, read ${v.size} tokens`);
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  splitPattern = new RegExp(constants.O200K_TOKEN_SPLIT_REGEX.source, 'gu');
  stickyPattern = new RegExp(constants.O200K_TOKEN_SPLIT_REGEX.source, 'yu');
  // One flat string: the parts (200k small strings) become garbage.
  const blob = v.parts.join('');
  blob.charCodeAt(0);
  vocabulary = { blob, start: v.start, length: v.length, table: v.table, size: v.size };
  return vocabulary;
}

function vocab(): Vocabulary {
  if (vocabulary) return vocabulary;
  const v = emptyVocabulary();
  addLines(v, readFileSync(VOCABULARY_FILE, 'latin1'), 0, Infinity);
  return finish(v);
}

/** The rank of the token whose bytes are s[from, to), or -1. */
function rankOf(v: Vocabulary, s: string, from: number, to: number): number {
  const n = to - from;
  if (n > MAX_TOKEN_BYTES || n <= 0) return -1;
  return rankOfHashed(v, s, from, to, hashSpan(s, from, to));
}

/** rankOf with the span's hashSpan given (0 < to - from <= MAX_TOKEN_BYTES). */
function rankOfHashed(v: Vocabulary, s: string, from: number, to: number, hash: number): number {
  const n = to - from;
  const { blob, start, length, table } = v;
  for (let slot = hash & TABLE_MASK; ; slot = (slot + 1) & TABLE_MASK) {
    const r = table[slot] - 1;
    if (r < 0) return -1;
    if (length[r] !== n) continue;
    const at = start[r];
    let k = 0;
    while (k < n && blob.charCodeAt(at + k) === s.charCodeAt(from + k)) k++;
    if (k === n) return r;
  }
}

let warming: Promise<void> | undefined;

/**
 * Loads the vocabulary in slices that yield to other work (2,500 tokens, a few ms each). `tidings
 * serve` awaits it before listening: loading it on the first answer held every request of the
 * process for 0.3-2 s (issue 26.4). A count needed before it is done loads it at once.
 */
export function warmTokenizer(): Promise<void> {
  warming ??= (async () => {
    if (vocabulary) return;
    const text = await readFile(VOCABULARY_FILE, 'latin1');
    const v = emptyVocabulary();
    for (let at = 0; at < text.length; ) {
      if (vocabulary) return;
      at = addLines(v, text, at, LINES_PER_SLICE);
      await new Promise((r) => setImmediate(r));
    }
    if (!vocabulary) finish(v);
  })();
  return warming;
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
function merge(piece: string, v: Vocabulary): number[] {
  const n = piece.length;
  const pairRank = (a: number, b: number): number => {
    const r = rankOf(v, piece, a, b);
    return r < 0 ? Infinity : r;
  };
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
  for (let i = 0; i < n; i++) partRank[i] = rankOf(v, piece, i, i + 1);
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

/** Texts this long are remembered with their count: one request counts its question 2-3 times. */
const REMEMBER_FROM_CHARS = 16 * 1024;
const REMEMBER_UP_TO_CHARS = 1024 * 1024;
const remembered = new Map<string, number>();

export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length >= REMEMBER_FROM_CHARS && text.length <= REMEMBER_UP_TO_CHARS) {
    const known = remembered.get(text);
    if (known !== undefined) return known;
    const n = countPieces(text);
    if (remembered.size >= 4) remembered.delete(remembered.keys().next().value as string);
    remembered.set(text, n);
    return n;
  }
  return countPieces(text);
}

function countPieces(text: string): number {
  const v = vocab();
  let count = 0;
  // Each piece is matched where the last one ended and, when ASCII (most pieces, even of text with
  // curly quotes), looked up in place, with no match array or piece string (these were a chat
  // answer's largest share of garbage from counting); only a piece with other characters is
  // converted to its UTF-8 bytes. The split pattern matches every character, so the pieces tile
  // the text; should a position not match, the rest takes the general path.
  // The common ASCII pieces (" word", "Word", "123", ", ") are found by asciiPieceEnd without the
  // pattern (its test at each piece was a third of counting).
  const re = stickyPattern as RegExp;
  let at = 0;
  while (at < text.length) {
    let end = asciiPieceEnd(text, at);
    let ascii = end > at;
    if (!ascii) {
      re.lastIndex = at;
      if (!re.test(text) || re.lastIndex <= at) return count + countEachPiece(v, text.slice(at));
      end = re.lastIndex;
      ascii = true;
      for (let i = at; i < end; i++) {
        if (text.charCodeAt(i) > 0x7f) {
          ascii = false;
          break;
        }
      }
    }
    if (ascii) count += pieceCount(v, text, at, end);
    else {
      const piece = toBytes(text.slice(at, end));
      count += pieceCount(v, piece, 0, piece.length);
    }
    at = end;
  }
  return count;
}

// ASCII classes of the o200k split pattern's characters.
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isDigit = (c: number) => c >= 48 && c <= 57;
/** [^\s\p{L}\p{N}] among ASCII characters. */
const isMark = (c: number) => c >= 0 && c < 128 && c !== 32 && (c < 9 || c > 13) && !isLetter(c) && !isDigit(c);

/**
 * Where the split pattern's piece starting at `at` ends, for the pieces of ASCII text whose end
 * the next character settles; -1 for any other (the pattern decides). The pattern's alternatives in
 * order: [^\r\n\p{L}\p{N}]?, upper-case letters, then lower-case ones (at least one letter), then
 * a contraction ('s, 't, …); \p{N}{1,3}; " "?, a run of [^\s\p{L}\p{N}], then [\r\n/]*; then
 * white-space runs. An ASCII character never belongs to \p{Lt}, \p{Lm}, \p{Lo} or \p{M}, so an
 * ASCII letter run ends where the ASCII letters do, unless a non-ASCII character or an apostrophe
 * (a contraction) follows: those, line breaks, runs of white space and non-ASCII text go to the pattern.
 */
function asciiPieceEnd(text: string, at: number): number {
  const n = text.length;
  const c = text.charCodeAt(at);
  if (isLetter(c)) return letterRunEnd(text, at);
  if (isDigit(c)) {
    let j = at + 1;
    while (j < n && j - at < 3 && isDigit(text.charCodeAt(j))) j++;
    // Fewer than three digits, then a character that may be a number of another script (\p{N}).
    return j - at < 3 && j < n && text.charCodeAt(j) > 0x7f ? -1 : j;
  }
  if (c > 0x7f || c === 10 || c === 13) return -1;
  // c may open a letter piece ([^\r\n\p{L}\p{N}]): a space, a tab, a mark.
  const d = at + 1 < n ? text.charCodeAt(at + 1) : -1;
  if (isLetter(d)) return letterRunEnd(text, at + 1);
  if (d > 0x7f) return -1;
  if (c === 32) {
    // " 1": the space alone (\s+, as (?!\S) fails); " ,": the space opens a run of marks.
    if (isDigit(d)) return at + 1;
    if (!isMark(d)) return -1;
    return markRunEnd(text, at + 1);
  }
  return isMark(c) ? markRunEnd(text, at) : -1;
}

/** The end of upper-case then lower-case ASCII letters from `at` (at least one), or -1 when a character after them could extend the piece. */
function letterRunEnd(text: string, at: number): number {
  const n = text.length;
  let j = at;
  while (j < n && text.charCodeAt(j) >= 65 && text.charCodeAt(j) <= 90) j++;
  while (j < n && text.charCodeAt(j) >= 97 && text.charCodeAt(j) <= 122) j++;
  if (j === at) return -1;
  if (j < n) {
    const e = text.charCodeAt(j);
    if (e > 0x7f || e === 39) return -1;
  }
  return j;
}

/** The end of a run of ASCII marks from `at`, then of line breaks and slashes; -1 when a non-ASCII character could extend the run. */
function markRunEnd(text: string, at: number): number {
  const n = text.length;
  let j = at;
  while (j < n && isMark(text.charCodeAt(j))) j++;
  if (j < n && text.charCodeAt(j) > 0x7f) return -1;
  for (let e = j < n ? text.charCodeAt(j) : -1; e === 10 || e === 13 || e === 47; e = j < n ? text.charCodeAt(j) : -1)
    j++;
  return j;
}

function countEachPiece(v: Vocabulary, text: string): number {
  let count = 0;
  eachPiece(text, (piece) => {
    count += pieceCount(v, piece, 0, piece.length);
  });
  return count;
}

/**
 * Token counts of the pieces the vocabulary lacks as one token (names, rare words, numbers), by
 * their bytes: the same pieces come back answer after answer (two thirds of the merged pieces of
 * the 680 news questions at 100k items had been merged before, 0.27 MB of distinct pieces), and
 * merging was the largest part of counting. A count depends on the piece's bytes only, so a held
 * count is never stale. Bounded in entries and in piece length; the oldest entry leaves first.
 *
 * The held pieces are found by the hash the vocabulary lookup made of the span, in an
 * open-addressing table (linear probing, under half full), and compared in place: a Map keyed by
 * the piece's string needed the piece cut out of the text and hashed again for every lookup (a
 * quarter of counting an answer's sources).
 */
export const MERGED_PIECES_HELD = 16_384;
const MERGED_PIECE_MAX_BYTES = 64;
const HELD_SLOT_BITS = 15;
const HELD_SLOT_MASK = (1 << HELD_SLOT_BITS) - 1;
/** slot -> entry + 1 (0: empty) */
const heldSlots = new Int32Array(1 << HELD_SLOT_BITS);
/** Entries in a ring: the piece (latin1 bytes), its hash and its count; `heldNext` is the oldest when full. */
const heldPieces: string[] = [];
const heldHashes = new Int32Array(MERGED_PIECES_HELD);
const heldCounts = new Int32Array(MERGED_PIECES_HELD);
let heldNext = 0;
let mergesMade = 0;

/** The number of tokens of the piece s[from, to). */
function pieceCount(v: Vocabulary, s: string, from: number, to: number): number {
  const n = to - from;
  if (n > MAX_TOKEN_BYTES) return merge(s.slice(from, to), v).length - 1;
  const h = hashSpan(s, from, to);
  if (rankOfHashed(v, s, from, to, h) >= 0) return 1;
  if (n > MERGED_PIECE_MAX_BYTES) return merge(s.slice(from, to), v).length - 1;
  for (let slot = h & HELD_SLOT_MASK; ; slot = (slot + 1) & HELD_SLOT_MASK) {
    const e = heldSlots[slot]! - 1;
    if (e < 0) break;
    if (heldHashes[e] !== h) continue;
    const held = heldPieces[e]!;
    if (held.length !== n) continue;
    let k = 0;
    while (k < n && held.charCodeAt(k) === s.charCodeAt(from + k)) k++;
    if (k === n) return heldCounts[e]!;
  }
  const count = mergedCountAt(v, s, from, to);
  mergesMade++;
  hold(s.slice(from, to), h, count);
  return count;
}

function hold(piece: string, h: number, count: number): void {
  const e = heldNext;
  if (heldPieces.length === MERGED_PIECES_HELD) unslot(e);
  heldPieces[e] = piece;
  heldHashes[e] = h;
  heldCounts[e] = count;
  let slot = h & HELD_SLOT_MASK;
  while (heldSlots[slot] !== 0) slot = (slot + 1) & HELD_SLOT_MASK;
  heldSlots[slot] = e + 1;
  heldNext = (e + 1) % MERGED_PIECES_HELD;
}

/** Takes entry e out of the slots, moving later entries of its probe run back (no tombstones). */
function unslot(e: number): void {
  let i = heldHashes[e]! & HELD_SLOT_MASK;
  while (heldSlots[i] !== e + 1) i = (i + 1) & HELD_SLOT_MASK;
  for (let j = i; ; ) {
    j = (j + 1) & HELD_SLOT_MASK;
    const f = heldSlots[j]! - 1;
    if (f < 0) break;
    const home = heldHashes[f]! & HELD_SLOT_MASK;
    // f stays if its home slot lies cyclically in (i, j]; else it moves back into the hole.
    if (i <= j ? home > i && home <= j : home > i || home <= j) continue;
    heldSlots[i] = f + 1;
    i = j;
  }
  heldSlots[i] = 0;
}

const mergeStarts = new Int32Array(MERGED_PIECE_MAX_BYTES + 1);
const mergeRanks = new Int32Array(MERGED_PIECE_MAX_BYTES);
const NO_RANK = 0x7fffffff;

/**
 * merge(s.slice(from, to)).length - 1 for a piece of at most MERGED_PIECE_MAX_BYTES, in place: the
 * same rescan for the lowest-ranked pair, leftmost first, over scratch arrays instead of
 * spliced lists of a cut-out piece.
 */
function mergedCountAt(v: Vocabulary, s: string, from: number, to: number): number {
  const starts = mergeStarts;
  const ranks = mergeRanks;
  let parts = to - from;
  for (let i = 0; i <= parts; i++) starts[i] = from + i;
  let pairs = parts - 1;
  for (let i = 0; i < pairs; i++) {
    const r = rankOf(v, s, from + i, from + i + 2);
    ranks[i] = r < 0 ? NO_RANK : r;
  }
  while (pairs > 0) {
    let best = NO_RANK;
    let at = -1;
    for (let i = 0; i < pairs; i++) {
      if (ranks[i]! < best) {
        best = ranks[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, parts + 1);
    parts--;
    ranks.copyWithin(at, at + 1, pairs);
    pairs--;
    if (at < pairs) {
      const r = rankOf(v, s, starts[at]!, starts[at + 2]!);
      ranks[at] = r < 0 ? NO_RANK : r;
    }
    if (at > 0) {
      const r = rankOf(v, s, starts[at - 1]!, starts[at + 1]!);
      ranks[at - 1] = r < 0 ? NO_RANK : r;
    }
  }
  return parts;
}

/** How many merged pieces' counts are held (for tests of the bound). */
export function mergedPiecesHeld(): number {
  return heldPieces.length;
}

/**
 * For tests: the held pieces' table slots in use (one per held piece, or eviction leaks), and how
 * many short pieces were merged since the process started (each one a lookup that missed).
 */
export function mergedPieceStats(): { slots: number; merged: number } {
  let slots = 0;
  for (const e of heldSlots) if (e !== 0) slots++;
  return { slots, merged: mergesMade };
}

/** The o200k token ids of text. */
export function encodeTokens(text: string): number[] {
  const v = vocab();
  const ids: number[] = [];
  eachPiece(text, (piece) => {
    const whole = rankOf(v, piece, 0, piece.length);
    if (whole >= 0) {
      ids.push(whole);
      return;
    }
    const starts = merge(piece, v);
    for (let k = 0; k + 1 < starts.length; k++) ids.push(rankOf(v, piece, starts[k], starts[k + 1]));
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
  const { blob, start, length } = vocab();
  let out = '';
  for (let k = 0; k < maxTokens; k++) out += blob.slice(start[ids[k]], start[ids[k]] + length[ids[k]]);
  // A cut inside a character drops its incomplete bytes, as gpt-tokenizer's decode did.
  return new TextDecoder('utf-8').decode(Buffer.from(out, 'latin1'), { stream: true });
}
