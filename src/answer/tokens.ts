// Token counting for usage and max_tokens when the engine (extractive, or an upstream that does not
// report usage) gives no counts. gpt-tokenizer is pure JS, needs no download and is fast; o200k_base
// is the encoding of current OpenAI models, a fair stand-in for "tokens" in usage and prices.
//
// Loaded on first use, not at import: its tables cost ~74 MB of memory and ~0.4 s, paid by every
// process that imported the answer code (an idle server, a Reader-only server, each CLI command)
// although only answers count tokens. `require` of the package's CommonJS build keeps the calls
// synchronous.
import { createRequire } from 'node:module';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');
let encoding: Encoding | undefined;
const o200k = (): Encoding =>
  (encoding ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as Encoding);

export function countTokens(text: string): number {
  // countTokens skips building the token array: ~25 % faster than encode().length.
  return text ? o200k().countTokens(text) : 0;
}

/**
 * Counts of article passages, which recur from answer to answer (the same articles keep being
 * retrieved): an answer's prompt counts every passage of every source, and that BPE pass was 11 %
 * of a sonar answer's CPU in a profile (bench/chat.bench.ts); with these counts a sonar answer's p50
 * fell 4-6 % in three alternated runs of bench/answers-latency.ts (BENCHMARKS.md). Each entry is the text's count alone
 * and with a "\n" after it; bounded by clearing (the keys are the passage strings the caller
 * already holds).
 */
const partCounts = new Map<string, { alone?: number; beforeNewline?: number }>();
const PART_COUNTS_MAX = 20_000;

function partCount(text: string, beforeNewline: boolean): number {
  let e = partCounts.get(text);
  if (!e) {
    if (partCounts.size >= PART_COUNTS_MAX) partCounts.clear();
    partCounts.set(text, (e = {}));
  }
  return beforeNewline ? (e.beforeNewline ??= countTokens(text + '\n')) : (e.alone ??= countTokens(text));
}

/**
 * countTokens(parts.join('\n')), from per-part counts. o200k's pre-tokenizer never joins
 * characters across such a "\n" into one piece when the part after it is non-empty and starts with
 * neither whitespace nor "/" (the "\n" ends the piece before it: a punctuation run takes trailing
 * line breaks and slashes, a whitespace run takes line breaks; no piece starts with a line break
 * followed by anything else), so the count is the sum of each part with its "\n" plus the last
 * part alone. Any other join is counted whole. tokens.test.ts checks the equality on the news
 * corpus and on edge cases.
 */
export function countJoinedTokens(parts: readonly string[]): number {
  for (let i = 1; i < parts.length; i++) {
    if (!parts[i] || /^[\s/]/.test(parts[i]!)) return countTokens(parts.join('\n'));
  }
  let n = 0;
  for (let i = 0; i < parts.length; i++) n += partCount(parts[i]!, i < parts.length - 1);
  return n;
}

/** The longest prefix of text that fits in maxTokens tokens (whole tokens). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const { encode, decode } = o200k();
  const ids = encode(text);
  if (ids.length <= maxTokens) return text;
  return decode(ids.slice(0, maxTokens));
}
