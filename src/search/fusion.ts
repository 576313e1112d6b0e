// Reciprocal rank fusion (Cormack et al., 2009): merges ranked lists whose scores are not
// comparable (BM25 of the local index, web result order) using ranks only. k = 60 is the value
// from the paper; it keeps one list's top result from drowning the other's.
import type { SearchHit } from './types.ts';

export const RRF_K = 60;

export function reciprocalRankFusion(lists: SearchHit[][], limit: number, k = RRF_K): SearchHit[] {
  const fused = new Map<string, { hit: SearchHit; score: number }>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const key = normalizeUrl(hit.url) || `item:${hit.itemId}`;
      const entry = fused.get(key);
      const add = 1 / (k + rank + 1);
      // The same article from both sides keeps the local copy (it carries the item id).
      if (entry) {
        entry.score += add;
        if (entry.hit.origin === 'web' && hit.origin === 'local') entry.hit = hit;
      } else {
        fused.set(key, { hit, score: add });
      }
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ hit, score }) => ({ ...hit, score }));
}

/** URL identity for fusion: no fragment, no trailing slash, host lowercased. */
export function normalizeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
