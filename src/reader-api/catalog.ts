// Each user's subscription catalog (feed stream ids, titles, sites, folders) with its JSON
// fragments pre-built, kept in memory while the database's catalog version is unchanged. Every
// 1,000-item page and every unread-count needs it; re-reading and re-escaping 500 subscriptions
// per request would cost more than the page itself. One tiny indexed read checks the version.
import type { App } from '../app.ts';
import type { FeedOrigin } from '../model/stream.ts';
import { feedStreamId, labelStreamId } from './ids.ts';
import { readerStore } from './store.ts';

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

interface UserCatalog {
  version: number;
  entries: CatalogEntry[];
  byFeed: Map<number, CatalogEntry>;
  /** Feeds the user left whose items they kept (starred or tagged): not in the reading list. */
  leftFeedIds: number[];
}

const catalogs = new WeakMap<App, Map<number, UserCatalog>>();

export function catalogEntry(o: FeedOrigin): CatalogEntry {
  const streamIdJson = JSON.stringify(feedStreamId(o.url));
  const folderStreamIds = o.folders.map(labelStreamId);
  return {
    ...o, streamIdJson, folderStreamIds,
    originJson: `{"streamId":${streamIdJson},"title":${JSON.stringify(o.title)},"htmlUrl":${JSON.stringify(o.siteUrl ?? '')}}`,
    folderCategoriesJson: folderStreamIds.map((f) => ',' + JSON.stringify(f)).join(''),
  };
}

export function userCatalog(app: App, userId: number): UserCatalog {
  let perApp = catalogs.get(app);
  if (!perApp) { perApp = new Map(); catalogs.set(app, perApp); }
  const labels = readerStore(app).labels;
  const version = labels.catalogVersion();
  const cached = perApp.get(userId);
  if (cached && cached.version === version) return cached;
  const entries = labels.catalog(userId).map(catalogEntry);
  const fresh: UserCatalog = { version, entries, byFeed: new Map(entries.map((e) => [e.feedId, e])), leftFeedIds: labels.leftFeedIds(userId) };
  perApp.set(userId, fresh);
  return fresh;
}

/** Catalog entries of the given feeds; feeds no longer subscribed (kept starred items) get a bare origin. */
export function originsOf(app: App, userId: number, feedIds: Iterable<number>): Map<number, CatalogEntry> {
  const { byFeed } = userCatalog(app, userId);
  const out = new Map<number, CatalogEntry>();
  const missing: number[] = [];
  for (const id of feedIds) {
    const e = byFeed.get(id);
    if (e) out.set(id, e); else missing.push(id);
  }
  if (missing.length) for (const [id, o] of readerStore(app).labels.origins(userId, missing)) out.set(id, catalogEntry(o));
  return out;
}
