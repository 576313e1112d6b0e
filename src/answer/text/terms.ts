// Word-level text helpers shared by the extractive engine, query rewriting and related questions:
// tokenizing into comparable terms (lower-cased, lightly stemmed, stopwords dropped) and naming
// entities (capitalized phrases). Kept dependency-free and fast: they run on every candidate
// sentence of every answer.

import { STOPWORDS } from '../../text/stopwords.ts';

/**
 * Whether each BMP code unit is a letter or a number (\p{L}, \p{N}): 1 yes, 2 no, 0 not looked up
 * yet. ASCII is filled here, other characters on first sight (a regex test per distinct character).
 */
const LETTER_OR_NUMBER = new Uint8Array(65_536);
for (let c = 0; c < 128; c++)
  LETTER_OR_NUMBER[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 2;
const IS_LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;

/** Code units of the letter or number at s[i] (c = its code unit): 0 if none, 2 for an astral one. */
function letterOrNumberAt(s: string, i: number, c: number): number {
  if (c < 0xd800 || c > 0xdfff) {
    let k = LETTER_OR_NUMBER[c]!;
    if (k === 0) LETTER_OR_NUMBER[c] = k = IS_LETTER_OR_NUMBER.test(String.fromCharCode(c)) ? 1 : 2;
    return k === 1 ? 1 : 0;
  }
  // A surrogate: a letter of another plane ("𝐀") is one code point of two units; a lone one is none.
  const cp = s.codePointAt(i)!;
  return cp > 0xffff && IS_LETTER_OR_NUMBER.test(String.fromCodePoint(cp)) ? 2 : 0;
}

/** What follows the first part of a word joined by "&", and that part (with the character before it). */
const AMPERSAND_TAIL = /&\p{L}{1,3}(?![\p{L}\p{N}&'’-])/uy;
const AMPERSAND_HEAD = /(?:^|[^\p{L}\p{N}&'’-])\p{L}{1,3}$/u;

/**
 * Lower-cased words in text order, punctuation dropped (apostrophes and inner hyphens kept): the
 * matches of the Unicode regex [\p{L}\p{N}][\p{L}\p{N}'’\-]* in the lower-cased text, curly apostrophes made
 * straight and a final "'s" cut. Read in one pass over the characters with a table of which are
 * letters: the regex (and its match array, rewritten in place) was 3-4 % of a chat answer's CPU,
 * as every source text is split into words two or three times per answer (issue 26.4).
 */
export function words(text: string): string[] {
  const s = text.toLowerCase();
  // Not a literal: V8 pretenured the literal's allocation site (a sentence's words live until the
  // plan is made), and each young word string in those old arrays outlived every scavenge.
  // biome-ignore lint/style/useArrayLiterals: an array literal has an allocation site V8 pretenures.
  const out: string[] = new Array<string>();
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    const first = c < 128 ? (LETTER_OR_NUMBER[c] === 1 ? 1 : 0) : letterOrNumberAt(s, i, c);
    if (!first) {
      i++;
      continue;
    }
    const start = i;
    i += first;
    let curly = false;
    while (i < n) {
      const d = s.charCodeAt(i);
      if (d < 128) {
        // letters, digits, ' and -
        if (LETTER_OR_NUMBER[d] === 1 || d === 39 || d === 45) i++;
        else break;
      } else if (d === 0x2019) {
        curly = true;
        i++;
      } else {
        const k = letterOrNumberAt(s, i, d);
        if (!k) break;
        i += k;
      }
    }
    // "q&a", "r&d", "at&t": one word, as a query keeps it (../../search/tokenizer.ts, AMPERSAND_WORD).
    if (i < n && s.charCodeAt(i) === 38 && i - start <= 6) {
      AMPERSAND_TAIL.lastIndex = i;
      if (AMPERSAND_TAIL.test(s) && AMPERSAND_HEAD.test(s.slice(Math.max(0, start - 1), i)))
        i = AMPERSAND_TAIL.lastIndex;
    }
    let w = s.slice(start, i);
    if (curly) w = w.replace(/’/g, "'");
    if (w.endsWith("'s")) w = w.slice(0, -2);
    out.push(w);
  }
  return out;
}

/** /\d/.test(w) without a regex call (stem runs on every word of every source of an answer). */
function hasDigit(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/**
 * A light suffix stripper (plural, -ing, -ed, -ly): enough for "announces"/"announced"/"announcing"
 * to meet, without the over-stemming of a full Porter stemmer on names.
 */
export function stem(w: string): string {
  if (w.length <= 3 || hasDigit(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith('ly') && w.length > 5) w = w.slice(0, -2);
  else if (w.endsWith('es') && w.length > 4 && /(sh|ch|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  // "announce" and "announced" both end up as "announc".
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/** Topic terms of a text: words minus stopwords and one-letter tokens, stemmed. */
export function terms(text: string): string[] {
  return termsOfWords(words(text));
}

/** A word's term: its stem, or null for a stop word or a single character (what terms() drops). */
export function termOfWord(w: string): string | null {
  return w.length < 2 || STOPWORDS.has(w) ? null : stem(w);
}

/** terms() of a text whose words() are at hand (each candidate sentence's are: split once). */
export function termsOfWords(textWords: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of textWords) {
    const t = termOfWord(w);
    if (t !== null) out.push(t);
  }
  return out;
}

/** Unique topic words of a text in first-seen order, unstemmed (for building search queries). */
export function keywords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || STOPWORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

// \p{M}: a name written with combining accents ("Orba\u0301n") is not cut at its accent.
const ENTITY =
  /\b(?:[A-Z][\p{L}\p{M}\p{N}'’.&-]*|[A-Z]{2,})(?:\s+(?:of|the|de|for|&)?\s*(?:[A-Z][\p{L}\p{M}\p{N}'’.&-]*|[A-Z]{2,}|\d+))*/gu;
const ENTITY_SKIP = new Set([
  'The',
  'A',
  'An',
  'What',
  'Who',
  'When',
  'Where',
  'Why',
  'How',
  'Which',
  'Did',
  'Does',
  'Do',
  'Is',
  'Are',
  'Was',
  'Were',
  'Will',
  'Can',
  'Could',
  'Should',
  'Would',
  'In',
  'On',
  'At',
  'For',
  'And',
  'But',
  'Or',
  'If',
  'It',
  'This',
  'That',
  'These',
  'Those',
  'He',
  'She',
  'They',
  'We',
  'I',
  'You',
  'Mr',
  'Ms',
  'Mrs',
  'Dr',
  'After',
  'Before',
  'As',
  'By',
  'From',
  'With',
  'Tell',
  'Give',
  'Show',
  'Explain',
  'Summarize',
  'List',
  'Has',
  'Have',
  'Had',
  'According',
  'Meanwhile',
  'However',
  'Also',
  'Some',
  'Many',
  'Though',
  'Although',
  'Amid',
  'Following',
  'During',
  'Since',
  'Until',
  'While',
  'When',
  'Under',
  'Over',
  'Despite',
  'Across',
  'Unlike',
  'Like',
  'Among',
  'Here',
  'There',
  'Now',
  'Then',
  'Still',
  'Even',
  'Only',
  'Just',
  'Not',
  'Both',
  'Each',
  'Every',
  'Other',
  'Another',
  'More',
  'Most',
  'Former',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'Today',
  'Yesterday',
  'Last',
  'Next',
  'Its',
]);

/**
 * Capitalized phrases ("Artemis II", "European Central Bank"), leading sentence words like "The"
 * or question words removed. A cheap named-entity guess: good enough to focus a search query.
 */
export function entities(text: string, opts: { strict?: boolean } = {}): string[] {
  // biome-ignore lint/style/useArrayLiterals: as in words(), V8 pretenured the literal.
  const out: string[] = new Array<string>();
  const seen = new Set<string>();
  for (const m of text.matchAll(ENTITY)) {
    let parts = m[0].trim().split(/\s+/);
    const before = parts.length;
    while (parts.length && ENTITY_SKIP.has(parts[0].replace(/[.'’]+$/, ''))) parts = parts.slice(1);
    // strict: a lone capitalized word opening a sentence or title ("Diabetes: …", "Here's …") is
    // usually just capitalized because it comes first, not a name.
    const initial =
      m.index === 0 || /[.!?:]\s*["“‘(]?\s*$|^\s*["“‘(]\s*$/.test(text.slice(Math.max(0, m.index - 3), m.index));
    if (opts.strict && parts.length === 1 && before === 1 && initial && !/^[A-Z]{2,}$/.test(parts[0])) continue;
    while (
      parts.length &&
      (/^(of|the|de|for|and|&)$/i.test(parts[parts.length - 1]) || ENTITY_SKIP.has(parts[parts.length - 1]))
    )
      parts = parts.slice(0, -1);
    const phrase = parts
      .join(' ')
      .replace(/[.,'’]+$/, '')
      .replace(/['’]s$/, '');
    if (phrase.length < 2 || /^\d+$/.test(phrase)) continue;
    const key = phrase.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(phrase);
  }
  return out;
}
