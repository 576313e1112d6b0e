// Full-text search over the user's own articles (src/search), scoped to the open feed or folder,
// with the matched words located so the page can highlight them without parsing HTML.
import type { App } from '../runtime/app.ts';
import type { SearchScope } from '../answer/types.ts';
import { searchService } from '../search/service.ts';
import { SearchFilterError, type SearchHit } from '../search/types.ts';
import { indexTerms } from '../search/tokenizer.ts';
import { readerStore } from '../library/repositories.ts';
import { originsOf, userCatalog } from '../library/catalog.ts';
import { webUrl, type View } from './articles.ts';
import { badRequest, notFound } from './errors.ts';

export interface SearchResult {
  id: number;
  title: string;
  url: string | null;
  feedId: number;
  feedTitle: string;
  publishedAt: number | null;
  snippet: string;
  /** [start, end) character ranges of matched words in title and snippet. */
  titleMatches: [number, number][];
  snippetMatches: [number, number][];
  read: boolean;
  starred: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Ranges of the words of `text` whose index term is one of the query's (stemmed as the index stems). */
function matchRanges(text: string, terms: Set<string>): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(WORD)) {
    const t = indexTerms(m[0])[0];
    if (t !== undefined && terms.has(t)) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

async function searchScope(app: App, userId: number, view: View): Promise<SearchScope> {
  switch (view.kind) {
    case 'all':
    case 'unread':
      return { kind: 'subscriptions', userId };
    case 'starred':
      return { kind: 'streams', userId, streamIds: ['user/-/state/com.google/starred'] };
    case 'folder':
      return { kind: 'streams', userId, streamIds: [`user/-/label/${view.name}`] };
    case 'feed': {
      const e = (await userCatalog(app, userId)).byFeed.get(view.feedId);
      if (!e) throw notFound(`no subscription with feed id ${view.feedId}`);
      return { kind: 'streams', userId, streamIds: [`feed/${e.url}`] };
    }
  }
}

export async function searchArticles(
  app: App,
  userId: number,
  text: unknown,
  view: View,
  limit: number,
): Promise<SearchResult[]> {
  if (typeof text !== 'string' || !text.trim()) throw badRequest('q: type the words to search for', 'q');
  if (text.length > 500) throw badRequest('q: at most 500 characters', 'q');
  let hits: SearchHit[];
  try {
    hits = await searchService(app).search({ text, scope: await searchScope(app, userId, view), filters: {}, limit });
  } catch (e) {
    if (e instanceof SearchFilterError) throw badRequest(e.message, 'q');
    throw e;
  }
  const local = hits.filter((h) => h.itemId !== null);
  const states = new Map(
    (
      await readerStore(app).streams.statesByIds(
        userId,
        local.map((h) => h.itemId!),
      )
    ).map((s) => [s.itemId, s]),
  );
  const origins = await originsOf(app, userId, new Set([...states.values()].map((s) => s.feedId)));
  const terms = new Set(indexTerms(text));
  const out: SearchResult[] = [];
  for (const h of local) {
    const s = states.get(h.itemId!);
    if (!s) continue;
    const snippet = (h.passages[0]?.text ?? '').slice(0, 400);
    out.push({
      id: s.itemId,
      title: h.title,
      url: webUrl(h.url),
      feedId: s.feedId,
      feedTitle: origins.get(s.feedId)?.title ?? h.sourceName,
      publishedAt: h.publishedAt,
      snippet,
      titleMatches: matchRanges(h.title, terms),
      snippetMatches: matchRanges(snippet, terms),
      read: s.read === 1,
      starred: s.starred === 1,
    });
  }
  return out;
}
