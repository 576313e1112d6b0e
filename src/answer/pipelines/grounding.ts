// From search hits to the numbered sources an engine answers from, and to the `search_results`
// entries callers show: how much text each source contributes depends on search_context_size.
import type { SearchHit, SearchService } from '../../search/types.ts';
import type { GroundingSource } from '../engines/engine.ts';
import type { SearchContextSize, SearchResultRef } from '../types.ts';
import { TEXT_PER_SOURCE } from './profiles.ts';

export async function groundingSources(
  hits: SearchHit[],
  count: number,
  size: SearchContextSize,
  search: SearchService,
): Promise<GroundingSource[]> {
  const chars = TEXT_PER_SOURCE[size];
  const sources = hits.slice(0, count).map((hit, i) => ({ n: i + 1, hit, ...bestPassages(hit, chars) }));
  // The articles of every source that still has room, in one read (not one per source).
  const wanted = sources.filter((s) => s.used < chars && s.hit.itemId !== null).map((s) => s.hit.itemId!);
  const articles = wanted.length ? await search.articleTexts(wanted) : new Map<number, { text: string }>();
  return sources.map(({ n, hit, texts, used }) => ({ n, hit, texts: withArticle(texts, used, chars, hit, articles) }));
}

/** The hit's passages, best first, while they fit in `chars` characters. */
function bestPassages(hit: SearchHit, chars: number): { texts: string[]; used: number } {
  const texts: string[] = [];
  let used = 0;
  for (const p of hit.passages) {
    if (used >= chars) break;
    texts.push(p.text);
    used += p.text.length;
  }
  return { texts, used };
}

/** Then the article from its start, up to `chars` characters in all. */
function withArticle(
  texts: string[],
  used: number,
  chars: number,
  hit: SearchHit,
  articles: Map<number, { text: string }>,
): string[] {
  const article = used < chars && hit.itemId !== null ? articles.get(hit.itemId) : undefined;
  return article?.text ? [...texts, cutAtParagraph(article.text, chars - used)] : texts;
}

function cutAtParagraph(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.lastIndexOf('\n', chars);
  if (cut > chars / 2) return text.slice(0, cut);
  const sentenceEnd = text.lastIndexOf('. ', chars);
  return text.slice(0, sentenceEnd > 0 ? sentenceEnd + 1 : chars);
}

function isoDay(unixSeconds: number | null): string | null {
  return unixSeconds === null || !Number.isFinite(unixSeconds)
    ? null
    : new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

export function searchResultRef(hit: SearchHit): SearchResultRef {
  const snippet = (hit.passages[0]?.text ?? '').replace(/\s+/g, ' ').trim();
  return {
    title: hit.title || hit.url,
    url: hit.url,
    date: isoDay(hit.publishedAt),
    last_updated: isoDay(hit.updatedAt ?? hit.publishedAt),
    snippet: snippet.length > 400 ? snippet.slice(0, 397).replace(/\s+\S*$/, '') + '…' : snippet,
    source: 'web',
  };
}
