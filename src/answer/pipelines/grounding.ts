// From search hits to the numbered sources an engine answers from, and to the `search_results`
// entries callers show: how much text each source contributes depends on search_context_size.
import type { SearchHit, SearchService } from '../../search/types.ts';
import { scorePassages } from '../../search/passage-score.ts';
import { queryTerms } from '../../search/query.ts';
import { answerTypeOf, hasAnswerType, type AnswerType } from '../text/answer-type.ts';
import { namesSubjectIn, subjectWords } from '../text/subject.ts';
import { words } from '../text/terms.ts';
import type { GroundingSource } from '../engines/engine.ts';
import type { SearchContextSize, SearchResultRef } from '../types.ts';
import { TEXT_PER_SOURCE } from './profiles.ts';

/** Answer types a paragraph can be seen to carry (a number, a date, a name, a place). */
const FACT_TYPES = new Set<AnswerType>(['number', 'date', 'person', 'place', 'org', 'name']);
/** Paragraphs shorter than this are headings or captions, not where a fact is stated. */
const MIN_PARAGRAPH = 40;

export async function groundingSources(
  hits: SearchHit[],
  count: number,
  size: SearchContextSize,
  search: SearchService,
  /**
   * The question (its answer type) and what was searched for it (a follow-up's carried topic): for
   * a fact question, the article's own paragraph that states the fact is added; `digest`: told as a
   * digest whatever its answer type (a roundup, "what did X announce?").
   */
  ask?: { question: string; query: string; digest?: boolean },
  /**
   * Hits read from their article's start instead of their passages: what "what is the latest X
   * about?" asks of the newest X is what its opening says (./newest-of-kind.ts).
   */
  fromStart?: (hit: SearchHit) => boolean,
): Promise<GroundingSource[]> {
  const chars = TEXT_PER_SOURCE[size];
  const sources = hits
    .slice(0, count)
    .map((hit, i) => ({ n: i + 1, hit, ...(fromStart?.(hit) ? { texts: [], used: 0 } : bestPassages(hit, chars)) }));
  const type = ask?.digest ? 'summary' : ask ? answerTypeOf(ask.question) : 'none';
  const fact =
    ask && FACT_TYPES.has(type)
      ? { type, terms: queryTerms(`${ask.question} ${ask.query}`), asked: new Set(words(ask.question)) }
      : undefined;
  // A digest tells each item by a line of its own, not one its feed repeats in every item (a show's
  // notes): that is told from the whole articles of the sources whose feed gives another source.
  const feedmates = type === 'summary' ? sharingFeed(sources.map((s) => s.hit)) : undefined;
  // The articles of every source that still has room (and for a fact question, of every source),
  // in one read (not one per source).
  const wanted = sources
    .filter((s) => (fact || s.used < chars || feedmates?.has(s.hit)) && s.hit.itemId !== null)
    .map((s) => s.hit.itemId!);
  const articles = wanted.length ? await search.articleTexts(wanted) : new Map<number, { text: string }>();
  return sources.map(({ n, hit, texts, used }) => {
    const article = hit.itemId !== null ? articles.get(hit.itemId)?.text : undefined;
    const stated =
      fact && article
        ? statingParagraph(article, texts, fact.terms, chars, (p) =>
            fact.type === 'name'
              ? namesSubjectIn(p, subjectWords(hit.title, hit.url), fact.asked)
              : hasAnswerType(p, fact.type),
          )
        : undefined;
    const given = stated ? [...texts, stated] : texts;
    const grounded: GroundingSource = {
      n,
      hit,
      texts: withArticle(given, used + (stated?.length ?? 0), chars, article),
    };
    if (article) grounded.article = article;
    return grounded;
  });
}

/**
 * The paragraph of the article that best states the fact asked for, when the search's passages
 * lack it: the best paragraph by BM25 over the article's own paragraphs (so the question's word the
 * article rarely uses, "price", outweighs the one it repeats, "Anker", whereas the search weighs
 * words across all the articles it matched), among those carrying the answer type (a number, a
 * date, a name; for "what is X called", a name the headline or address gives), if no text given
 * carries it or it outscores every paragraph given. Undefined otherwise.
 */
export function statingParagraph(
  article: string,
  given: string[],
  terms: string[],
  chars: number,
  /** Whether a paragraph carries the answer type (a name question: names the article's subject). */
  carries: (paragraph: string) => boolean,
): string | undefined {
  const paragraphs = article
    .split(/\n+/)
    .map((p) => p.trim())
    .filter((p) => p.length >= MIN_PARAGRAPH);
  if (paragraphs.length < 2 || !terms.length) return undefined;
  const scores = scorePassages(paragraphs, terms);
  // A paragraph is given when a passage holds it or its opening (passages cut at sentences).
  const isGiven = (p: string) => given.some((t) => t.includes(p.slice(0, 80)));
  let best = -1;
  let givenBest = 0;
  paragraphs.forEach((p, i) => {
    // A paragraph with no word of the question changes neither (scores are never negative): most
    // of an article's are, and the given test searches every given text.
    if (!(scores[i]! > 0)) return;
    if (isGiven(p)) givenBest = Math.max(givenBest, scores[i]!);
    else if (scores[i]! > 0 && carries(p) && (best < 0 || scores[i]! > scores[best]!)) best = i;
  });
  if (best < 0 || (scores[best]! <= givenBest && given.some(carries))) return undefined;
  return cutAtParagraph(paragraphs[best]!, chars);
}

/** The hits from a feed that gives another of the hits. */
function sharingFeed(hits: SearchHit[]): Set<SearchHit> {
  const count = new Map<string, number>();
  for (const h of hits) count.set(h.sourceName, (count.get(h.sourceName) ?? 0) + 1);
  return new Set(hits.filter((h) => count.get(h.sourceName)! > 1));
}

/** The hit's passages, best first, while they fit in `chars` characters. */
function bestPassages(hit: SearchHit, chars: number): { texts: string[]; used: number } {
  const texts: string[] = [];
  let used = 0;
  for (const p of hit.passages) {
    if (used >= chars) break;
    texts.push(p.text);
    used += p.text.length;
  }
  return { texts, used };
}

/** Then the article from its start, up to `chars` characters in all. */
function withArticle(texts: string[], used: number, chars: number, article: string | undefined): string[] {
  return article && used < chars ? [...texts, cutAtParagraph(article, chars - used)] : texts;
}

function cutAtParagraph(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.lastIndexOf('\n', chars);
  if (cut > chars / 2) return text.slice(0, cut);
  const sentenceEnd = text.lastIndexOf('. ', chars);
  return text.slice(0, sentenceEnd > 0 ? sentenceEnd + 1 : chars);
}

function isoDay(unixSeconds: number | null): string | null {
  return unixSeconds === null || !Number.isFinite(unixSeconds)
    ? null
    : new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

export function searchResultRef(hit: SearchHit): SearchResultRef {
  const snippet = (hit.passages[0]?.text ?? '').replace(/\s+/g, ' ').trim();
  return {
    title: hit.title || hit.url,
    url: hit.url,
    date: isoDay(hit.publishedAt),
    last_updated: isoDay(hit.updatedAt ?? hit.publishedAt),
    snippet: snippet.length > 400 ? snippet.slice(0, 397).replace(/\s+\S*$/, '') + '…' : snippet,
    source: 'web',
  };
}
