// Article ranking from passage matches. The index scores passages (BM25 over title + passage);
// an article's score combines its best passage with its next best ones, so an article that
// discusses the topic in several places beats one that mentions it once, while one strong
// passage still counts most. The options are the knobs the benchmark (bench/search.bench.ts) turns.
import type { PassageMatch } from '../store/repositories.ts';

export interface RankingOptions {
  /** BM25 column weights: a word in the title counts this many times a word in the passage. */
  titleWeight: number;
  bodyWeight: number;
  /** Passages fetched from the index per requested article. */
  passagesPerArticle: number;
  /** Minimum passages fetched, whatever the limit. */
  minPassages: number;
  /** Weight of the sum of the article's next best passages (0: best passage only). */
  supportWeight: number;
  /** How many further passages count as support. */
  supportPassages: number;
}

export const DEFAULT_RANKING: RankingOptions = {
  titleWeight: 3,
  bodyWeight: 1,
  passagesPerArticle: 30,
  minPassages: 300,
  supportWeight: 0.3,
  supportPassages: 3,
};

export interface RankedArticle {
  itemId: number;
  score: number;
  /** Best first. */
  passages: PassageMatch[];
}

export function aggregateByArticle(matches: PassageMatch[], opts: RankingOptions): RankedArticle[] {
  const byItem = new Map<number, PassageMatch[]>();
  for (const m of matches) {
    let list = byItem.get(m.itemId);
    if (!list) byItem.set(m.itemId, (list = []));
    list.push(m);
  }
  const ranked: RankedArticle[] = [];
  for (const [itemId, passages] of byItem) {
    passages.sort((a, b) => b.score - a.score);
    let score = passages[0]!.score;
    for (let i = 1; i <= opts.supportPassages && i < passages.length; i++) score += opts.supportWeight * passages[i]!.score;
    ranked.push({ itemId, score, passages });
  }
  return ranked.sort((a, b) => b.score - a.score || a.itemId - b.itemId);
}
