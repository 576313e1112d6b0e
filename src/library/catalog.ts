// Each user's subscription catalog (feed stream ids, titles, sites, folders) with its JSON
// fragments pre-built, kept in memory while the database's catalog version is unchanged. Every
// 1,000-item page and every unread-count needs it; re-reading and re-escaping 500 subscriptions
// per request would cost more than the page itself. The version (and the item bodies' version)
// is read again only when the store's change signal says the data may have changed, in this
// process or another (src/store/change-signal.ts): an unchanged database costs no read at all.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { FeedOrigin } from '../model/stream.ts';
import { feedStreamId, labelStreamId } from './stream-ids.ts';
import { readerStore } from './repositories.ts';
import { ChangeGated } from '../store/open-store.ts';

export interface CatalogEntry extends FeedOrigin {
  /** JSON string of `feed/<url>`. */
  streamIdJson: string;
  /** The item `origin` object as JSON. */
  originJson: string;
  /** `,"user/-/label/<folder>"…` to append to an item's categories. */
  folderCategoriesJson: string;
  /** The folders' label stream ids. */
  folderStreamIds: string[];
}

export interface UserCatalog {
  version: number;
  entries: CatalogEntry[];
  byFeed: Map<number, CatalogEntry>;
  /** Feeds the user left whose items they kept (starred or tagged): not in the reading list. */
  leftFeedIds: number[];
}

/** Per App: each user's catalog. */
const catalogs = perApp(() => new Map<number, UserCatalog>());

export function catalogEntry(o: FeedOrigin): CatalogEntry {
  const streamIdJson = JSON.stringify(feedStreamId(o.url));
  const folderStreamIds = o.folders.map(labelStreamId);
  return {
    ...o,
    streamIdJson,
    folderStreamIds,
    originJson: `{"streamId":${streamIdJson},"title":${JSON.stringify(o.title)},"htmlUrl":${JSON.stringify(o.siteUrl ?? '')}}`,
    folderCategoriesJson: folderStreamIds.map((f) => ',' + JSON.stringify(f)).join(''),
  };
}

/** The database's catalog and item-contents versions, re-read when the change signal moved. */
const versions = perApp((app) => ({
  catalog: new ChangeGated(app.store.changes, () => readerStore(app).labels.catalogVersion()),
  items: new ChangeGated(app.store.changes, () => readerStore(app).streams.itemsVersion()),
}));

/** The version of item contents (moves when any item's content changes: cached bodies go). */
export function itemsVersion(app: App): Promise<number> {
  return versions(app).items.get();
}

export async function userCatalog(app: App, userId: number): Promise<UserCatalog> {
  return catalogAt(app, userId, await versions(app).catalog.get());
}

/**
 * The catalog held in memory, unchecked: for a request that reads the catalog version together
 * with its data (one round trip) and then confirms it with catalogAt.
 */
export async function lastCatalog(app: App, userId: number): Promise<UserCatalog> {
  return catalogs(app).get(userId) ?? userCatalog(app, userId);
}

/** The catalog as of a version the caller read: the cached one when it matches, else read again. */
export async function catalogAt(app: App, userId: number, version: number): Promise<UserCatalog> {
  const cache = catalogs(app);
  const labels = readerStore(app).labels;
  const cached = cache.get(userId);
  if (cached && cached.version === version) return cached;
  const entries = (await labels.catalog(userId)).map(catalogEntry);
  const fresh: UserCatalog = {
    version,
    entries,
    byFeed: new Map(entries.map((e) => [e.feedId, e])),
    leftFeedIds: await labels.leftFeedIds(userId),
  };
  cache.set(userId, fresh);
  return fresh;
}

/** Catalog entries of the given feeds; feeds no longer subscribed (kept starred items) get a bare origin. */
export async function originsOf(
  app: App,
  userId: number,
  feedIds: Iterable<number>,
  catalog?: UserCatalog,
): Promise<Map<number, CatalogEntry>> {
  const { byFeed } = catalog ?? (await userCatalog(app, userId));
  const out = new Map<number, CatalogEntry>();
  const missing: number[] = [];
  for (const id of feedIds) {
    const e = byFeed.get(id);
    if (e) out.set(id, e);
    else missing.push(id);
  }
  if (missing.length)
    for (const [id, o] of await readerStore(app).labels.origins(userId, missing)) out.set(id, catalogEntry(o));
  return out;
}
