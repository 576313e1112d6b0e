// The local article index as a SearchProvider: scope and filters are checked, the question
// becomes an OR query over its content words, the index ranks articles (filters inside the
// ranking query), then the candidates' passages are scored and both combine (./ranking.ts).
import type { SearchIndexRepository, PassageFilter } from '../store/repositories.ts';
import { compileFilters } from './filters.ts';
import { queryTerms, orMatch } from './query.ts';
import { rankArticles, DEFAULT_RANKING, type RankingOptions } from './ranking.ts';
import { resolveScope } from './scope.ts';
import type { SearchHit, SearchProvider, SearchQuery } from './types.ts';

/** Passages returned with each article hit. */
const PASSAGES_PER_HIT = 3;

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
  compile(q: SearchQuery): PassageFilter {
    return { ...compileFilters(q.filters, this.now()), scope: resolveScope(q.scope, this.repo) };
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    return this.searchSync(q);
  }

  /**
   * The FTS5 expressions of a question: `all` OR-s every word the index knows; `select` picks the
   * candidates. Words found in most articles ("year", "people") would make the index score most
   * of the collection (the cost grows with every occurrence of every word): they are left out of
   * the selection, and the candidates the rarer words selected are scored again with all words.
   */
  matchExpressions(terms: string[]): { select: string; all: string } {
    const r = this.ranking;
    if (r.commonWordShare >= 1) return { select: orMatch(terms), all: orMatch(terms) };
    const df = this.repo.articleFrequencies(terms);
    const known = terms.filter((t) => (df.get(t) ?? 0) > 0);
    if (!known.length) return { select: '', all: '' };
    const n = Math.max(1, this.repo.articleCount());
    const byRarity = [...known].sort((a, b) => df.get(a)! - df.get(b)!);
    const rare = byRarity.filter((t, i) => i < r.minSelectingWords || df.get(t)! / n <= r.commonWordShare);
    return { select: orMatch(rare), all: orMatch(known) };
  }

  searchSync(q: SearchQuery): SearchHit[] {
    const filter = this.compile(q);
    const terms = queryTerms(q.text);
    if (!terms.length || q.limit <= 0) return [];
    const r = this.ranking;
    const { select, all } = this.matchExpressions(terms);
    if (!all) return [];
    const weights = { title: r.titleWeight, body: r.bodyWeight };
    let candidates = this.repo.searchArticles(select, filter, Math.max(r.minCandidates, q.limit * r.candidatesPerResult), weights);
    if (select !== all) candidates = this.repo.scoreArticles(all, candidates.map((c) => c.itemId), weights);
    const passages = this.repo.passagesOf(all, candidates.map((c) => c.itemId), weights);
    const ranked = rankArticles(candidates, passages, r).slice(0, q.limit);
    const meta = new Map(this.repo.articles(ranked.map((a) => a.itemId)).map((m) => [m.id, m]));
    const hits: SearchHit[] = [];
    for (const a of ranked) {
      const m = meta.get(a.itemId);
      if (!m) continue; // deleted between the two reads
      hits.push({
        itemId: m.id,
        url: m.url,
        title: m.title,
        sourceName: m.feedTitle,
        publishedAt: m.publishedAt,
        updatedAt: m.updatedAt,
        passages: a.passages.slice(0, PASSAGES_PER_HIT).map((p) => ({ text: p.text, score: p.score })),
        score: a.score,
        imageUrl: m.imageUrl,
        origin: 'local',
      });
    }
    return hits;
  }
}
