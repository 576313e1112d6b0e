// "What's new?", "What happened today?", "Summarize the news", "What did I miss this week?": a
// roundup of the newest articles, about nothing in particular. These are a new user's first
// questions, and they name no topic, so a search by words finds whatever article says "news" or
// "happened" (a newsletter sign-up page) and the answer declined: "8 articles mention What, but
// none says that". A roundup is answered from the newest articles in the asker's scope instead
// (../pipelines/search-answer.ts), one sentence per story, newest first (../engines/extractive-digest.ts).
//
// A question is a roundup when it asks for news (one of NEWS_WORDS) and every other word is a
// question, time or filler word: "What's new with NASA?" keeps "nasa" and stays a digest about
// NASA; "What happened to the Titanic?" keeps "titanic" and stays a question. Words are compared
// whole, with no pattern over the text, so a hostile message costs one pass over its words.

/** Characters of a roundup question at the most (the longest of its tests has 56). */
const MAX_CHARS = 120;

/** Words that ask for news when nothing else is asked about. */
export const NEWS_WORDS = new Set(
  'new news latest newest happened happening happen headlines headline updates update stories summarize summarise summary roundup round-up rundown overview digest briefing brief catch miss missed developments going'.split(
    ' ',
  ),
);

/** Words a roundup may have besides its news words: question words, time words, filler. */
export const FILLER = new Set(
  `what whats what's what're is are was were has have had been be the a an any anything something some all everything
  in on at of from for to with about regarding concerning around across my me i i've ive you your there there's theres it its
  did do does so far tell give show get let us please quick quickly short just now currently
  today today's todays tonight yesterday this last past recent recently lately week weeks weekend month months
  morning evening night hours days day year since while away
  top main key big biggest important major interesting
  feeds feed articles article sources world hey hi ok okay can could would should know need want up`
    .split(/\s+/)
    .filter(Boolean),
);

/** The message's words, lower-cased, typographic apostrophes made plain, punctuation dropped. */
export function wordsOf(message: string): string[] {
  return message
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .split(/[^\p{L}\p{N}'-]+/u)
    .map((w) => w.replace(/^['-]+|['-]+$/g, ''))
    .filter(Boolean);
}

/** Whether the question asks for the newest articles about nothing in particular. */
export function isRoundupAsked(question: string): boolean {
  if (question.length > MAX_CHARS) return false;
  const words = wordsOf(question);
  if (!words.length || words.length > 14) return false;
  let news = false;
  for (const w of words) {
    if (NEWS_WORDS.has(w)) news = true;
    else if (!FILLER.has(w)) return false;
  }
  return news;
}

/** Words that ask for the newest about a topic ("what's the latest on X?", "any news about X?"). */
const NEWEST_WORDS = new Set(
  'new news latest newest recent recently lately updates update developments happening'.split(' '),
);

/** Words of a question asking for the newest about a topic, at the most. */
const MAX_TOPIC_WORDS = 24;

/**
 * The topic of a question that asks for the newest about it ("What's the latest on Critical
 * Role?" → ["critical", "role"]), as lower-cased words; undefined when it asks for no news or
 * names no topic (a roundup).
 */
export function newsTopicOf(question: string): string[] | undefined {
  if (question.length > 2 * MAX_CHARS) return undefined;
  const words = wordsOf(question);
  if (words.length > MAX_TOPIC_WORDS || !words.some((w) => NEWEST_WORDS.has(w))) return undefined;
  const topic = words.filter((w) => !NEWS_WORDS.has(w) && !FILLER.has(w));
  return topic.length ? topic : undefined;
}

/** What an organisation or a person does that makes news ("What did NASA announce this week?"). */
const DOINGS = new Set(
  'announce announced say said report reported publish published release released post posted launch launched unveil unveiled reveal revealed'.split(
    ' ',
  ),
);

/**
 * The topic of "What did X announce / say / release … (recently, this week)?" and nothing more
 * ("What did NASA announce recently?" → ["nasa"]): the newest about X, told as a digest. A
 * question with more after the verb ("… announce about the Moon lander?") asks for a fact.
 */
export function doingsTopicOf(question: string): string[] | undefined {
  if (question.length > MAX_CHARS) return undefined;
  const words = wordsOf(question);
  if (words.length > MAX_TOPIC_WORDS || words[0] !== 'what' || !['did', 'has', 'have'].includes(words[1] ?? ''))
    return undefined;
  const verb = words.findIndex((w, i) => i > 2 && DOINGS.has(w));
  if (verb < 0 || !words.slice(verb + 1).every((w) => FILLER.has(w))) return undefined;
  const topic = words.slice(2, verb).filter((w) => !FILLER.has(w) && !NEWS_WORDS.has(w));
  return topic.length ? topic : undefined;
}
