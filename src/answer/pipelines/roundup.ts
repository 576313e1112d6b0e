// "What's new?", "What happened today?" (../text/roundup-asked.ts): the sources of a roundup are
// the newest articles in the asker's scope under the request's filters, at most a few of one feed
// first, since a roundup of one busy feed's last hour is no roundup (over the real-world feeds,
// all 5 stories of "What's new?" were one software site's tutorials).
import type { SearchHit, SearchService } from '../../search/types.ts';
import type { SearchFilters, SearchScope } from '../types.ts';
import { isRoundupAsked } from '../text/roundup-asked.ts';
import { describeFilters } from './trace-text.ts';

/** Newest articles a roundup chooses from, and how many of one feed lead it. */
const POOL = 100;
const PER_FEED = 2;

/** Whether to answer with a roundup: the question names no topic, nor does its search query (a follow-up's). */
export const isRoundup = (question: string, query: string) => isRoundupAsked(question) && isRoundupAsked(query);

/**
 * `limit` hits in their order with at most `perFeed` of one feed first, then the rest in order.
 */
export function fewPerFeed(hits: SearchHit[], perFeed: number, limit: number): SearchHit[] {
  const count = new Map<string, number>();
  const first: SearchHit[] = [];
  const later: SearchHit[] = [];
  for (const h of hits) {
    const n = count.get(h.sourceName) ?? 0;
    count.set(h.sourceName, n + 1);
    (n < perFeed ? first : later).push(h);
  }
  return [...first, ...later].slice(0, limit);
}

/** The roundup's sources (one billed search), and what was done, for the reasoning trace. */
export async function roundupHits(
  search: SearchService,
  scope: SearchScope,
  filters: SearchFilters,
  limit: number,
  signal?: AbortSignal,
): Promise<{ hits: SearchHit[]; note: string }> {
  const hits = fewPerFeed(await search.newest({ scope, filters, limit: POOL }, signal), PER_FEED, limit);
  const newest = hits.find((h) => h.publishedAt !== null)?.publishedAt;
  return {
    hits,
    note: `A roundup: the question names no topic, so the sources are the ${hits.length} newest articles${describeFilters(filters)}, at most ${PER_FEED} of a feed first${newest ? ` (the newest from ${new Date(newest * 1000).toISOString().slice(0, 10)})` : ''}.`,
  };
}
