// Reading streams: stream/contents, stream/items/ids and stream/items/contents. Keyset pages are
// fetched one row past the page size, so a continuation is given only while more items exist.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import { reportMemoryUse } from '../observability/events.ts';
import type { ReaderItemState, StreamPageQuery } from '../model/stream.ts';
import { ReaderError } from './errors.ts';
import { formatStreamId, parseItemId, type StreamId } from './ids.ts';
import { ItemFragmentCache, PageBuffers, renderItems as itemParts, type RenderedItems } from './item-json.ts';
import { readerStore } from '../library/repositories.ts';
import type { PageToRender } from '../store/repositories.ts';
import { catalogAt, lastCatalog, originsOf, userCatalog, type UserCatalog } from '../library/catalog.ts';
import { buildFilter, subscribedFeedId } from '../library/stream-filter.ts';
import { encodeContinuation, MAX_CONTENTS_N, type StreamRequest } from './stream-request.ts';

export interface ItemsPage {
  /** The items, ready to be written into the page (item-json.ts, streamContentsJson). */
  items: RenderedItems;
  continuation?: string;
  /** Newest crawl time on the page (µs), for `updated`. */
  newestUs: number;
  /** The stream's title (stream/contents only). */
  title?: string;
}

async function pageQuery(
  app: App,
  userId: number,
  streams: StreamId[],
  req: StreamRequest,
  catalog?: UserCatalog,
): Promise<StreamPageQuery> {
  const where = await buildFilter(app, userId, streams, req.exclude, req.include, catalog);
  return {
    userId,
    where,
    newestFirst: req.newestFirst,
    limit: req.limit + 1,
    after: req.after,
    minCrawledUs: req.minCrawledUs,
    maxCrawledUs: req.maxCrawledUs,
  };
}

function continuationOf<T extends { crawledUs: number; itemId: number }>(rows: T[], limit: number): string | undefined {
  if (rows.length <= limit) return undefined;
  rows.length = limit;
  const last = rows[limit - 1];
  return encodeContinuation({ crawledUs: last.crawledUs, itemId: last.itemId });
}

/** Buffers the stream/contents pages are written into, reused (item-json.ts, PageBuffers). */
export const pageBuffers = perApp((app) => {
  const pages = new PageBuffers();
  reportMemoryUse(app, 'reader_page_buffers', () => pages.byteSize);
  return pages;
});

const fragmentCache = perApp((app) => {
  const cache = new ItemFragmentCache(app.config.readerItemCacheSize, app.config.readerItemCacheMb * 1024 * 1024);
  reportMemoryUse(app, 'reader_item_cache', () => cache.byteSize);
  return cache;
});

/**
 * The page's JSON from what one read gave (items, tags, versions): item fragments come from the
 * cache (read only for the items it lacks), origins from the catalog, the user's states and tags
 * from the read itself.
 */
async function renderItems(app: App, userId: number, page: PageToRender, catalog: UserCatalog): Promise<RenderedItems> {
  const store = readerStore(app);
  const { items } = page;
  // Origins from the catalog; only feeds outside it (unsubscribed, starred items kept) are read.
  const { byFeed } = catalog;
  let outside: Set<number> | undefined;
  for (const it of items) if (!byFeed.has(it.feedId)) (outside ??= new Set()).add(it.feedId);
  const [fragments, kept] = await Promise.all([
    fragmentCache(app).fragmentsFor(items, page.itemsVersion, (ids) => store.streams.bodies(ids)),
    outside ? originsOf(app, userId, outside, catalog) : undefined,
  ]);
  return itemParts(items, fragments, (feedId) => byFeed.get(feedId) ?? kept?.get(feedId), page.tags);
}

function newestOf(items: ReaderItemState[]): number {
  let newestUs = 0;
  for (const i of items) if (i.crawledUs > newestUs) newestUs = i.crawledUs;
  return newestUs;
}

export async function streamContents(
  app: App,
  userId: number,
  stream: StreamId,
  req: StreamRequest,
): Promise<ItemsPage> {
  // The catalog in memory shapes the filter (the reading list leaves out feeds the user left); the
  // page read says which catalog version it saw. Unchanged (the usual case): one read in all.
  // Changed since: read the catalog again and the page with it.
  const streams = readerStore(app).streams;
  let catalog = await lastCatalog(app, userId);
  let page = await streams.pageToRender(await pageQuery(app, userId, [stream], req, catalog));
  if (page.catalogVersion !== catalog.version) {
    catalog = await catalogAt(app, userId, page.catalogVersion);
    page = await streams.pageToRender(await pageQuery(app, userId, [stream], req, catalog));
  }
  const continuation = continuationOf(page.items, req.limit);
  return {
    items: await renderItems(app, userId, page, catalog),
    continuation,
    newestUs: newestOf(page.items),
    title: await streamTitle(app, userId, stream, catalog),
  };
}

export interface ItemRefsPage {
  /** Comma-joined itemRefs entries: {"id":"<decimal>","directStreamIds":[],"timestampUsec":"…"}. */
  refsJson: string;
  continuation?: string;
}

const LAST_REF = /^\{"id":"(\d+)","directStreamIds":\[\],"timestampUsec":"(\d+)"\}$/;

export async function streamItemIds(
  app: App,
  userId: number,
  streams: StreamId[],
  req: StreamRequest,
): Promise<ItemRefsPage> {
  const page = await readerStore(app).streams.refsJson(await pageQuery(app, userId, streams, req));
  if (page.count <= req.limit) return { refsJson: page.json };
  // One row past the page was read: drop it, and continue after the last ref kept.
  const json = page.json.slice(0, page.json.lastIndexOf(',{"id":"'));
  // Matched on the last entry alone: on the whole string (850 KB at n=10000) the regex is tried
  // at every "id" from the start, 3 % of the call's CPU.
  const m = LAST_REF.exec(json.slice(json.lastIndexOf('{"id":"')))!;
  return { refsJson: json, continuation: encodeContinuation({ itemId: Number(m[1]), crawledUs: Number(m[2]) }) };
}

/** Items by id in the order asked (duplicates once); ids of other users or unknown ids are skipped. */
export async function itemContents(app: App, userId: number, rawIds: string[]): Promise<ItemsPage> {
  if (!rawIds.length) throw new ReaderError(400, 'missing parameter i: pass one or more item ids (i=<id>, repeatable)');
  if (rawIds.length > MAX_CONTENTS_N)
    throw new ReaderError(400, `too many item ids (${rawIds.length}): at most ${MAX_CONTENTS_N} per call`);
  const ids: number[] = [];
  const seen = new Set<number>();
  for (const raw of rawIds) {
    const id = parseItemId(raw);
    if (id > 0 && !seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  const page = await readerStore(app).streams.byIdsToRender(userId, ids);
  const catalog = await catalogAt(app, userId, page.catalogVersion);
  return { items: await renderItems(app, userId, page, catalog), newestUs: newestOf(page.items) };
}

/** Title of a stream for the stream/contents envelope; `catalog`: the one the request already holds. */
export async function streamTitle(app: App, userId: number, s: StreamId, catalog?: UserCatalog): Promise<string> {
  if (s.kind === 'label') return s.name;
  if (s.kind === 'state') {
    return {
      'reading-list': 'Reading List',
      read: 'Read items',
      starred: 'Starred items',
      like: 'Liked items',
      broadcast: 'Shared items',
      'saved-web-pages': 'Saved web pages',
    }[s.state];
  }
  const known = catalog?.entries.find((e) => e.url === s.url);
  if (known) return known.title;
  const feedId = await subscribedFeedId(readerStore(app).labels, userId, s.url);
  return (
    (feedId !== undefined ? (catalog ?? (await userCatalog(app, userId))).byFeed.get(feedId)?.title : undefined) ??
    formatStreamId(s)
  );
}
