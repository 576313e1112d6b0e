// Splits an article's plain text (from htmlToText in ../feeds/sanitizer) into passages of a few whole sentences: the unit the index
// scores. Passages end at sentence boundaries (Intl.Segmenter, the ICU rules, handles "U.S." and
// quotes better than a regex) and, when possible, at paragraph ends.

export interface PassageSplitOptions {
  /** A passage is closed at the first sentence end past this many words… */
  minWords: number;
  /** …and never grows past this many unless one sentence alone is longer. */
  maxWords: number;
}

export const DEFAULT_PASSAGE_OPTIONS: PassageSplitOptions = { minWords: 60, maxWords: 120 };

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** What /\s/ matches (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Runs of non-space characters: the count of /\S+/g matches, by a character loop (the regex
 * version was ~10 % of index build time in a CPU profile).
 */
export function wordCount(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const space = isSpace(s.charCodeAt(i));
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** Sentences of a paragraph; a sentence longer than maxWords is cut into maxWords-word pieces. */
function sentences(paragraph: string, maxWords: number): { text: string; words: number }[] {
  const out: { text: string; words: number }[] = [];
  for (const seg of segmenter.segment(paragraph)) {
    const text = seg.segment.trim();
    if (!text) continue;
    const words = wordCount(text);
    if (words <= maxWords) { out.push({ text, words }); continue; }
    const parts = text.split(/\s+/);
    for (let i = 0; i < parts.length; i += maxWords) {
      const piece = parts.slice(i, i + maxWords);
      out.push({ text: piece.join(' '), words: piece.length });
    }
  }
  return out;
}

/** Passages of the text (paragraphs separated by line breaks), in reading order. */
export function splitPassages(text: string, opts: PassageSplitOptions = DEFAULT_PASSAGE_OPTIONS): string[] {
  const passages: string[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = () => {
    if (current.length) passages.push(current.join(' '));
    current = [];
    words = 0;
  };
  for (const paragraph of text.split(/\n+/)) {
    for (const s of sentences(paragraph, opts.maxWords)) {
      if (words > 0 && words + s.words > opts.maxWords) flush();
      current.push(s.text);
      words += s.words;
      if (words >= opts.maxWords) flush();
    }
    // A paragraph end is a good place to stop once the passage is long enough.
    if (words >= opts.minWords) flush();
  }
  // A short tail joins the previous passage when that stays within bounds, else stands alone.
  if (current.length && passages.length && words < opts.minWords / 2 &&
      wordCount(passages[passages.length - 1]!) + words <= opts.maxWords * 1.25) {
    passages[passages.length - 1] += ' ' + current.join(' ');
    current = [];
  }
  flush();
  return passages;
}
