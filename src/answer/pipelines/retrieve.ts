// Running one or more searches for a pipeline and fusing their results. Several result lists (one
// per reformulated query, the question as asked first) are merged by reciprocal rank fusion behind
// the question's own best hits: robust to the lists' incomparable scores, an article found by
// several queries rises, and the names-only search no longer pushes the question's best hits
// down (on the news judge, sonar-pro's success@5 / MRR went from 0.885 / 0.776 to 0.909 / 0.819
// on the even questions, 0.882 / 0.761 to 0.891 / 0.795 on the odd ones). Near-duplicates (one story under two URLs,
// or syndicated on two sites) are then dropped, so the sources listed are distinct stories.
import { fuseKeepingLead, withoutNearDuplicates } from '../../search/fusion.ts';
import type { SearchHit, SearchService } from '../../search/types.ts';
import type { SearchFilters, SearchScope } from '../types.ts';

/** Hits of the first query (the question as asked) that keep their places in the fused list. */
export const LEAD_KEPT = 5;

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
    hits: withoutNearDuplicates(fuseKeepingLead(lists, LEAD_KEPT), undefined, limit),
    runs: unique.map((query, i) => ({ query, found: lists[i].length })),
  };
}
