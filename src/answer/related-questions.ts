// `related_questions`: follow-up questions drawn from what the search found but the answer did not
// use — the other prominent articles and the people, places and organisations they name. With a
// generative engine the model proposes them from the same material; if it fails, the derived ones
// are used. Never a canned list: every question names something from the retrieved articles.
import type { SearchHit } from '../search/types.ts';
import type { AnswerEngine } from './engines/engine.ts';
import { entities, keywords, terms, words } from './text/terms.ts';
import { STOPWORDS } from '../text/stopwords.ts';
import { PROMO } from './engines/feed-repeats.ts';
import { isRoundupAsked } from './text/roundup-asked.ts';
import { feedAskedOf, nameMatch } from './text/feed-asked.ts';

const COUNT = 4;
/** Words of how a question asks, not of what it asks about (stemmed like terms()). */
const GENERIC_ASKS = new Set(
  terms(
    'happened happening announce announced say said report reported new latest news release released see saw do did does summarize summarise update updates story stories',
  ),
);
/** Longest wait for the model's related questions (and follow-up rewrites, see standalone-query.ts). */
export const EXTRA_TIMEOUT_MS = 15_000;

export async function relatedQuestionsFor(
  question: string,
  hits: SearchHit[],
  citedUrls: Set<string>,
  engine: AnswerEngine,
  signal?: AbortSignal,
): Promise<string[]> {
  const derived = deriveRelatedQuestions(question, hits, citedUrls);
  if (!engine.generative || !engine.ask || !hits.length) return derived;
  const titles = hits
    .slice(0, 10)
    .map((h, i) => `${i + 1}. ${h.title}`)
    .join('\n');
  const prompt =
    `A reader asked: "${question}"\nArticles found in their news feeds:\n${titles}\n\n` +
    `Write ${COUNT} short follow-up questions the reader might ask next, each answerable from these articles. One question per line, no numbering.`;
  try {
    // An extra must not hold the answer's end for the full LLM timeout: derived ones are fine.
    const bounded = AbortSignal.any([AbortSignal.timeout(EXTRA_TIMEOUT_MS), ...(signal ? [signal] : [])]);
    const reply = await engine.ask(prompt, { maxTokens: 200, signal: bounded });
    const lines = reply
      .split('\n')
      .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
      .filter((l) => l.endsWith('?') && l.length > 8);
    return lines.length ? lines.slice(0, COUNT) : derived;
  } catch {
    return derived;
  }
}

/** A lone capitalized word used as an adjective ("Sumatran rhino", "Indonesian sanctuary"). */
const DEMONYM = /(?:an|ian|ean|ese|ish|ic)$/;

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december';
const DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|yesterday|tomorrow';
/** "April 5", "December 2021", "Monday", "2022": a date is not something to follow. */
const DATE = new RegExp(`^(?:(?:${MONTHS}|${DAYS}|\\d{1,4}(?:st|nd|rd|th)?|of)\\s*)+$`, 'i');
/** Site furniture: "MacRumors.com Discuss", "Related Roundup", "Read more". */
const FURNITURE = /\.(?:com|org|net|co|io)\b|^(?:related|read|more|discuss|comments?|share|subscribe|sign|click)\b/i;
/** A commit log's verbs: "Fix PostProcess", "Bump esbuild" are changes, not subjects. */
const CHANGE_VERB =
  /^(?:fix|fixes|add|adds|remove|removes|update|updates|bump|bumps|merge|release|improve|change|changes|use|make)$/i;
/**
 * Where things are posted, not what they are about: a show's notes say "watch on YouTube",
 * "follow us on Twitter" under every episode, and "What is the latest on YouTube?" found the
 * notes again (issue: real-world feeds). Formats too ("VODs", "Q&A"). Lower-cased; a name all of
 * whose words are here is no subject.
 */
const PLATFORMS = new Set(
  `youtube twitter instagram facebook tiktok twitch spotify patreon discord reddit github gitlab mastodon substack
  linkedin bluesky acast soundcloud itunes stitcher overcast whatsapp telegram snapchat pinterest tumblr`
    .split(/\s+/)
    .filter(Boolean),
);
/** What an item is (a format), never what it is about: "VODs", "Q&A", "Shorts". */
const FORMATS = new Set(
  'vods vod q&a ama livestream livestreams stream streams shorts trailer trailers video videos podcast podcasts episode episodes rss merch newsletter'.split(
    ' ',
  ),
);
const lastWord = (name: string) => name.slice(name.lastIndexOf(' ') + 1).toLowerCase();
/**
 * "Prime Video", "Apple Podcasts", "James's YouTube", "VODs": a name ending in a format is no
 * subject; one ending in a platform is one only where a headline names it (news about Twitter),
 * not where a show's notes say where to watch.
 */
const isPlatform = (name: string, titles: string) =>
  FORMATS.has(lastWord(name)) || (PLATFORMS.has(lastWord(name)) && !titles.includes(name.toLowerCase()));

/** A first person or contraction is a quote's start, not a name ("I’ve", "We're"). */
const PRONOUN = /^(?:i|we|you|he|she|they|it|my|our|your)(?:['’]\w+)?$/i;

/**
 * A capitalized word that the same texts also write in lower case is a common word capitalized
 * by a headline or a sentence start ("Web", "Testing", "Changes", "Fix", "Developers"), not a
 * name. A name of several words is common when every word is ("Maintenance Release").
 */
function isCommonPhrase(name: string, lowerWords: Set<string>): boolean {
  const parts = name.split(' ');
  return parts.every((p) => /^\p{Lu}\p{Ll}+$/u.test(p) && lowerWords.has(p.toLowerCase()));
}

/** Whether a name reads as a name in these texts, not a capitalized adjective or a cut phrase. */
function isName(name: string, texts: string[], lowerWords: Set<string> = new Set(), titles = ''): boolean {
  const parts = name.split(' ');
  const last = parts[parts.length - 1]!.toLowerCase();
  if (
    DATE.test(name) ||
    FURNITURE.test(name) ||
    isPlatform(name, titles) ||
    parts.some((p) => PRONOUN.test(p)) ||
    /[.!?;]\s/.test(name) ||
    (parts.length > 1 && CHANGE_VERB.test(parts[0]!)) ||
    isCommonPhrase(name, lowerWords)
  )
    return false;
  // "WordCamp Near", "Episode 28": a name does not end in a function word or start with a count.
  if (
    STOPWORDS.has(last) ||
    /^\d/.test(parts[0]!) ||
    /^(episode|part|chapter|update|live|watch|video)$/i.test(parts[0]!)
  )
    return false;
  if (parts.length > 1) return true;
  if (!DEMONYM.test(last)) return true;
  // A demonym-like word followed by a lower-case word is an adjective in front of its noun.
  const re = new RegExp(`\\b${name}\\s+(\\p{Ll})`, 'gu');
  let adjective = 0;
  let total = 0;
  for (const t of texts) {
    total += t.split(name).length - 1;
    adjective += [...t.matchAll(re)].length;
  }
  return total === 0 || adjective / total < 0.5;
}

/**
 * Questions a reader would ask next, derived without a model: the names that recur in the
 * on-topic articles (those naming a word of the question) but that the question does not name,
 * the answer's own sources first; then the headlines of on-topic articles the answer did not
 * quote. A name must recur across articles and read as a name ("Clubs", "Sumatran", "WordCamp
 * Near" do not); fewer questions, or none, rather than nonsense.
 */
export function deriveRelatedQuestions(question: string, hits: SearchHit[], citedUrls: Set<string>): string[] {
  // "What's new?": the sources are the newest of several feeds; each of them is a question of its own.
  if (isRoundupAsked(question)) return feedQuestions(hits);
  const asked = new Set(words(question));
  const topicNames = entities(question);
  const topic = topicNames[0] ?? keywords(question).slice(0, 3).join(' ');
  const topicTerms = new Set(terms(question));
  const overlapsQuestion = (phrase: string) => words(phrase).some((w) => asked.has(w));
  const textOf = (h: SearchHit) => `${h.title}\n${h.passages.map((p) => p.text).join('\n')}`;
  // Weak keyword matches lead off-topic: only hits that name the question's names (when it has
  // some), else at least two thirds of its topic words.
  const nameTerms = topicNames.map((n) => terms(n)).filter((t) => t.length);
  // "What has the Guardian published?": the named feed's items are on topic, whether or not they
  // say its name (../text/feed-asked.ts); the feed's own name is then no subject to propose.
  const feedAsked = feedAskedOf(question);
  const ofFeed = (h: SearchHit) =>
    feedAsked?.asSource === true && nameMatch(feedAsked.subject, h.sourceName) !== undefined;
  const onTopic = hits.slice(0, 10).filter((h) => {
    if (ofFeed(h)) return true;
    const have = new Set(terms(textOf(h)));
    if (nameTerms.length) return nameTerms.some((n) => n.every((t) => have.has(t)));
    const hit = [...topicTerms].filter((t) => have.has(t)).length;
    return topicTerms.size > 0 && hit * 3 >= topicTerms.size * 2;
  });
  const texts = onTopic.map(textOf);
  // Words the retrieved texts write in lower case somewhere (a common noun, whatever a headline does).
  const lowerWords = new Set<string>();
  for (const h of hits.slice(0, 10))
    for (const m of textOf(h).matchAll(/(?<![\p{L}.])\p{Ll}[\p{Ll}'’-]+/gu)) lowerWords.add(m[0]);
  const counts = new Map<string, { name: string; score: number; articles: Set<string> }>();
  // A line a feed repeats in its items (a show's credits, "Produced by … for Plosive") names no subject.
  const lineFeeds = new Map<string, Set<string>>();
  for (const h of onTopic)
    for (const p of h.passages.slice(0, 3))
      for (const line of p.text.split(SENTENCE_END)) {
        const key = `${h.sourceName}\n${line}`;
        const urls = lineFeeds.get(key) ?? new Set<string>();
        urls.add(h.url);
        lineFeeds.set(key, urls);
      }
  const boilerplate = (h: SearchHit, line: string) =>
    PROMO.test(line) || (lineFeeds.get(`${h.sourceName}\n${line}`)?.size ?? 0) > 1;
  onTopic.forEach((hit, rank) => {
    const weight = 1 / (1 + rank * 0.1);
    const add = (name: string, w: number) => {
      if (overlapsQuestion(name) || name.split(' ').length > 4 || name.length < 3) return;
      const key = name.toLowerCase();
      const e = counts.get(key) ?? { name, score: 0, articles: new Set<string>() };
      e.score += w;
      e.articles.add(hit.url);
      counts.set(key, e);
    };
    for (const n of entities(hit.title, { strict: true })) add(n, 2 * weight);
    // Not from a show's links, sponsor reads and calls to action ("… on Twitter and Instagram").
    for (const p of hit.passages.slice(0, 3))
      for (const line of p.text.split(SENTENCE_END))
        if (!boilerplate(hit, line)) for (const n of entities(line, { strict: true })) add(n, weight);
  });
  // The publishers themselves ("MacRumors" of "MacRumors: Mac News and Rumor") are where the news
  // comes from, not news; a publisher's whole name only, so NASA stays a subject beside "NASA Breaking News".
  const publishers = new Set(
    hits.flatMap((h) =>
      (h.sourceName ?? '')
        .split(/\s*[:|–—]\s*|\s+-\s+/)
        .map((p) => p.trim().toLowerCase())
        .filter(Boolean),
    ),
  );
  const titles = onTopic.map((h) => h.title.toLowerCase()).join('\n');
  const ranked = [...counts.values()]
    .filter(
      (e) =>
        e.articles.size >= 2 &&
        e.score >= 1.5 &&
        isName(e.name, texts, lowerWords, titles) &&
        !publishers.has(e.name.toLowerCase()),
    )
    .sort((a, b) => b.score - a.score);
  const out: string[] = [];
  for (const e of ranked) {
    if (out.length >= COUNT) break;
    // "How is Clubs connected to Sumatran?" was nonsense: a connection question only between two real names.
    out.push(
      topicNames[0]?.includes(' ') && e.name.includes(' ') && out.length % 2 === 0
        ? `How is ${e.name} connected to ${topic}?`
        : `What is the latest on ${e.name}?`,
    );
  }
  // Few names: the headlines of on-topic articles the answer did not quote from, when the headline
  // itself names the subject ("Node.js Cluster and Express" is not about the Masters because its
  // text says "master process").
  const subject = new Set(terms(question).filter((t) => !GENERIC_ASKS.has(t)));
  for (const hit of onTopic.slice(3)) {
    if (out.length >= COUNT) break;
    const title = hit.title.replace(/["“”]/g, '').trim();
    if (!title || title.length > 100) continue;
    // A named feed's item is about what was asked; one the answer quoted is no question left.
    if (ofFeed(hit) && citedUrls.has(hit.url)) continue;
    if (subject.size && !ofFeed(hit) && !terms(title).some((t) => subject.has(t))) continue;
    out.push(`What is behind the report "${title}"?`);
  }
  return [...new Set(out)];
}

/** Where a passage's sentences end, roughly (names are mined per sentence). */
const SENTENCE_END = /(?<=[.!?])\s+(?=\S)/;

/** Separators between the parts of a feed's name ("BBC News - World", "… | Sky News"). */
const NAME_PARTS = /\s+[-–—|·•]\s+|:\s+|\s+\|\s*/;

/**
 * "What's new from <feed>?" for the feeds of a roundup's sources, in their order: each is a
 * question the feed answers (../text/feed-asked.ts reads it back to that feed). A feed is named by
 * the first part of its name the question reads whole ("Sky News" of "The Latest News from the UK
 * and Around the World | Sky News"), else not proposed.
 */
function feedQuestions(hits: SearchHit[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    if (out.length >= COUNT) break;
    const name = h.sourceName ?? '';
    if (!name || seen.has(name) || name.length > 80) continue;
    seen.add(name);
    for (const part of name.split(NAME_PARTS)) {
      // "Perseverance Image Bot 📡": the words, not the emoji.
      const shown = part
        .replace(/[^\p{L}\p{N}\s'’&.-]/gu, '')
        .replace(/\s+/g, ' ')
        .trim();
      if (!shown || shown.length > 50) continue;
      const q = `What's new from ${shown}?`;
      const asked = feedAskedOf(q);
      if (asked && nameMatch(asked.subject, name) === 'whole') {
        out.push(q);
        break;
      }
    }
  }
  return out;
}
