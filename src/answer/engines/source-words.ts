// The words of each source, split once per answer: the question's terms no source has (planAnswer)
// and the phrases other sources repeat (extractive-score.ts) both read every source's headline
// and texts, which were split into words once for each (issue 26.4).
import type { GroundingSource } from './engine.ts';
import { words } from '../text/terms.ts';

interface Split {
  title: string;
  texts: string[];
  /** words() of the headline, then of each text */
  parts: string[][];
  /** the parts' words in one list */
  all?: string[];
}

// Keyed by the source; its headline and texts are checked, so a source given other texts is split again.
const splits = new WeakMap<GroundingSource, Split>();

function splitOf(source: GroundingSource): Split {
  let s = splits.get(source);
  if (!s || s.title !== source.hit.title || s.texts !== source.texts) {
    s = { title: source.hit.title, texts: source.texts, parts: [words(source.hit.title), ...source.texts.map(words)] };
    splits.set(source, s);
  }
  return s;
}

/**
 * words() of the headline, then of each text (the same parts as [hit.title, ...texts]). No word
 * holds a space, so these are the words of the headline and texts joined by spaces, split at the joins.
 */
export function sourceWordParts(source: GroundingSource): readonly (readonly string[])[] {
  return splitOf(source).parts;
}

/** words(`${hit.title} ${texts.join(' ')}`), split once per source. */
export function sourceWords(source: GroundingSource): readonly string[] {
  const s = splitOf(source);
  return (s.all ??= s.parts.flat());
}
