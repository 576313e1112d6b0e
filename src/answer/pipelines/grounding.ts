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
  return Promise.all(
    hits.slice(0, count).map(async (hit, i) => ({ n: i + 1, hit, texts: await sourceTexts(hit, chars, search) })),
  );
}

/** The hit's passages (best first), then the article from its start, up to `chars` characters in all. */
export async function sourceTexts(hit: SearchHit, chars: number, search: SearchService): Promise<string[]> {
  const texts: string[] = [];
  let used = 0;
  for (const p of hit.passages) {
    if (used >= chars) break;
    texts.push(p.text);
    used += p.text.length;
  }
  if (used < chars && hit.itemId !== null) {
    const article = await search.articleText(hit.itemId);
    if (article?.text) texts.push(cutAtParagraph(article.text, chars - used));
  }
  return texts;
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
