// Turns a natural-language question into query words. Questions are full sentences ("What was
// the outcome of …"), so function words are dropped (they match nearly every article and only
// add noise and cost); an article matching any remaining word is a candidate and BM25 rewards
// articles matching more and rarer words. Operators typed by users (AND, NEAR, "*") are words.

import { STOPWORDS } from '../text/stopwords.ts';
import { AMPERSAND_WORD } from './tokenizer.ts';

/** A word joined by "&" ("q&a", ./tokenizer.ts), else a run of letters and digits. */
const QUERY_WORD = new RegExp(`${AMPERSAND_WORD.source}|[\\p{L}\\p{N}]+`, 'gu');

/**
 * Lowercased word tokens of the text (letters and digits, apostrophes split like unicode61 does),
 * a word joined by "&" kept whole ("Q&A" is "q&a", not the stop word "a" and the letter "q").
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(QUERY_WORD) ?? [];
}

/** Distinct content words of a question, in order of first appearance. */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const t of tokenize(text)) {
    if (STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    terms.push(t);
  }
  // A question made only of stopwords ("Who is he?") still searches for its words.
  if (!terms.length)
    for (const t of tokenize(text))
      if (!seen.has(t)) {
        seen.add(t);
        terms.push(t);
      }
  return terms;
}
