// Token counting for usage and max_tokens when the engine (extractive, or an upstream that does not
// report usage) gives no counts. gpt-tokenizer is pure JS, needs no download and is fast; o200k_base
// is the encoding of current OpenAI models, a fair stand-in for "tokens" in usage and prices.
import { encode, decode, countTokens as count } from 'gpt-tokenizer/encoding/o200k_base';

export function countTokens(text: string): number {
  // countTokens skips building the token array: ~25 % faster than encode().length.
  return text ? count(text) : 0;
}

/** The longest prefix of text that fits in maxTokens tokens (whole tokens). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const ids = encode(text);
  if (ids.length <= maxTokens) return text;
  return decode(ids.slice(0, maxTokens));
}
