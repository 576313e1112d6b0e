// "What is the latest Critical Role episode about?" (../text/latest-asked.ts): the answer names the
// newest source that is such a thing, with its day and its title, then quotes the sentence that
// says what it is about: "The latest episode, published 20 February 2023, is "The Aurora Grows |
// Critical Role | Campaign 3, Episode 49".[5] Bells Hells travel the aurora-filled skies …[5]".
// The usual planner (./extractive-answer.ts) looks for the sentence that best covers the
// question's words, and in a feed of look-alike episodes every one covers them as well as the
// next, so it quoted several at random or declined ("none says that"). A source is such a thing
// when its headline and its feed's name have every term of the thing asked for ("Critical Role",
// "episode"), else its text; the newest dated one of those is the answer, so a newer item on
// something else (a merch sale) is passed over. "When is the next X?" quotes the sentence of the
// newest such source that names a time ("live Thursdays at 7pm PT"), or says that it names none.
// With no such source the usual planner answers or declines.
import type { GroundingSource } from './engine.ts';
import { readSentences } from './extractive-answer.ts';
import { longDay } from './extractive-dates.ts';
import { feedRepeats, PROMO, shouting } from './feed-repeats.ts';
import { terms } from '../text/terms.ts';
import { headlineNames, type LatestAsked } from '../text/latest-asked.ts';

export interface LatestPlan {
  source: GroundingSource;
  /** The verbatim sentence quoted after the item's name: what it is about, or when the next one is. */
  quote?: string;
  /** The answer text, with its `[n]` markers. */
  text: string;
  notes: string[];
}

/** Sentences read per source for the quote. */
const POOL = 40;
/** Sources read, newest first, for a "when is the next …" sentence. */
const WHEN_SOURCES = 3;

/** A time a sentence names: a weekday, a clock time, "tomorrow", "next week", a month with its day. */
const WHEN =
  /\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|tomorrow|tonight|next (?:week|month|year)|weekly|every (?:week|day))\b|\b\d{1,2}(?::\d\d)?\s?(?:am|pm)\b/i;
/** A month named as a date ("May 4", "4 May", "in March 2027"), capitalized: "may" and "march" are verbs too. */
const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|March|April|May|June|July|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const MONTH_DATE = new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,4}\\b|\\b\\d{1,2}\\s+${MONTH}\\b`);
const namesTime = (text: string) => WHEN.test(text) || MONTH_DATE.test(text);

const has = (set: Set<string>, all: string[]) => all.every((t) => set.has(t));

export function planLatest(asked: LatestAsked, sources: GroundingSource[]): LatestPlan | undefined {
  const dated = sources.filter((s) => s.hit.publishedAt != null);
  const byTitle = dated.filter((s) => headlineNames(s.hit, asked.thingTerms));
  const byText = byTitle.length
    ? byTitle
    : dated.filter((s) =>
        has(new Set(terms(`${s.hit.title} ${s.hit.sourceName} ${s.texts.join(' ')}`)), asked.thingTerms),
      );
  if (!byText.length) return undefined;
  const newestFirst = [...byText].sort((a, b) => b.hit.publishedAt! - a.hit.publishedAt!);
  const newest = newestFirst[0]!;
  const what = asked.noun ?? `article about ${asked.thing}`;
  const why = `Asked for the ${asked.word} ${asked.thing}: ${byText.length} of ${sources.length} sources are one (their ${byTitle.length ? 'headlines' : 'texts'} name ${asked.thingTerms.join(', ')}), [${newestFirst.map((s) => s.n).join(', ')}] newest first.`;
  const day = (s: GroundingSource) => longDay(s.hit.publishedAt!);
  if (asked.asks === 'when') {
    for (const source of newestFirst.slice(0, WHEN_SOURCES)) {
      const sentence = readSentences([source], POOL).find((s) => namesTime(s.text) && !shouting(s.text));
      if (!sentence) continue;
      return {
        source,
        quote: sentence.text,
        text: `The newest ${what}, "${source.hit.title.trim()}", published ${day(source)}, says: ${sentence.text}[${source.n}]`,
        notes: [why, `Quoting [${source.n}]'s sentence ${sentence.position + 1}: the first that names a time.`],
      };
    }
    // The sources are such things but none names a time: say so of the newest, not quote any date.
    return {
      source: newest,
      text: `The newest ${what}, "${newest.hit.title.trim()}", published ${day(newest)}, does not say when the next one is.[${newest.n}]`,
      notes: [
        why,
        `No sentence of [${newestFirst
          .slice(0, WHEN_SOURCES)
          .map((s) => s.n)
          .join(', ')}] names a time.`,
      ],
    };
  }
  // What it is about: the first sentence that is not a link, a sponsor or a call to action, nor
  // said by another source of its feed too (a show's notes repeat the same lines in every
  // episode; another feed's copy of a wire story repeats its lede, which is still the lede).
  const repeats = feedRepeats(sources);
  const read = readSentences([newest], POOL);
  const lead = read.find(
    (s) => /\p{Ll}/u.test(s.text) && !PROMO.test(s.text) && !shouting(s.text) && !repeats(newest, s.text),
  );
  const named = `The ${asked.word} ${what}, published ${day(newest)}, is "${newest.hit.title.trim()}".[${newest.n}]`;
  return {
    source: newest,
    quote: lead?.text,
    text: lead ? `${named} ${lead.text}[${newest.n}]` : named,
    notes: [
      why,
      lead
        ? `Quoting [${newest.n}]'s sentence ${lead.position + 1}: the first that is no link, sponsor or call to action and that no other source of its feed repeats.`
        : `[${newest.n}] ${read.length ? 'has no sentence of its own to quote (only links, sponsors or lines its feed repeats)' : 'carries no text'}: named by its headline.`,
    ],
  };
}
