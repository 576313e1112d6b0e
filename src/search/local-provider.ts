// The local article index as a SearchProvider: scope and filters are checked, the question's
// content words are stemmed, the article index ranks articles by BM25 with the filters applied
// while scoring (./article-index.ts), then the candidates' passages are scored and both combine
// (./ranking.ts).
import type {
  ArticleMatch,
  PassageFilter,
  PassageMatch,
  SearchArticleMeta,
  SearchIndexRepository,
} from '../store/repositories.ts';
import { scorePassages } from './passage-score.ts';
import { compileFilters } from './filters.ts';
import { queryTerms } from './query.ts';
import { articleIndexOf, queryStems } from './article-index.ts';
import { articleScoring, rankArticles, DEFAULT_RANKING, type RankingOptions } from './ranking.ts';
import { resolveScope } from './scope.ts';
import type { NewestQuery, Passage, ScopeFeed, SearchHit, SearchProvider, SearchQuery, SearchScope } from './types.ts';

/** Words of a query searched at most (see LocalIndexProvider.telling). */
export const MAX_QUERY_WORDS = 32;

/** Feeds whose names are read at once (./local-provider.ts feedNames). */
const FEED_NAMES_PAGE = 1000;

/** Passages returned with each article hit. */
const PASSAGES_PER_HIT = 3;

/** A passage of a hit (see LocalHit). */
class HitPassage implements Passage {
  text: string;
  score: number;
  constructor(text: string, score: number) {
    this.text = text;
    this.score = score;
  }
}

/**
 * A local hit, made by a constructor rather than an object literal: V8 pretenured the literal's
 * allocation site (a hit lives through the answer), so hits were born in the old generation and
 * their young passages and strings were kept by every scavenge until a full collection, dead or
 * not (issue 26.4; as the passage rows in the store). A function, so that SearchHit's fields are
 * not declared twice; they are set in the literal's order.
 */
const LocalHit = function (this: SearchHit, m: SearchArticleMeta, passages: Passage[], score: number) {
  this.itemId = m.id;
  this.url = m.url;
  this.title = m.title;
  this.sourceName = m.feedTitle;
  this.publishedAt = m.publishedAt;
  this.updatedAt = m.updatedAt;
  this.passages = passages;
  this.score = score;
  this.imageUrl = m.imageUrl;
  this.origin = 'local';
} as unknown as new (
  m: SearchArticleMeta,
  passages: Passage[],
  score: number,
) => SearchHit;

export interface LocalProviderOptions {
  now?: () => number;
  ranking?: Partial<RankingOptions>;
}

export class LocalIndexProvider implements SearchProvider {
  readonly name = 'local';
  private readonly repo: SearchIndexRepository;
  private readonly now: () => number;
  readonly ranking: RankingOptions;

  constructor(repo: SearchIndexRepository, opts: LocalProviderOptions = {}) {
    this.repo = repo;
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.ranking = { ...DEFAULT_RANKING, ...opts.ranking };
  }

  /** Validates filters and scope (throws SearchFilterError) into the index's filter. */
  async compile(q: SearchQuery): Promise<PassageFilter> {
    const filters = compileFilters(q.filters, this.now());
    return { ...filters, scope: await resolveScope(q.scope, this.repo) };
  }

  /**
   * Passages of the best candidates (at least as many as the results asked for), scored by BM25
   * in memory against the question's words; unmatched passages score 0 (the lead then serves as
   * the snippet of an article matched by its title only).
   */
  private async scoreInMemory(candidates: ArticleMatch[], terms: string[], limit: number): Promise<PassageMatch[]> {
    const best = [...candidates]
      .sort((a, b) => b.score - a.score)
      .slice(0, Math.max(limit, this.ranking.passageCandidates));
    const passages = await this.repo.passageTexts(best.map((c) => c.itemId));
    const scores = scorePassages(
      passages.map((p) => p.text),
      terms,
      passages.map((p) => p.words),
    );
    // The rows are fresh from the store: scored in place (copying them was 6 % of an answer).
    passages.forEach((p, i) => {
      p.score = scores[i]!;
    });
    return passages;
  }

  /**
   * A long query (a pasted article, a long chat turn) keeps its MAX_QUERY_WORDS most telling
   * words, the rarest in the index, as Lucene's MoreLikeThis does: each word costs a postings read
   * and a passage-scoring pattern, and 20,000 words took 2 s.
   */
  private async telling(words: string[]): Promise<string[]> {
    if (words.length <= MAX_QUERY_WORDS) return words;
    const stems = words.map((w) => queryStems([w])[0] ?? w);
    const df = await this.repo.postingCounts([...new Set(stems)]);
    return words
      .map((w, i) => ({ w, i, df: df.get(stems[i]!) ?? 0 }))
      .filter((x) => x.df > 0)
      .sort((a, b) => a.df - b.df || a.i - b.i)
      .slice(0, MAX_QUERY_WORDS)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.w);
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    const filter = await this.compile(q);
    const terms = await this.telling(queryTerms(q.text));
    if (!terms.length || q.limit <= 0) return [];
    const r = this.ranking;
    const scoring = articleScoring(r);
    const candidates = await articleIndexOf(this.repo).search(
      queryStems(terms),
      filter,
      Math.max(r.minCandidates, q.limit * r.candidatesPerResult),
      scoring,
    );
    const passages = await this.scoreInMemory(candidates, terms, q.limit);
    const ranked = rankArticles(candidates, passages, r).slice(0, q.limit);
    return this.hitsOf(ranked);
  }

  /**
   * The `limit` newest articles in scope under the filters, newest first, each with its opening
   * passages (a lede says what its article is about): a roundup ("what's new?") asks for no words.
   */
  async newest(q: NewestQuery): Promise<SearchHit[]> {
    const filter = await this.compile({ ...q, text: '' });
    if (q.feedIds) filter.onlyFeeds = q.feedIds;
    const articles = await articleIndexOf(this.repo).newest(filter, q.limit);
    const passages = await this.repo.passageTexts(articles.map((a) => a.itemId));
    const byItem = new Map<number, PassageMatch[]>();
    for (const p of passages) {
      const own = byItem.get(p.itemId);
      if (own) own.push(p);
      else byItem.set(p.itemId, [p]);
    }
    return this.hitsOf(
      articles.map((a) => ({
        itemId: a.itemId,
        score: a.score,
        passages: (byItem.get(a.itemId) ?? []).sort((x, y) => x.ord - y.ord),
      })),
    );
  }

  /**
   * The feeds of the scope and their names (../store: the user's own titles), read in pages of
   * FEED_NAMES_PAGE with a turn of the event loop between them: 10,000 subscriptions with long
   * names were one read of 140-260 ms at load 17 (test/freeze-guard.test.ts).
   */
  async feedNames(scope: SearchScope, limit: number): Promise<ScopeFeed[]> {
    const resolved = await resolveScope(scope, this.repo);
    const out: ScopeFeed[] = [];
    let after = 0;
    while (out.length < limit) {
      if (out.length) await new Promise((r) => setImmediate(r));
      const page = await this.repo.feedNames(resolved, Math.min(FEED_NAMES_PAGE, limit - out.length), after);
      for (const f of page) out.push(f);
      if (page.length < FEED_NAMES_PAGE) break;
      after = page[page.length - 1]!.feedId;
    }
    return out;
  }

  /** Hits for ranked articles, with their metadata (an article deleted meanwhile is left out). */
  private async hitsOf(ranked: { itemId: number; score: number; passages: PassageMatch[] }[]): Promise<SearchHit[]> {
    const meta = new Map((await this.repo.articles(ranked.map((a) => a.itemId))).map((m) => [m.id, m]));
    const hits: SearchHit[] = [];
    for (const a of ranked) {
      const m = meta.get(a.itemId);
      if (!m) continue; // deleted between the two reads
      const kept = a.passages.slice(0, PASSAGES_PER_HIT).map((p) => new HitPassage(p.text, p.score));
      hits.push(new LocalHit(m, kept, a.score));
    }
    return hits;
  }
}
