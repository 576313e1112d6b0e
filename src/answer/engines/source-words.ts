// The words of each source, split once per answer: the question's terms no source has (planAnswer)
// and the phrases other sources repeat (extractive-score.ts) both read every source's headline
// and texts, which were split into words once for each (issue 26.4). planAnswer splits them and
// hands them on, so they live as long as the plan (no cache outlives an answer).
import type { GroundingSource } from './engine.ts';
import { words } from '../text/terms.ts';

export interface SourceWords {
  /** words() of the headline, then of each text (the parts of [hit.title, ...texts]) */
  parts: string[][];
  /**
   * The parts' words in one list: words(`${hit.title} ${texts.join(' ')}`), as no word holds a
   * space (the joins only separate words).
   */
  all: string[];
}

export function sourceWords(source: GroundingSource): SourceWords {
  const parts = [words(source.hit.title), ...source.texts.map(words)];
  return { parts, all: parts.flat() };
}
