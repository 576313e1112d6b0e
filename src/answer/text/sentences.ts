// Sentence splitting with the platform's Unicode segmenter (Intl.Segmenter, ICU rules: handles
// "Dr.", "U.S." and quotes better than a regex, and ships with Node, so no dependency).

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

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
    for (const s of segmenter.segment(p)) {
      const t = s.segment.replace(/\s+/g, ' ').trim();
      if (t.length < MIN_CHARS || t.length > MAX_CHARS) continue;
      if (!/[.!?…"”’)]$/.test(t)) continue;
      out.push(t);
    }
  }
  return out;
}
