// Running one or more searches for a pipeline and fusing their results. Several result lists (one
// per reformulated query) are merged by reciprocal rank fusion: robust to the lists' incomparable
// scores, and an article found by several queries rises. Near-duplicates (one story under two URLs,
// or syndicated on two sites) are then dropped, so the sources listed are distinct stories.
import { reciprocalRankFusion, withoutNearDuplicates } from '../../search/fusion.ts';
import type { SearchHit, SearchService } from '../../search/types.ts';
import type { SearchFilters, SearchScope } from '../types.ts';

export interface SearchRun {
  query: string;
  found: number;
}

export interface Retrieval {
  hits: SearchHit[];
  runs: SearchRun[];
}

export async function searchAll(
  search: SearchService,
  queries: string[],
  scope: SearchScope,
  filters: SearchFilters,
  limit: number,
  signal?: AbortSignal,
): Promise<Retrieval> {
  const unique = [...new Set(queries.map((q) => q.trim()).filter(Boolean))];
  const lists = await Promise.all(unique.map((text) => search.search({ text, scope, filters, limit }, signal)));
  return {
    hits: withoutNearDuplicates(reciprocalRankFusion(lists)).slice(0, limit),
    runs: unique.map((query, i) => ({ query, found: lists[i].length })),
  };
}
