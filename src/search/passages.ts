// Splits an article's plain text (from htmlToText in ../feeds/sanitizer) into passages of a few whole sentences: the unit the index
// scores. Passages end at sentence boundaries (the codebase's one splitter, ../text/sentences.ts)
// and, when possible, at paragraph ends. A passage keeps its paragraph breaks ("\n"): a dateline
// paragraph ("Updated … 2:04 p.m. ET") glued to the next one became a sentence "ET The Food and
// Drug Administration …" in answers. Page chrome paragraphs (../text/debris.ts) are left out.
import { segmentSentences } from '../text/sentences.ts';
import { isDebris } from '../text/debris.ts';
import { isWhiteSpace } from '../text/white-space.ts';

export interface PassageSplitOptions {
  /** A passage is closed at the first sentence end past this many words… */
  minWords: number;
  /** …and never grows past this many unless one sentence alone is longer. */
  maxWords: number;
}

export const DEFAULT_PASSAGE_OPTIONS: PassageSplitOptions = { minWords: 60, maxWords: 120 };

/**
 * Runs of non-space characters: the count of /\S+/g matches, by a character loop (the regex
 * version was ~10 % of index build time in a CPU profile).
 */
export function wordCount(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const space = isWhiteSpace(s.charCodeAt(i));
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** Sentences of a paragraph; a sentence longer than maxWords is cut into maxWords-word pieces. */
function sentences(paragraph: string, maxWords: number): { text: string; words: number }[] {
  const out: { text: string; words: number }[] = [];
  for (const text of segmentSentences(paragraph)) {
    const words = wordCount(text);
    if (words <= maxWords) {
      out.push({ text, words });
      continue;
    }
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
  // Sentences of the passage being built, each paragraph's joined by spaces, paragraphs by "\n".
  let current: string[][] = [];
  let words = 0;
  const joined = () => current.map((p) => p.join(' ')).join('\n');
  const flush = () => {
    if (current.length) passages.push(joined());
    current = [];
    words = 0;
  };
  for (const paragraph of text.split(/\n+/)) {
    if (isDebris(paragraph)) continue;
    let open = false;
    for (const s of sentences(paragraph, opts.maxWords)) {
      if (words > 0 && words + s.words > opts.maxWords) {
        flush();
        open = false;
      }
      if (!open) {
        current.push([]);
        open = true;
      }
      current[current.length - 1]!.push(s.text);
      words += s.words;
      if (words >= opts.maxWords) {
        flush();
        open = false;
      }
    }
    // A paragraph end is a good place to stop once the passage is long enough.
    if (words >= opts.minWords) flush();
  }
  // A short tail joins the previous passage when that stays within bounds, else stands alone.
  if (
    current.length &&
    passages.length &&
    words < opts.minWords / 2 &&
    wordCount(passages[passages.length - 1]!) + words <= opts.maxWords * 1.25
  ) {
    passages[passages.length - 1] += '\n' + joined();
    current = [];
  }
  flush();
  return passages;
}
