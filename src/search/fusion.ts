// Reciprocal rank fusion (Cormack et al., 2009): merges ranked lists whose scores are not
// comparable (BM25 of the local index, web result order, one list per reformulated query) using
// ranks only. k = 60 is the value from the paper; it keeps one list's top result from drowning the
// other's. The search service fuses the local index with web providers; the answer pipelines fuse
// the lists of several queries. Both use this one function, so an article is "the same" in both.
import type { SearchHit } from './types.ts';

export const RRF_K = 60;

/**
 * Fuses ranked lists into one, best first, at most `limit` hits. Hits of the same article (same
 * URL up to `fusionUrl`) add their reciprocal ranks and keep the passages of every list; the
 * local copy wins over a web one (it carries the item id). One list is returned as it is (its
 * scores stay the engine's own).
 */
export function reciprocalRankFusion(lists: SearchHit[][], limit = Number.POSITIVE_INFINITY, k = RRF_K): SearchHit[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  const fused = new Map<string, { hit: SearchHit; score: number }>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const key = fusionUrl(hit.url) || `item:${hit.itemId}`;
      const entry = fused.get(key);
      const add = 1 / (k + rank + 1);
      if (!entry) {
        fused.set(key, { hit, score: add });
        return;
      }
      entry.score += add;
      const [keep, other] = entry.hit.origin === 'web' && hit.origin === 'local' ? [hit, entry.hit] : [entry.hit, hit];
      const passages = [...keep.passages];
      for (const p of other.passages) if (!passages.some((x) => x.text === p.text)) passages.push(p);
      entry.hit = { ...keep, passages };
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ hit, score }) => ({ ...hit, score }));
}

/**
 * URL identity for fusion: scheme and host lowercased (WHATWG parsing does that), default port
 * and fragment dropped, one trailing slash ignored. Query strings stay: they often name the article.
 * A string that is not an absolute URL is compared as it is.
 */
export function fusionUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
