// search/items/ids: full-text search over the user's own items (Inoreader's and Google Reader's
// endpoint), backed by the local article index of src/search. Results are item ids in relevance
// order; clients then read them with stream/items/contents. Only the user's items come back:
// the index scope is the user's subscriptions (or one of their streams), and every hit is checked
// against the user's own rows, so items hidden by a filter rule or belonging to feeds the user
// does not follow never appear.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import { LocalIndexProvider } from '../search/local-provider.ts';
import { flushSearchIndexing, searchIndexRepository } from '../search/indexing.ts';
import { SearchFilterError } from '../search/types.ts';
import type { SearchScope } from '../search/types.ts';
import { ReaderError } from './errors.ts';
import { formatStreamId, parseStreamId, READING_LIST, type StreamId } from './ids.ts';
import { readerStore } from '../library/repositories.ts';
import { STATE_COLUMN } from '../library/stream-filter.ts';
import type { ReaderItemState, StateColumn } from '../model/stream.ts';
import type { SearchHit } from '../search/types.ts';

export const DEFAULT_SEARCH_N = 50;
export const MAX_SEARCH_N = 1000;
export const MAX_QUERY_CHARS = 1000;

/** Only the local index: a reader's search never goes to the web (nor bills a web search). */
const localIndex = perApp((app) => new LocalIndexProvider(searchIndexRepository(app)));

export interface SearchRequest {
  q: string | undefined;
  stream: string | undefined;
  n: string | undefined;
  /** xt: states the results must not have (…/read for unread only). */
  exclude: string[];
}

export interface SearchResult {
  itemId: number;
  crawledUs: number;
}

function stateColumnOf(s: StreamId, param: string): StateColumn {
  if (s.kind !== 'state' || s.state === 'reading-list') {
    throw new ReaderError(
      400,
      `${param}=${formatStreamId(s)}: search takes only states here (e.g. xt=user/-/state/com.google/read for unread items)`,
    );
  }
  return STATE_COLUMN[s.state];
}

export async function searchItems(app: App, userId: number, req: SearchRequest): Promise<SearchResult[]> {
  const q = req.q?.trim();
  if (!q) throw new ReaderError(400, 'missing parameter q: the words to search for');
  if (q.length > MAX_QUERY_CHARS)
    throw new ReaderError(400, `q is too long (${q.length} characters): at most ${MAX_QUERY_CHARS}`);
  let n = DEFAULT_SEARCH_N;
  if (req.n?.trim()) {
    n = Number(req.n.trim());
    if (!Number.isFinite(n) || n < 1)
      throw new ReaderError(
        400,
        `n must be a positive whole number (results, at most ${MAX_SEARCH_N}), got "${req.n}"`,
      );
    n = Math.min(Math.floor(n), MAX_SEARCH_N);
  }
  const stream = req.stream?.trim() ? parseStreamId(req.stream, userId) : READING_LIST;
  const excluded = req.exclude.filter((x) => x.trim()).map((x) => stateColumnOf(parseStreamId(x, userId), 'xt'));
  const scope: SearchScope =
    stream.kind === 'state' && stream.state === 'reading-list'
      ? { kind: 'subscriptions', userId }
      : { kind: 'streams', userId, streamIds: [formatStreamId(stream)] };
  await flushSearchIndexing(app);
  let hits: SearchHit[];
  // Over-fetch a little: hits the user cannot see (hidden by a rule) or excluded by xt are dropped.
  try {
    hits = await localIndex(app).search({
      text: q,
      scope,
      filters: {},
      limit: Math.min(MAX_SEARCH_N, n * (excluded.length ? 3 : 1) + 20),
    });
  } catch (e) {
    if (e instanceof SearchFilterError)
      throw new ReaderError(
        404,
        `unknown stream "${formatStreamId(stream)}": ${e.message.replace(/^search_streams:?\s*/, '')}`,
      );
    throw e;
  }
  const ids = hits.map((h) => h.itemId).filter((id): id is number => id !== null);
  const own = new Map<number, ReaderItemState>(
    (await readerStore(app).streams.statesByIds(userId, ids)).map((s) => [s.itemId, s]),
  );
  const out: SearchResult[] = [];
  for (const id of ids) {
    const s = own.get(id);
    if (!s || excluded.some((col) => s[col] === 1)) continue;
    out.push({ itemId: id, crawledUs: s.crawledUs });
    if (out.length >= n) break;
  }
  return out;
}
