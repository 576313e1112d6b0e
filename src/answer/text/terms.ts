// Word-level text helpers shared by the extractive engine, query rewriting and related questions:
// tokenizing into comparable terms (lower-cased, lightly stemmed, stopwords dropped) and naming
// entities (capitalized phrases). Kept dependency-free and fast: they run on every candidate
// sentence of every answer.

import { STOPWORDS } from '../../text/stopwords.ts';

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’\-]*/gu;

/** Lower-cased words in text order, punctuation dropped (apostrophes and inner hyphens kept). */
export function words(text: string): string[] {
  const out = text.toLowerCase().match(WORD);
  if (!out) return [];
  // In place, and a replace only where there is something to replace: two regex replaces on every
  // word of every candidate sentence were 2 % of a chat answer's CPU.
  for (let i = 0; i < out.length; i++) {
    let w = out[i]!;
    if (w.includes('’')) w = w.replace(/’/g, "'");
    if (w.endsWith("'s")) w = w.slice(0, -2);
    out[i] = w;
  }
  return out;
}

/**
 * A light suffix stripper (plural, -ing, -ed, -ly): enough for "announces"/"announced"/"announcing"
 * to meet, without the over-stemming of a full Porter stemmer on names.
 */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
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

/** terms() of a text whose words() are at hand (each candidate sentence's are: split once). */
export function termsOfWords(textWords: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of textWords) {
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.push(stem(w));
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
  const out: string[] = [];
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
