// "Summarize the news about X" / "what's the latest on X": a dated digest. The retrieved articles
// are grouped into stories (./story-clusters.ts: wire copies and follow-ups of one event are one
// story), each story is told by one verbatim sentence of its best article — the one that covers
// the question's topic and the story's own words best, opening sentences preferred (a news lede
// summarizes its article) — and the stories are listed newest first, each with its day and its
// citation. Several articles of a story are named in the reasoning trace, not quoted twice.
import type { GroundingSource } from './engine.ts';
import { isoDay, questionTermsOf, readSentences, type AnswerPlan, type Sentence } from './extractive-answer.ts';
import { feedRepeats, PROMO, shouting } from './feed-repeats.ts';
import { clusterStories, SAME_STORY, type StoryCluster } from './story-clusters.ts';
import { terms, words } from '../text/terms.ts';

interface DigestOptions {
  stories: number;
  poolPerSource: number;
  /** What sentences are matched against when it differs from the question (a follow-up's topic). */
  matchText?: string;
  /** A roundup ("what's new?"): the sources are the newest articles, and every story is told. */
  anyTopic?: boolean;
}

/** A sentence without closing punctuation is a headline or a caption, not a lede. */
const UNFINISHED = 0.5;
/** Weight of the story's own words against the question's. */
const STORY_WORDS = 0.4;

/** The story's share of its own top words a sentence holds (set by bestSentence, read by the trace). */
const storyShares = new WeakMap<Sentence, number>();

function bestSentence(
  cluster: StoryCluster,
  pool: Sentence[],
  qTerms: string[],
  /** Terms of the question the item's feed name holds: every sentence of the item is about them. */
  byFeed: ReadonlySet<string>,
): Sentence | undefined {
  const story = cluster.topTerms.slice(0, 8);
  let best: Sentence | undefined;
  for (const s of pool) {
    // No topic (a roundup): every sentence of the item is about what was asked, as for a feed asked by name.
    const coverage = qTerms.length ? qTerms.filter((t) => byFeed.has(t) || s.termSet.has(t)).length / qTerms.length : 1;
    const storyShare = story.length ? story.filter((t) => s.termSet.has(t)).length / story.length : 0;
    storyShares.set(s, storyShare);
    const finished = /[.!?]["”’)]?$/.test(s.text) ? 1 : UNFINISHED;
    const rel = ((1 - STORY_WORDS) * coverage + STORY_WORDS * storyShare) * finished * (1 / (1 + 0.15 * s.position));
    s.coverage = coverage;
    s.matched = qTerms.filter((t) => s.termSet.has(t));
    s.relevance = rel;
    if (rel > 0 && (!best || rel > best.relevance)) best = s;
  }
  return best;
}

/**
 * Feeds that carry only headlines (no article text) still tell their story: the headline is
 * quoted as written, when it names the topic.
 */
function titleSentence(source: GroundingSource, qTerms: string[]): Sentence | undefined {
  const text = source.hit.title.trim();
  if (!text) return undefined;
  const termSet = new Set(terms(text));
  const matched = qTerms.filter((t) => termSet.has(t));
  if (qTerms.length && !matched.length) return undefined;
  const coverage = qTerms.length ? matched.length / qTerms.length : 1;
  // Only the fields a digest reads: the answer planner's own scores do not apply to a headline.
  return {
    source,
    text,
    position: 0,
    words: words(text),
    termSet,
    matched,
    coverage,
    relevance: coverage * UNFINISHED,
  } as Sentence;
}

export function planDigest(question: string, sources: GroundingSource[], opts: DigestOptions): AnswerPlan {
  const qTerms = opts.anyTopic ? [] : questionTermsOf(opts.matchText ?? question);
  const sentences = readSentences(sources, opts.poolPerSource);
  const base = { type: 'summary' as const, candidates: [], questionTerms: qTerms, considered: sentences.length };
  const present = new Set<string>();
  for (const s of sources) for (const t of terms(s.hit.title + ' ' + s.texts.join(' '))) present.add(t);
  const missing = qTerms.filter((t) => !present.has(t));
  // A digest about X needs articles about X: each of the question's topic terms in some article.
  if (!sentences.length || (qTerms.length && missing.length === qTerms.length))
    return {
      ...base,
      kind: 'decline',
      sentences: [],
      missing,
      notes: ['No article found is about the topic asked for.'],
    };
  // "What's new from Critical Role?": the question's topic is a feed's name (the same terms: not
  // "Brellac" of a paper named "Brellac Local"), and each of its items is news of its own (a
  // channel's episodes share their title's words, which made them one story told by one
  // episode): its items are told newest first, one each.
  const asked = new Set(qTerms);
  const fromFeed = qTerms.length
    ? sources.filter((s) => {
        const name = new Set(terms(s.hit.sourceName));
        return name.size === asked.size && qTerms.every((t) => name.has(t));
      })
    : [];
  const feedAsked = fromFeed.length >= 2;
  // A roundup's sources are the newest articles, each news of its own, told the same way.
  const perItem = feedAsked || opts.anyTopic === true;
  // A roundup's sources come in the pipeline's order (newest first, a few of a feed first:
  // ../pipelines/roundup.ts), which is the order its stories are chosen in; they are shown by date.
  const clusters = perItem
    ? (feedAsked ? [...fromFeed].sort((a, b) => (b.hit.publishedAt ?? 0) - (a.hit.publishedAt ?? 0)) : sources).map(
        (s) => clusterStories(opts.matchText ?? question, [s], SAME_STORY)[0]!,
      )
    : clusterStories(opts.matchText ?? question, sources, SAME_STORY);
  const byFeed = new Set(feedAsked ? qTerms : []);
  const repeats = feedRepeats(sources);
  // The sentences an item is told by: not a line its feed repeats in other items (a channel's
  // disclaimer, sponsor read, link list). An item of the feed asked for is read from its article's
  // start (its passages are the lines that best match the feed's name: the notes every item
  // repeats), without links, sponsors and calls to action, as the "latest X" answer reads it; so is
  // each of a roundup's newest articles.
  const ownSentences = (member: GroundingSource): Sentence[] =>
    perItem
      ? readSentences(member.article ? [{ ...member, texts: [member.article] }] : [member], opts.poolPerSource).filter(
          (s) => !PROMO.test(s.text) && !shouting(s.text) && !repeats(member, s.text),
        )
      : (bySource.get(member.n) ?? []).filter((s) => !repeats(member, s.text));
  const bySource = new Map<number, Sentence[]>();
  for (const s of sentences) bySource.set(s.source.n, [...(bySource.get(s.source.n) ?? []), s]);
  const picked: { sentence: Sentence; cluster: StoryCluster }[] = [];
  for (const cluster of clusters) {
    // The story is told from its best-ranked article that has a fitting sentence.
    for (const member of cluster.members) {
      const about =
        !qTerms.length || qTerms.some((t) => terms(member.hit.title + ' ' + member.texts.join(' ')).includes(t));
      if (!about) continue;
      const own = ownSentences(member);
      const s = bestSentence(cluster, own, qTerms, byFeed) ?? titleSentence(member, qTerms);
      if (s) {
        picked.push({ sentence: s, cluster });
        break;
      }
    }
    if (picked.length >= opts.stories) break;
  }
  picked.sort((a, b) => (b.sentence.source.hit.publishedAt ?? 0) - (a.sentence.source.hit.publishedAt ?? 0));
  const merged = picked.filter((p) => p.cluster.members.length > 1);
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  // Why each story is told by the sentence it is: the reasoning models show it in <think>.
  const why = picked.map(({ sentence: s, cluster }) => {
    const at = s.source.hit.publishedAt ? isoDay(s.source.hit.publishedAt) : 'undated';
    const share = storyShares.get(s);
    return `Story "${cluster.topTerms.slice(0, 3).join(', ')}" (${at}): quoting [${s.source.n}]${
      share === undefined
        ? `'s headline (its feed carries no article text), which names ${pct(s.coverage)} of the question's terms`
        : `, its sentence ${s.position + 1}: it covers ${pct(s.coverage)} of the question's terms and ${pct(share)} of the story's own words${s.position < 3 ? ', among the first read (a lede sums up its article)' : ''}`
    }.`;
  });
  return {
    ...base,
    kind: picked.length ? 'digest' : 'decline',
    sentences: picked.map((p) => p.sentence),
    missing,
    notes: [
      feedAsked
        ? `A summary of the feed asked for: ${fromFeed.length} of ${sources.length} articles are from a feed named ${qTerms.join(', ')}; ${picked.length} of its items told, newest first, one sentence each.`
        : `A summary: ${sources.length} articles grouped into ${clusters.length} stories; ${picked.length} told, one sentence each, newest first${picked[0] ? ` (the lead is the newest story, [${picked[0].sentence.source.n}])` : ''}.`,
      ...why,
      ...merged.map(
        (p) => `One story in [${p.cluster.members.map((m) => m.n).join(', ')}]: quoting [${p.sentence.source.n}] only.`,
      ),
    ],
  };
}
