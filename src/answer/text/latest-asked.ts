// "What is the latest Critical Role episode about?", "What happened in the last episode of X?",
// "What's the newest video from Y?", "When is the next Z?": questions about the newest item of a
// kind, answered from the newest source that is such an item (../engines/extractive-latest.ts)
// rather than by the sentence that best covers the question's words, which for a feed of look-alike
// episodes is any of them, or none ("none says that"). Only whole questions of these shapes count:
// "What is the latest on X?" and "what's new with X?" ask for a digest (./answer-type.ts checks
// them first), and "the latest" inside a longer question ("How many men were called up in Russia's
// latest draft?") is a fact question like any other.
import { terms } from './terms.ts';
import { answerTypeOf } from './answer-type.ts';

export interface LatestAsked {
  /** The question's word for "newest" ("latest", "most recent", "last", "next"). */
  word: string;
  /** "about": what the newest X is about; "when": when the next X is. */
  asks: 'about' | 'when';
  /** The thing asked about, as written: "Critical Role episode", "episode of Critical Role". */
  thing: string;
  /** Its terms: a source is such a thing when it has them all. */
  thingTerms: string[];
  /** The kind of feed item it names ("episode", "video"), when it names one. */
  noun?: string;
}

/** Feed items a "what is the latest X?" asks for by kind (a bare "latest X" of another noun asks for a fact). */
const ITEM =
  /\b(episode|video|podcast|post|blog post|article|story|issue|newsletter|chapter|stream|livestream|upload|entry|installment|instalment|edition|recap|column|vlog|short|release)s?\b/i;

/**
 * Terms of item nouns that name any item ("article", "story", "post"; "video" on a video channel,
 * whose titles never say so): not what a source must name.
 */
const GENERIC = new Set(terms('article story post entry item piece video upload'));

/** Characters of a "latest X" question at the most (the longest of its tests has 64). */
const MAX_CHARS = 200;

const NEWEST = '(?<word>latest|newest|most recent|last|previous)';
/** "the", or whose: "Critical Role's" (kept as part of the thing). */
const OWNER = "(?:the|their|his|her|its|(?<owner>(?:[\\p{L}\\p{N}.&-]+\\s+){0,3}[\\p{L}\\p{N}.&-]+'s?))";
const END = '\\s*[?.!]*\\s*$';

/** "What is/was the latest X about?" */
const ABOUT = new RegExp(
  `^what(?:'s| is| was| were| are)\\s+(?:${OWNER}\\s+)?${NEWEST}\\s+(?<thing>.+?)\\s+about${END}`,
  'iu',
);
/** "What happened in the last X?" */
const HAPPENED = new RegExp(
  `^what\\s+(?:happened|happens|went on|goes on)\\s+(?:in|on|during)\\s+(?:${OWNER}\\s+)?${NEWEST}\\s+(?<thing>.+?)${END}`,
  'iu',
);
/** "What is the latest X?" (X a feed item: "episode", "video"). */
const WHICH = new RegExp(
  `^(?:what|which)(?:'s| is| was)\\s+(?:${OWNER}\\s+)?(?<word>latest|newest|most recent)\\s+(?<thing>.+?)${END}`,
  'iu',
);
/** "When is the next X?", "When does the next X come out?" */
const WHEN = new RegExp(
  `^when(?:'s| is| will| does| do)\\s+(?:${OWNER}\\s+)?(?<word>next|upcoming)\\s+(?<thing>.+?)(?:\\s+(?:come out|coming out|air|airing|be released|released|be out|out|start|starting|happen|take place|drop|go live|be on|be))?${END}`,
  'iu',
);

/** The "latest X" the question asks about, or undefined when it asks something else. */
export function latestAskedOf(question: string): LatestAsked | undefined {
  // A follow-up's opening "and" / "so" ("And what was the last episode about?") is no part of it.
  // Such questions are short; the patterns' lazy "thing" backtracks over runs of spaces or
  // punctuation, O(n^2) and worse on a crafted message (minutes for "what is the latest" and
  // 100,000 spaces: test/freeze-attacks.ts), so runs of white space count as one, and a message
  // longer than any such question is not one.
  if (question.length > MAX_CHARS * 4) return undefined;
  const q = question
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[’‘]/g, "'")
    .replace(/^(?:and|so|ok(?:ay)?|then|also|now),?\s+/i, '');
  if (q.length > MAX_CHARS) return undefined;
  if (answerTypeOf(q) === 'summary') return undefined;
  let m: RegExpExecArray | null;
  let asks: LatestAsked['asks'] = 'about';
  if ((m = ABOUT.exec(q) ?? HAPPENED.exec(q))) asks = 'about';
  else if ((m = WHICH.exec(q)) && ITEM.test(m.groups!.thing!) && !/^(on|about|news|updates?)\b/i.test(m.groups!.thing!))
    asks = 'about';
  else if ((m = WHEN.exec(q))) asks = 'when';
  else return undefined;
  const owner = m.groups?.owner?.replace(/'s?$/, '');
  const asked = m.groups!.thing!.trim();
  const thing = owner ? `${asked} of ${owner}` : asked;
  // "the latest story about Tesla": "story" names any item, and headlines seldom say it.
  const all = [...new Set(terms(thing))];
  const specific = all.filter((t) => !GENERIC.has(t));
  const thingTerms = specific.length ? specific : all;
  if (!thingTerms.length) return undefined;
  const noun = ITEM.exec(thing)?.[1]?.toLowerCase();
  return { word: m.groups!.word!.toLowerCase(), asks, thing, thingTerms, ...(noun ? { noun } : {}) };
}

/** The stem of "episode", which podcasts' headlines often abbreviate. */
const EPISODE = terms('episode')[0]!;
/** "Ep 180: Reece Shearsmith", "Ep. 12", "E12 -", "S2E3": how a headline says "episode" with a number. */
const EPISODE_MARK = /^(?:ep|e\d+|s\d+e\d+)$/;

/**
 * Whether an article is such a thing by its headline read in its feed: the headline and the
 * feed's name have every term of the thing between them ("Episode 49: The Aurora Grows" in the
 * feed "Critical Role" is a Critical Role episode; a podcast's episode titles seldom repeat the
 * show's name, and many say "Ep 180" rather than "Episode 180").
 */
export function headlineNames(hit: { title: string; sourceName?: string }, thingTerms: string[]): boolean {
  const named = new Set(terms(`${hit.title} ${hit.sourceName ?? ''}`));
  return thingTerms.every((t) => named.has(t) || (t === EPISODE && [...named].some((n) => EPISODE_MARK.test(n))));
}
