// "What has the Guardian published?", "What's new from Critical Role?", "What did Off Menu post
// this week?", "Anything new on the NASA blog?": the question names one of the asker's feeds, and
// search indexes no feed names (an article rarely says its own feed's name), so by words alone the
// answer was about whatever article mentioned "Guardian", or declined. Such a question is
// answered from the named feed's newest articles instead (../pipelines/search-answer.ts).
//
// A question asks about a feed when it asks for news (a news word, or a verb of publishing or
// saying) and every other word is a question, time or filler word, a word for a kind of source
// ("blog", "podcast", "channel") or a run of words naming the feed: the title the user gave the
// subscription, or the feed's own title, or a part of either between separators ("Sky News" of
// "The Latest News … | Sky News"), a leading "the" left out. Words are compared whole and
// case-insensitively; no pattern runs over the question (a hostile message costs one pass).
//
// A name is a feed's and a topic's at once ("NASA" opens "NASA Breaking News"; the Guardian is
// in other papers' news). The choice: the question is about the feed when it says it asks about a
// source: "from NASA", "NASA's", "the NASA blog", "what did Off Menu post / publish / upload /
// write / share". Otherwise it is a topic ("What's the latest on NASA?", "What did NASA
// announce?", "Any news on Critical Role?": a digest of the newest articles about it, whichever
// feed has them; when the topic is a feed's whole name, that digest tells the feed's items one by
// one, ../engines/extractive-digest.ts). A subject may be a feed's whole name or a part of it
// ("Critical Role", "the Guardian", "Sky News") or open it ("Off Menu" of "Off Menu with Ed
// Gamble and James Acaster", "NASA" of both NASA feeds): feeds named whole come first, and only
// when none is are the feeds it opens taken.
import { FILLER, NEWS_WORDS, wordsOf } from './roundup-asked.ts';

/** Characters and words of a question about a feed at the most (hostile messages are refused at once). */
const MAX_CHARS = 200;
const MAX_WORDS = 24;
/** Words of a subject at the most (the longest real feed names of the tests have 9). */
const MAX_SUBJECT_WORDS = 12;
/** Characters of a feed's name compared (a feed may have a title of any length). */
export const MAX_NAME_CHARS = 160;
/** Feeds one question is answered from at the most (the best matches). */
export const MAX_FEEDS_NAMED = 4;

/** Verbs of a source putting something out: the question is about what the source itself put out. */
const PUBLISHING = new Set(
  'publish published publishes publishing post posted posts posting upload uploaded uploads uploading put write wrote written writing share shared sharing air aired drop dropped'.split(
    ' ',
  ),
);
/** Verbs of saying: news about the subject, whoever reports it. */
const SAYING = new Set(
  'announce announced announces say said says report reported reports release released releases reveal revealed unveil unveiled launch launched'.split(
    ' ',
  ),
);
/** Words for a kind of source: "the NASA blog", "Off Menu's podcast". */
const SOURCE_KINDS = new Set(
  'blog blogs podcast podcasts pod channel channels feed feeds site website newsletter newsletters column account page show paper newspaper magazine publication out'.split(
    ' ',
  ),
);
/** Words whose "'s" is "is" or "has" ("what's", "there's"), not a possessive. */
const CONTRACTED = new Set('what that it there here who where when how why he she let'.split(' '));
/** Words that ask for a fact: a run holding one names no feed. */
const QUESTION_WORDS = new Set('what which who whom whose how why where when whats'.split(' '));
/** Prepositions that point at a source: "new from NASA", "posts by Eugen Rochko". */
const FROM = new Set(['from', 'by']);

export interface FeedAsked {
  /** The words naming the feed, lower-cased, in order ("off", "menu"). */
  subject: string[];
  /** The question says it asks about a source ("from X", "X's", "the X blog", "did X post"). */
  asSource: boolean;
}

/** The subject of a question that asks what a feed has new, or undefined when it has not that shape. */
export function feedAskedOf(question: string): FeedAsked | undefined {
  if (question.length > MAX_CHARS) return undefined;
  const words = wordsOf(question);
  if (!words.length || words.length > MAX_WORDS) return undefined;
  let asks = false;
  let asSource = false;
  let first = -1;
  let last = -1;
  const plain: string[] = [];
  for (const [i, raw] of words.entries()) {
    // "NASA's": the possessive names a source of its own.
    const base = raw.endsWith("'s") ? raw.slice(0, -2) : '';
    const possessive = base !== '' && !CONTRACTED.has(base) && !FILLER.has(base);
    const w = possessive ? base : raw;
    plain.push(w);
    if (possessive) asSource = true;
    if (NEWS_WORDS.has(w) || PUBLISHING.has(w) || SAYING.has(w)) {
      asks = true;
      if (PUBLISHING.has(w)) asSource = true;
      continue;
    }
    if (SOURCE_KINDS.has(w) || FROM.has(w)) {
      asSource = true;
      continue;
    }
    if (FILLER.has(w)) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (!asks || first < 0) return undefined;
  // One run of words: filler inside it belongs to the name ("NASA Image of the Day").
  const subject = plain.slice(first, last + 1);
  // A news word or a question word inside the run: a question about something else ("What is the
  // new fee to climb Mount Everest?" has "fee to climb Mount Everest", no name; "which" asks a fact).
  for (const w of subject)
    if (
      NEWS_WORDS.has(w) ||
      PUBLISHING.has(w) ||
      SAYING.has(w) ||
      SOURCE_KINDS.has(w) ||
      FROM.has(w) ||
      QUESTION_WORDS.has(w)
    )
      return undefined;
  if (subject.length > MAX_SUBJECT_WORDS) return undefined;
  return { subject, asSource };
}

/** Separators between the parts of a feed's name ("BBC News - World", "Sky News | …", "MacRumors: …"). */
const SEPARATOR = /\s+[-–—|·•]\s+|:\s+|\s+\|\s*/;
/** A word of a feed's name, as `wordsOf` reads the question's. */
const NAME_WORD = /[\p{L}\p{N}][\p{L}\p{N}'’‘-]*/gu;

/** How a subject names a feed: its whole name (or a part's), or the words it opens with. */
export type NameMatch = 'whole' | 'opening';

/**
 * How `subject` names the feed called `name`, if it does: it is the whole name or a whole part
 * of it between separators, a leading "the" left out, or the words one of them opens with. Only
 * the words it takes to tell are read.
 */
export function nameMatch(subject: readonly string[], name: string): NameMatch | undefined {
  const text = name.slice(0, MAX_NAME_CHARS);
  // Cheap refusal first: a name without the subject's first word is no match (most of a user's feeds).
  if (!subject.length || !text.toLowerCase().includes(subject[0]!)) return undefined;
  let opening = false;
  for (const part of [text, ...text.split(SEPARATOR)]) {
    NAME_WORD.lastIndex = 0;
    let i = 0;
    let first = true;
    let extra = false;
    for (let m = NAME_WORD.exec(part); m; m = NAME_WORD.exec(part)) {
      const w = m[0]
        .toLowerCase()
        .replace(/[’‘]/g, "'")
        .replace(/['-]+$/, '');
      if (first && w === 'the') {
        first = false;
        continue;
      }
      first = false;
      if (i === subject.length) {
        extra = true;
        break;
      }
      if (w !== subject[i]) break;
      i++;
    }
    if (i < subject.length) continue;
    if (!extra) return 'whole';
    opening = true;
  }
  return opening ? 'opening' : undefined;
}

/** Feeds compared between two turns of the event loop (a user may have thousands). */
const FEEDS_PER_TURN = 1000;

/**
 * The feeds a question about a feed names, best first: those it names wholly, else (when it asks
 * about a source) those whose name it opens; at most MAX_FEEDS_NAMED. Each feed is named by the
 * user's title for it and by its own. One pass over the names, yielding to the event loop every
 * FEEDS_PER_TURN feeds.
 */
export async function feedsNamed<F extends { title: string; userTitle: string | null }>(
  asked: FeedAsked,
  feeds: readonly F[],
): Promise<F[]> {
  if (!asked.asSource) return [];
  const whole: F[] = [];
  const opening: F[] = [];
  for (const [n, f] of feeds.entries()) {
    if (n > 0 && n % FEEDS_PER_TURN === 0) await new Promise((r) => setImmediate(r));
    const byUser = f.userTitle ? nameMatch(asked.subject, f.userTitle) : undefined;
    const byOwn = byUser === 'whole' ? byUser : nameMatch(asked.subject, f.title);
    const m = byUser === 'whole' || byOwn === 'whole' ? 'whole' : (byUser ?? byOwn);
    if (m === 'whole') whole.push(f);
    else if (m === 'opening') opening.push(f);
  }
  return (whole.length ? whole : opening).slice(0, MAX_FEEDS_NAMED);
}
