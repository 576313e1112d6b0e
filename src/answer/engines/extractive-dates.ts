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
 * Plural nouns for groups that open news sentences ("Researchers found …", "Officials said …")
 * and name no one: lowered even when the article never writes them in lower case.
 */
const GROUP_NOUNS: ReadonlySet<string> = new Set(
  `officials researchers scientists experts analysts investigators authorities residents police
witnesses doctors critics lawmakers legislators protesters demonstrators voters rescuers firefighters
prosecutors survivors students workers employees economists engineers astronomers archaeologists
historians reporters journalists villagers farmers fishermen scholars activists negotiators
diplomats troops soldiers officers volunteers visitors tourists passengers customers
shareholders investors traders consumers patients families parents`.split(/\s+/),
);

/**
 * An adverb by its ending ("Ultimately", "Finally", "Seriously", "Reportedly"): a bare -ly would
 * take names too ("Italy", "Kelly", "Emily").
 */
const ADVERB = /^\p{L}{3,}(?:al|e|ous|ent|ant|ed|ar|ful|ing|ib|ab|ess|ct|ght|ck|rt|ain|ear|id|ong)ly$/u;

/** A dateline's capitals: "PARIS − …", "WASHINGTON (Reuters) — …", "GAZA CITY, …". */
const DATELINE = /^\p{Lu}[\p{Lu}\s.'-]*(?:,[\p{Lu}\p{L}\s.]*)?\s*(?:\(|[−–—-]\s)/u;

/**
 * Whether the first word of a quote is a common word to lower after "On <day>, ". The rule:
 * lowered when it is a stop word ("The", "It"; src/text/stopwords.ts), an adverb by its
 * ending (ADVERB: "Ultimately"), a group noun of GROUP_NOUNS ("Researchers"), or a word its own article also
 * writes in lower case, itself or its singular ("Thousands" beside "thousands", "Farmers" beside
 * "farmer"). Everything else is taken for a name and kept as written: "I", acronyms ("NASA"),
 * and any capitalized word the article never writes in lower case ("Zelensky", "Apple").
 */
function isCommonWord(first: string, articleText: string): boolean {
  if (first === 'I' || (first.length > 1 && first === first.toUpperCase())) return false;
  const lower = first.toLowerCase();
  if (STOPWORDS.has(lower) || GROUP_NOUNS.has(lower) || ADVERB.test(lower)) return true;
  const forms = [lower];
  if (/\p{L}{3,}s$/u.test(lower)) forms.push(lower.slice(0, -1));
  // Case-sensitive: only the article's lower-case uses count (a name is capitalized everywhere).
  return forms.some((w) => new RegExp(`(?<![\\p{L}])${w}(?![\\p{L}])`, 'u').test(articleText));
}

/**
 * The quote introduced by its day: "On 14 January 2025, the storm …". The first letter is lowered
 * only for a common word (isCommonWord); names, "I" and acronyms stay as written, so the rest of
 * the quote is verbatim. Undefined when the sentence cannot take the prefix: it says its own time,
 * opens with a quotation or a figure, or with a dateline.
 */
export function datedLead(sentence: string, unix: number, articleText = ''): string | undefined {
  if (OWN_TIME.test(sentence) || DATELINE.test(sentence) || namesEarlierYear(sentence, unix)) return undefined;
  const first = /^\p{L}+/u.exec(sentence)?.[0];
  if (!first) return undefined;
  // "New York City", "Wall Street": a capitalized word before another one opens a name.
  const opensName = !BEFORE_NAMES.has(first.toLowerCase()) && /^\p{L}+\s+\p{Lu}/u.test(sentence);
  const lead = !opensName && isCommonWord(first, articleText) ? first[0]!.toLowerCase() + sentence.slice(1) : sentence;
  return `On ${longDay(unix)}, ${lead}`;
}

/** Words that stand before a name without being part of it ("The United States", "But Trump"). */
const BEFORE_NAMES: ReadonlySet<string> = new Set(
  `the a an this that these those his her their its our my your but and or so as when while if after before
since although though because for from with by in on at to of about under over some many most all both
several former late then still also now`.split(/\s+/),
);

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
 * source's day — the sentence after the day, first letter as written or raised back. For checks
 * that every quote is in its cited article.
 */
export function quoteVariants(written: string): string[] {
  const m = /^On \d{1,2} [A-Z][a-z]+ \d{4}, (.+)$/s.exec(written);
  if (!m) return [written];
  const rest = m[1]!;
  return [written, rest, rest[0]!.toUpperCase() + rest.slice(1)];
}
