// Article ranking. Candidates come from BM25 over whole articles (the strongest single signal on
// the news benchmark); each candidate's best matching passage adds a bonus, so an article whose
// match is concentrated in one place (a passage that answers) moves up. Both scores are scaled
// by the best candidate's score first, so the weight means the same for every query.
// The options are the knobs the benchmark (bench/search.bench.ts) turns; BENCHMARKS.md has the
// figures behind the defaults.
import type { ArticleMatch, PassageMatch } from '../store/repositories.ts';
import type { ArticleScoring } from './article-index.ts';

export interface RankingOptions {
  /** BM25 field weights: a word in the title counts this many times a word in the body… */
  titleWeight: number;
  bodyWeight: number;
  /** …and a word of the URL's path this many times. */
  urlWeight: number;
  /** BM25 term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** BM25+'s per-matched-term bonus (0: plain BM25; see ArticleScoring.delta). */
  delta: number;
  /** Articles fetched from the index and re-ranked, at least this many… */
  minCandidates: number;
  /** …or this many per requested article. */
  candidatesPerResult: number;
  /** Weight of the best passage's (scaled) score next to the article's (scaled) score. */
  passageWeight: number;
  /** The passages of this many best candidates are scored (BM25 in memory). */
  passageCandidates: number;
}

export const DEFAULT_RANKING: RankingOptions = {
  titleWeight: 3,
  bodyWeight: 1,
  urlWeight: 0,
  k1: 1.2,
  b: 0.75,
  // BM25+ with delta 1: +0.016 recall@10 on the news benchmark, +0.019 on questions it was not
  // tuned on (BENCHMARKS.md, ## Search).
  delta: 1,
  minCandidates: 50,
  candidatesPerResult: 5,
  passageWeight: 0.3,
  // 20 instead of 30: same quality on the news benchmark (-0.001 / +0.003 / 0), -20 % p50.
  passageCandidates: 20,
};

/** The article index's BM25 settings (ArticleIndex.search) for these ranking options. */
export function articleScoring(r: RankingOptions): ArticleScoring {
  return {
    weights: { title: r.titleWeight, body: r.bodyWeight, url: r.urlWeight },
    k1: r.k1,
    b: r.b,
    delta: r.delta,
  };
}

export interface RankedArticle {
  itemId: number;
  score: number;
  /** Best first. */
  passages: PassageMatch[];
}

export function rankArticles(
  articles: ArticleMatch[],
  passages: PassageMatch[],
  opts: RankingOptions,
): RankedArticle[] {
  const byItem = new Map<number, PassageMatch[]>();
  for (const p of passages) {
    let list = byItem.get(p.itemId);
    if (!list) byItem.set(p.itemId, (list = []));
    list.push(p);
  }
  const bestArticle = Math.max(1e-9, ...articles.map((a) => a.score));
  const bestPassage = Math.max(1e-9, ...passages.map((p) => p.score));
  const ranked = articles.map((a) => {
    const own = (byItem.get(a.itemId) ?? []).sort((x, y) => y.score - x.score || x.ord - y.ord);
    const passageScore = own.length ? own[0]!.score / bestPassage : 0;
    return { itemId: a.itemId, score: a.score / bestArticle + opts.passageWeight * passageScore, passages: own };
  });
  return ranked.sort((a, b) => b.score - a.score || a.itemId - b.itemId);
}
