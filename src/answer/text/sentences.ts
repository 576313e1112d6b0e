// Sentence splitting with the platform's Unicode segmenter (Intl.Segmenter, ICU rules: handles
// "Dr.", "U.S." and quotes better than a regex, and ships with Node, so no dependency).

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Boundaries ICU misses when a sentence is followed by a quote or a number ("… he said. '1917'
 * wins …"): a full stop after a lower-case word of three or more letters (so not "Dr." or "U.S.")
 * followed by a capital, digit or opening quote.
 */
const MISSED_BOUNDARY = /(?<=\b\p{Ll}{3,}[.!?]["”’]?)\s+(?=["“‘']?[\p{Lu}\d])/u;

/** Pieces ending like this end with an abbreviation, not a sentence ("U.S.", "Dr.", "Sept."). */
const ABBREVIATION_END = /(?:^|[\s(])(?:(?:\p{Lu}\.){1,3}|(?:Mr|Mrs|Ms|Dr|St|Sen|Rep|Gov|Gen|Lt|Col|Sgt|Jr|Sr|Inc|Corp|Co|Ltd|No|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|vs|etc|Mt|Ft|Prof|Rev)\.)\s*$/u;

/** ICU (without its suppression data) breaks after "U.S." or "Dr.": join such pieces back. */
function mergeAbbreviations(pieces: string[]): string[] {
  const out: string[] = [];
  for (const p of pieces) {
    if (out.length && ABBREVIATION_END.test(out[out.length - 1])) out[out.length - 1] += p;
    else out.push(p);
  }
  return out;
}

const MIN_CHARS = 25;
const MAX_CHARS = 600;

/**
 * Sentences of a plain text, trimmed, in order. Fragments that cannot stand alone as a quoted
 * answer sentence (very short ones, headings without a verb-ending punctuation, over-long run-ons)
 * are dropped.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n+/)) {
    const p = para.trim();
    if (!p) continue;
    for (const piece of mergeAbbreviations([...segmenter.segment(p)].map((x) => x.segment)).flatMap((x) => x.split(MISSED_BOUNDARY))) {
      const t = piece.replace(/\s+/g, ' ').trim();
      if (t.length < MIN_CHARS || t.length > MAX_CHARS) continue;
      if (!/[.!?…"”’)]$/.test(t)) continue;
      if (isBoilerplate(t)) continue;
      out.push(t);
    }
  }
  return out;
}

/** Link teasers ("More: …", "READ: …") and runs of headlines glued together by the page layout. */
const TEASER = /^(more|read|read more|related|also read|see also|watch|listen|subscribe|sign up|contact|follow|click|photos?|video|advertisement)\s*[:|]/i;

export function isBoilerplate(sentence: string): boolean {
  if (TEASER.test(sentence)) return true;
  if (/\b(more|read|related)\s*:\S/i.test(sentence)) return true;
  // "Apollo 17:Last step … schedule: Upcoming …": teaser links glued into one line.
  if (/\w:\p{Lu}/u.test(sentence) || (sentence.match(/:\s/g)?.length ?? 0) >= 2) return true;
  const w = sentence.split(/\s+/).filter((x) => /^[\p{L}]/u.test(x));
  if (w.length >= 12) {
    const capitalized = w.filter((x) => /^\p{Lu}/u.test(x)).length;
    if (capitalized / w.length > 0.55) return true;
  }
  return false;
}
