// Running one or more searches for a pipeline and fusing their results. Several result lists (one
// per reformulated query) are merged by reciprocal rank fusion: robust to the lists' incomparable
// scores, and an article found by several queries rises.
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

const RRF_K = 60;

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
  return { hits: fuse(lists).slice(0, limit), runs: unique.map((query, i) => ({ query, found: lists[i].length })) };
}

/** Reciprocal rank fusion by URL; passages of the same article from different lists are merged. */
export function fuse(lists: SearchHit[][]): SearchHit[] {
  if (lists.length === 1) return lists[0];
  const byUrl = new Map<string, { hit: SearchHit; score: number }>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const e = byUrl.get(hit.url);
      const add = 1 / (RRF_K + rank + 1);
      if (!e) {
        byUrl.set(hit.url, { hit: { ...hit, passages: [...hit.passages] }, score: add });
        return;
      }
      e.score += add;
      for (const p of hit.passages) if (!e.hit.passages.some((x) => x.text === p.text)) e.hit.passages.push(p);
    });
  }
  return [...byUrl.values()].sort((a, b) => b.score - a.score).map((e) => ({ ...e.hit, score: e.score }));
}
