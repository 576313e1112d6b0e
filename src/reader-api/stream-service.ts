// Reading streams: stream/contents, stream/items/ids and stream/items/contents. Keyset pages are
// fetched one row past the page size, so a continuation is given only while more items exist.
import type { App } from '../app.ts';
import type { ReaderItemState, StreamPageQuery } from '../model/stream.ts';
import { ReaderError } from './errors.ts';
import { formatStreamId, parseItemId, type StreamId } from './ids.ts';
import { ItemBodyCache, itemsJson } from './item-json.ts';
import { readerStore } from './store.ts';
import { originsOf, userCatalog } from './catalog.ts';
import { buildFilter, subscribedFeedId } from './stream-filter.ts';
import { encodeContinuation, MAX_CONTENTS_N, type StreamRequest } from './stream-request.ts';

export interface ItemsPage {
  /** JSON array of the items, UTF-8. */
  itemsJson: Buffer;
  continuation?: string;
  /** Newest crawl time on the page (µs), for `updated`. */
  newestUs: number;
}

function pageQuery(app: App, userId: number, streams: StreamId[], req: StreamRequest): StreamPageQuery {
  const where = buildFilter(app, userId, streams, req.exclude, req.include);
  return {
    userId, where, newestFirst: req.newestFirst, limit: req.limit + 1, after: req.after,
    minCrawledUs: req.minCrawledUs, maxCrawledUs: req.maxCrawledUs,
  };
}

function continuationOf<T extends { crawledUs: number; itemId: number }>(rows: T[], limit: number): string | undefined {
  if (rows.length <= limit) return undefined;
  rows.length = limit;
  const last = rows[limit - 1];
  return encodeContinuation({ crawledUs: last.crawledUs, itemId: last.itemId });
}

const bodyCaches = new WeakMap<App, ItemBodyCache>();
function bodyCache(app: App): ItemBodyCache {
  let c = bodyCaches.get(app);
  if (!c) { c = new ItemBodyCache(app.config.readerItemCacheSize, app.config.readerItemCacheMb * 1024 * 1024); bodyCaches.set(app, c); }
  return c;
}

function renderItems(app: App, userId: number, items: ReaderItemState[]): Buffer {
  const store = readerStore(app);
  const bodies = bodyCache(app).bodiesFor(items, store.streams.itemsVersion(), (ids) => store.streams.bodies(ids));
  const origins = originsOf(app, userId, new Set(items.map((i) => i.feedId)));
  const tags = store.streams.tagsOfItems(userId, items.map((i) => i.itemId));
  return itemsJson(items, bodies, origins, tags);
}

export function streamContents(app: App, userId: number, stream: StreamId, req: StreamRequest): ItemsPage {
  const items = readerStore(app).streams.statesPage(pageQuery(app, userId, [stream], req));
  const continuation = continuationOf(items, req.limit);
  let newestUs = 0;
  for (const i of items) if (i.crawledUs > newestUs) newestUs = i.crawledUs;
  return { itemsJson: renderItems(app, userId, items), continuation, newestUs };
}

export interface ItemRefsPage {
  /** Comma-joined itemRefs entries: {"id":"<decimal>","directStreamIds":[],"timestampUsec":"…"}. */
  refsJson: string;
  continuation?: string;
}

const LAST_REF = /"id":"(\d+)","directStreamIds":\[\],"timestampUsec":"(\d+)"\}$/;

export function streamItemIds(app: App, userId: number, streams: StreamId[], req: StreamRequest): ItemRefsPage {
  const page = readerStore(app).streams.refsJson(pageQuery(app, userId, streams, req));
  if (page.count <= req.limit) return { refsJson: page.json };
  // One row past the page was read: drop it, and continue after the last ref kept.
  const json = page.json.slice(0, page.json.lastIndexOf(',{"id":"'));
  const m = LAST_REF.exec(json)!;
  return { refsJson: json, continuation: encodeContinuation({ itemId: Number(m[1]), crawledUs: Number(m[2]) }) };
}

/** Items by id in the order asked (duplicates once); ids of other users or unknown ids are skipped. */
export function itemContents(app: App, userId: number, rawIds: string[]): ItemsPage {
  if (!rawIds.length) throw new ReaderError(400, 'missing parameter i: pass one or more item ids (i=<id>, repeatable)');
  if (rawIds.length > MAX_CONTENTS_N) throw new ReaderError(400, `too many item ids (${rawIds.length}): at most ${MAX_CONTENTS_N} per call`);
  const ids = [...new Set(rawIds.map(parseItemId))].filter((id) => id > 0);
  const items = readerStore(app).streams.statesByIds(userId, ids);
  let newestUs = 0;
  for (const i of items) if (i.crawledUs > newestUs) newestUs = i.crawledUs;
  return { itemsJson: renderItems(app, userId, items), newestUs };
}

/** Title of a stream for the stream/contents envelope. */
export function streamTitle(app: App, userId: number, s: StreamId): string {
  if (s.kind === 'label') return s.name;
  if (s.kind === 'state') {
    return { 'reading-list': 'Reading List', read: 'Read items', starred: 'Starred items', like: 'Liked items', broadcast: 'Shared items', 'saved-web-pages': 'Saved web pages' }[s.state];
  }
  const feedId = subscribedFeedId(readerStore(app).labels, userId, s.url);
  return (feedId !== undefined ? userCatalog(app, userId).byFeed.get(feedId)?.title : undefined) ?? formatStreamId(s);
}
