// Subscriptions, folders, OPML and feed health for the web app: thin mappings onto the feed engine
// (src/feeds) and the library's labels (src/library), with errors turned into WebError.
import type { App } from '../runtime/app.ts';
import {
  discoverFeeds,
  exportOpml,
  feedEngine,
  FeedError,
  importOpml,
  labelLimitProblem,
  OpmlError,
  refreshFeedNow,
  subscribe,
  unsubscribe,
  type FeedCandidate,
  type OpmlImportResult,
} from '../feeds/index.ts';
import { readerStore } from '../library/repositories.ts';
import { deleteLabel, newLabelProblem, renameLabel } from '../library/labels.ts';
import { badRequest, notFound, WebError } from './errors.ts';
import { byName, servedIcons, webUrl } from './articles.ts';

const feedError = (e: unknown, field = 'url'): never => {
  if (e instanceof FeedError) throw new WebError(422, `feed_${e.code}`, e.message, { field });
  throw e;
};

/** A folder or tag name as the feed domain accepts it (length, no control or bidi characters). */
function checkLabelName(app: App, name: unknown, field = 'name', what = 'folder'): string {
  if (typeof name !== 'string' || !name.trim()) throw badRequest(`a ${what} needs a name`, field);
  const n = name.trim();
  const problem = newLabelProblem(app, n);
  if (problem) throw badRequest(`the ${what} name ${problem}`, field);
  return n;
}

export async function discover(app: App, url: unknown): Promise<FeedCandidate[]> {
  if (typeof url !== 'string' || !url.trim()) throw badRequest('give the address of a feed or of a web site', 'url');
  try {
    return await discoverFeeds(app, url);
  } catch (e) {
    return feedError(e);
  }
}

export async function addFeed(app: App, userId: number, url: unknown, folder: unknown) {
  if (typeof url !== 'string' || !url.trim()) throw badRequest('give the address of a feed or of a web site', 'url');
  const folders =
    folder === undefined || folder === null || folder === '' ? [] : [checkLabelName(app, folder, 'folder')];
  try {
    return await subscribe(app, userId, url, { folders });
  } catch (e) {
    return feedError(e);
  }
}

async function subscription(app: App, userId: number, feedId: number) {
  const s = await feedEngine(app).subscriptions.find(userId, feedId);
  if (!s) throw notFound(`no subscription with feed id ${feedId}`);
  return s;
}

export interface FeedHealth {
  id: number;
  title: string;
  customTitle: string | null;
  url: string;
  siteUrl: string | null;
  /** The icon Tidings serves (relative URL), or null: the page draws a placeholder. */
  iconUrl: string | null;
  /** The feed's own description (its channel's), for the empty reading pane. */
  description: string | null;
  folders: string[];
  unread: number;
  itemCount: number;
  lastFetchedAt: number | null;
  lastSuccessAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  errorCount: number;
  nextFetchAt: number;
  intervalSeconds: number | null;
  lastDurationMs: number | null;
  subscribedAt: number;
}

export async function feedHealth(app: App, userId: number): Promise<FeedHealth[]> {
  const subs = await feedEngine(app).subscriptions.list(userId);
  const icons = await servedIcons(app, userId);
  return subs
    .map((s) => ({
      id: s.feedId,
      title: s.title,
      customTitle: s.customTitle,
      url: s.feed.url,
      siteUrl: webUrl(s.feed.siteUrl),
      iconUrl: icons.get(s.feedId) ?? null,
      description: s.feed.description,
      folders: s.folders,
      unread: s.unreadCount,
      itemCount: s.feed.itemCount,
      lastFetchedAt: s.feed.lastFetchedAt,
      lastSuccessAt: s.feed.lastSuccessAt,
      lastStatus: s.feed.lastStatus,
      lastError: s.feed.lastError,
      errorCount: s.feed.errorCount,
      nextFetchAt: s.feed.nextFetchAt,
      intervalSeconds: s.feed.intervalSeconds,
      lastDurationMs: s.feed.lastDurationMs,
      subscribedAt: s.createdAt,
    }))
    .sort((a, b) => byName.compare(a.title, b.title));
}

/** Renames (title; null or '' restores the feed's own) and/or moves the feed into one folder (null: no folder). */
export async function editFeed(
  app: App,
  userId: number,
  feedId: number,
  patch: { title?: unknown; folder?: unknown },
): Promise<void> {
  const s = await subscription(app, userId, feedId);
  const subs = feedEngine(app).subscriptions;
  if (patch.title === undefined && patch.folder === undefined)
    throw badRequest('nothing to change: send title and/or folder');
  let title: string | null | undefined;
  if (patch.title !== undefined) {
    if (patch.title !== null && typeof patch.title !== 'string')
      throw badRequest('title must be a string or null', 'title');
    title = typeof patch.title === 'string' && patch.title.trim() ? patch.title.trim().slice(0, 500) : null;
  }
  const folder =
    patch.folder === undefined
      ? undefined
      : patch.folder === null || patch.folder === ''
        ? null
        : checkLabelName(app, patch.folder, 'folder');
  if (folder) {
    const tooMany = await labelLimitProblem(app, userId, [folder]);
    if (tooMany) throw badRequest(tooMany, 'folder');
  }
  if (title !== undefined) await subs.rename(userId, feedId, title);
  if (folder !== undefined) {
    // Moving: the web app files a feed in one folder, as Miniflux and Inoreader do.
    for (const f of s.folders) if (f !== folder) await subs.removeFolder(userId, feedId, f);
    if (folder !== null && !s.folders.includes(folder)) await subs.addFolder(userId, feedId, folder);
  }
}

export async function removeFeed(app: App, userId: number, feedId: number): Promise<void> {
  await subscription(app, userId, feedId);
  await unsubscribe(app, userId, feedId);
}

export async function refreshNow(app: App, userId: number, feedId: number) {
  await subscription(app, userId, feedId);
  const r = await refreshFeedNow(app, feedId);
  return { outcome: r.outcome, added: r.added, updated: r.updated, error: r.error?.message ?? null };
}

export async function createFolder(app: App, userId: number, name: unknown): Promise<string> {
  const n = checkLabelName(app, name);
  const tooMany = await labelLimitProblem(app, userId, [n]);
  if (tooMany) throw badRequest(tooMany, 'name');
  await readerStore(app).labels.ensureLabel(userId, n);
  return n;
}

async function labelId(app: App, userId: number, name: string): Promise<number> {
  const id = await readerStore(app).labels.findLabel(userId, name);
  if (id === undefined) throw notFound(`no folder named "${name}" (names are case-sensitive)`);
  return id;
}

/** Renames a folder; onto an existing name it merges the two (as the Reader API's rename-tag). */
export async function renameFolder(app: App, userId: number, name: string, to: unknown): Promise<string> {
  const id = await labelId(app, userId, name);
  const n = checkLabelName(app, to);
  await renameLabel(app, userId, id, n);
  return n;
}

/** Deletes a folder: its feeds stay subscribed, unfiled. */
export async function deleteFolder(app: App, userId: number, name: string): Promise<void> {
  await deleteLabel(app, userId, await labelId(app, userId, name));
}

export async function importOpmlText(app: App, userId: number, body: unknown): Promise<OpmlImportResult> {
  if (typeof body !== 'string' || !body.trim())
    throw badRequest('send the OPML file as the request body (Content-Type: text/xml)');
  try {
    return await importOpml(app, userId, body);
  } catch (e) {
    if (e instanceof OpmlError) throw new WebError(422, 'broken_opml', `broken OPML, nothing imported: ${e.message}`);
    throw e;
  }
}

export async function exportOpmlText(app: App, userId: number): Promise<string> {
  return await exportOpml(app, userId);
}
