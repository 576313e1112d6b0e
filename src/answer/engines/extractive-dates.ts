// Dates in the extractive engine's answers. A quoted sentence from a dated source is introduced by
// its day, as a clause of its own ("14 January 2025: The death toll … rose to 19 people.[2]"), so
// the quote keeps its own first letter (an "On <day>, " prefix had to guess whether to lower it,
// and "On 5 April 2022, Within the news …" showed the guess going wrong), and so that events of
// different years are never set side by side as if they were one story; the day is written once
// per run of sentences from the same day. When dated sources disagree on a figure, the answer
// opens with the newest and says when: "As of 14 January 2025, the newest report says 19 people;
// an earlier report, on 10 January 2025, said 12 people."

/** English month names, January first (`Date#getUTCMonth` order). */
export const MONTH_NAMES = [
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
 * Sentences that already name their time ("On 4 April, …", "In 2019 …", "Since March …") or open
 * with a quotation or a figure keep their own first words: a second date in front would read badly.
 * Time words that count from the day of writing ("This morning, …", "Yesterday …", "On Tuesday,
 * …", "Last week …") do take the day: quoted years later without it, "this morning" reads as
 * today's news, which hid how old an answer's news was.
 */
const OWN_TIME =
  /^(in|by|as of|since|until|after|before|during|when|while|january|february|march|april|may|june|july|august|september|october|november|december|updated|published)\b|^on (?!(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)|^["“‘'(\d$€£]/i;

/** Time words that count from the day of writing: without that day they say nothing of when. */
const FROM_DAY_OF_WRITING =
  /\b(today|tonight|yesterday|tomorrow|this (morning|afternoon|evening|week|weekend|month|year)|last (night|week|weekend|month|year)|(on|last|next|this) (monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/i;

/** Whether the sentence's only time is counted from its day of writing ("this morning", "on Tuesday"). */
export function countsFromDayOfWriting(sentence: string): boolean {
  return FROM_DAY_OF_WRITING.test(sentence);
}

/** A dateline's capitals: "PARIS − …", "WASHINGTON (Reuters) — …", "GAZA CITY, …". */
const DATELINE = /^\p{Lu}[\p{Lu}\s.'-]*(?:,[\p{Lu}\p{L}\s.]*)?\s*(?:\(|[−–—-]\s)/u;

/**
 * The quote introduced by its day: "12 March 2025: The storm …", the quote verbatim after it.
 * Undefined when the sentence cannot take the day: it names its own time ("On 4 April, …"), opens
 * with a quotation or a figure, with a dateline, or is about an earlier year than its source's.
 */
export function datedLead(sentence: string, unix: number): string | undefined {
  if (OWN_TIME.test(sentence) || DATELINE.test(sentence) || namesEarlierYear(sentence, unix)) return undefined;
  if (!/^\p{L}/u.test(sentence)) return undefined;
  return `${longDay(unix)}: ${sentence}`;
}

/**
 * A sentence about an earlier year than its source's ("… struck on Feb. 4, 1965"): "On 28 March
 * 2025, …" in front would date the old event to the report's day.
 */
function namesEarlierYear(sentence: string, unix: number): boolean {
  const year = new Date(unix * 1000).getUTCFullYear();
  for (const m of sentence.matchAll(/\b(1[89]\d\d|20\d\d)\b/g)) if (Number(m[1]) < year) return true;
  return false;
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
 * source's day — the sentence after the day. For checks that every quote is in its cited article.
 */
export function quoteVariants(written: string): string[] {
  const m = /^\d{1,2} [A-Z][a-z]+ \d{4}: (.+)$/s.exec(written);
  return m ? [written, m[1]!] : [written];
}
