// Dates in the extractive engine's answers. A quoted sentence from a dated source is introduced by
// its day ("On 14 January 2025, the death toll … rose to 19 people.[2]"), so that events of
// different years are never set side by side as if they were one story; the day is written once
// per run of sentences from the same day. When dated sources disagree on a figure, the answer
// opens with the newest and says when: "As of 14 January 2025, the newest report says 19 people;
// an earlier report, on 10 January 2025, said 12 people."
import { STOPWORDS } from '../../text/stopwords.ts';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "14 January 2025" (UTC): unambiguous in every English locale. */
export function longDay(unix: number): string {
  const d = new Date(unix * 1000);
  return `${d.getUTCDate()} ${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/**
 * Sentences that already say when ("On Tuesday, …", "Last year …", "In 2019 …") or open with a
 * quotation or a figure keep their own first words: a second date in front would read badly.
 */
const OWN_TIME =
  /^(on|in|by|as of|since|last|this|earlier|later|yesterday|today|tonight|now|until|after|before|during|when|while|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|updated|published)\b|^["“‘'(\d$€£]/i;

/**
 * The quote introduced by its day: "On 14 January 2025, the storm …". The first letter is lowered
 * only for a word that is not a name: a function word ("The", "It"), an adverb ("Ultimately"), or
 * a word its own article also writes in lower case ("Thousands"); names stay as written, so the
 * rest of the quote is verbatim. Undefined when the sentence cannot take the prefix.
 */
export function datedLead(sentence: string, unix: number, articleText = ''): string | undefined {
  if (OWN_TIME.test(sentence)) return undefined;
  const first = /^\p{L}+/u.exec(sentence)?.[0];
  // No word to start on, or a dateline's capitals ("PARIS − …"): the quote stays as it is.
  if (!first || (first.length > 1 && first === first.toUpperCase())) return undefined;
  const lower = first.toLowerCase();
  const common =
    first !== 'I' &&
    (STOPWORDS.has(lower) ||
      /^\p{L}{3,}ly$/u.test(lower) ||
      new RegExp(`(?<![\\p{L}])${lower}(?![\\p{L}])`, 'u').test(articleText));
  return `On ${longDay(unix)}, ${common ? lower[0] + sentence.slice(1) : sentence}`;
}

interface DatedConflict {
  newer: string;
  newerAt: number;
  older: string;
  olderAt: number;
}

/** The opening line of an answer whose dated sources disagree: the newest first, and when. */
export function conflictLine(c: DatedConflict): string {
  return `As of ${longDay(c.newerAt)}, the newest report says ${c.newer}; an earlier report, on ${longDay(c.olderAt)}, said ${c.older}.`;
}

/**
 * The verbatim sentence(s) a written quote may stand for: itself, or — when it opens with its
 * source's day — the sentence after the day, first letter as written or raised back. For checks
 * that every quote is in its cited article.
 */
export function quoteVariants(written: string): string[] {
  const m = /^On \d{1,2} [A-Z][a-z]+ \d{4}, (.+)$/s.exec(written);
  if (!m) return [written];
  const rest = m[1]!;
  return [written, rest, rest[0]!.toUpperCase() + rest.slice(1)];
}
