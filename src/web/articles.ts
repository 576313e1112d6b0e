// Article lists, the reading pane and item states for the web app, over the Reader API's stream
// services (the same filters, counters and keyset pages as the Google Reader API), so both APIs
// always agree on what a view contains and on unread counts.
import type { App } from '../runtime/app.ts';
import type { ItemCondition, ItemPosition, ReaderItemBody, ReaderItemState } from '../model/stream.ts';
import { readerStore } from '../library/repositories.ts';
import { itemsVersion, originsOf, userCatalog } from '../library/catalog.ts';
import { streamConditions } from '../library/stream-filter.ts';
import { READING_LIST } from '../library/stream-ids.ts';
import { decodeContinuation, encodeContinuation } from '../library/continuation.ts';
import * as itemStates from '../library/item-states.ts';
import { htmlToText } from '../text/html-to-text.ts';
import { deleteLabel, newLabelProblem } from '../library/labels.ts';
import { faviconPath, feedIcons } from '../feeds/favicons.ts';
import { searchIndexRepository } from '../search/indexing.ts';
import { labelLimitProblem, labelsPerRequestProblem } from '../feeds/index.ts';
import { badRequest, notFound } from './errors.ts';
import { proxiedImageUrl } from './images.ts';

/** What the sidebar selects; `unread` narrows any of them. */
export type View =
  | { kind: 'all' }
  | { kind: 'unread' }
  | { kind: 'starred' }
  | { kind: 'feed'; feedId: number }
  | { kind: 'folder'; name: string };

export interface ListOptions {
  unreadOnly: boolean;
  oldestFirst: boolean;
  cursor?: string;
  limit: number;
}

export interface ArticleSummary {
  id: number;
  title: string;
  url: string | null;
  feedId: number;
  feedTitle: string;
  author: string | null;
  publishedAt: number;
  /** Microseconds: the list's order and the mark-all-read bound. */
  crawledUs: number;
  snippet: string;
  /**
   * The article's lead image for the magazine view, picked at ingest (the feed's media/enclosure
   * image, else the content's first), as a URL of this server that fetches it (./images.ts), or null.
   */
  image: string | null;
  read: boolean;
  starred: boolean;
}

export interface Enclosure {
  url: string;
  type: string | null;
  length: number | null;
}

export interface Article extends ArticleSummary {
  /** Sanitized at ingest (src/feeds/sanitizer): safe to insert as HTML. */
  html: string;
  siteUrl: string | null;
  enclosures: Enclosure[];
  /** The user's own tags on the article (labels that are not folders of its feed). */
  tags: string[];
}

export const MAX_PAGE = 200;

/**
 * Only http(s) links reach the page: a feed can put `javascript:` in an item's link, and although
 * the CSP would block it, a link the page renders should never be one.
 */
export function webUrl(url: string | null | undefined): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}
/** One collator for every sort: localeCompare with options builds a new one per comparison. */
export const byName = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const SNIPPET_CHARS = 220;

/** Parses the view query parameters (view=all|unread|starred, feed=<id>, folder=<name>). */
export function parseView(q: Record<string, unknown>): View {
  const feed = q.feed,
    folder = q.folder,
    view = q.view;
  if (feed !== undefined && feed !== '') {
    const feedId = Number(feed);
    if (!Number.isSafeInteger(feedId) || feedId <= 0)
      throw badRequest(`feed must be a feed id (a positive number), got "${String(feed)}"`, 'feed');
    return { kind: 'feed', feedId };
  }
  if (typeof folder === 'string' && folder !== '') return { kind: 'folder', name: folder };
  if (view === undefined || view === '' || view === 'all') return { kind: 'all' };
  if (view === 'unread' || view === 'starred') return { kind: view };
  throw badRequest(`view must be all, unread or starred, got "${String(view)}"`, 'view');
}

/** The conditions selecting a view's items (the reading list of the user, a feed, a folder…). */
async function viewConditions(app: App, userId: number, view: View, unreadOnly: boolean): Promise<ItemCondition[]> {
  const where: ItemCondition[] = [];
  switch (view.kind) {
    case 'all':
    case 'unread':
      where.push(...(await streamConditions(app, userId, READING_LIST)));
      break;
    case 'starred':
      where.push({ kind: 'state', column: 'starred', value: 1 });
      break;
    case 'feed':
      if (!(await userCatalog(app, userId)).byFeed.has(view.feedId))
        throw notFound(`no subscription with feed id ${view.feedId}: see GET /api/v1/feeds`);
      where.push({ kind: 'feeds', feedIds: [view.feedId], negate: false });
      break;
    case 'folder':
      if ((await readerStore(app).labels.findLabel(userId, view.name)) === undefined)
        throw notFound(`no folder named "${view.name}" (names are case-sensitive)`);
      where.push(...(await streamConditions(app, userId, { kind: 'label', name: view.name })));
      break;
  }
  if (unreadOnly || view.kind === 'unread') where.push({ kind: 'state', column: 'read', value: 0 });
  return where;
}

// Snippets are plain text cut from the body; parsing HTML for 50 items per page is the largest cost
// of a list call, so they are kept per item while no item changes (the Reader API's items version).
const snippetCaches = new WeakMap<App, { version: number; map: Map<number, string> }>();
const SNIPPET_CACHE_MAX = 20_000;

function snippets(app: App, version: number, bodies: ReaderItemBody[]): Map<number, string> {
  let c = snippetCaches.get(app);
  if (!c || c.version !== version) {
    c = { version, map: new Map() };
    snippetCaches.set(app, c);
  }
  const out = new Map<number, string>();
  for (const b of bodies) {
    let s = c.map.get(b.itemId);
    if (s === undefined) {
      const text = htmlToText((b.summary || b.content || '').slice(0, 4000), { singleLine: true });
      s = text.length > SNIPPET_CHARS ? text.slice(0, SNIPPET_CHARS).replace(/\s+\S*$/, '') + '…' : text;
      c.map.set(b.itemId, s);
      if (c.map.size > SNIPPET_CACHE_MAX) c.map.delete(c.map.keys().next().value!);
    }
    out.set(b.itemId, s);
  }
  return out;
}

async function summaries(app: App, userId: number, states: ReaderItemState[]): Promise<ArticleSummary[]> {
  const store = readerStore(app).streams;
  const ids = states.map((s) => s.itemId);
  const [bodies, metas] = await Promise.all([store.bodies(ids), searchIndexRepository(app).articles(ids)]);
  const images = new Map(metas.map((m) => [m.id, m.imageUrl]));
  const byId = new Map(bodies.map((b) => [b.itemId, b]));
  const snips = snippets(app, await itemsVersion(app), bodies);
  const origins = await originsOf(app, userId, new Set(states.map((s) => s.feedId)));
  const out: ArticleSummary[] = [];
  for (const s of states) {
    const b = byId.get(s.itemId);
    if (!b) continue;
    out.push({
      id: s.itemId,
      title: b.title || '(untitled)',
      url: webUrl(b.url),
      feedId: s.feedId,
      feedTitle: origins.get(s.feedId)?.title ?? '',
      author: b.author,
      publishedAt: b.publishedAt,
      crawledUs: s.crawledUs,
      snippet: snips.get(s.itemId) ?? '',
      image: await proxiedImageUrl(app, webUrl(images.get(s.itemId))),
      read: s.read === 1,
      starred: s.starred === 1,
    });
  }
  return out;
}

export async function listArticles(
  app: App,
  userId: number,
  view: View,
  o: ListOptions,
): Promise<{ items: ArticleSummary[]; next: string | null; asOfUs: number }> {
  // Server time of this page: "mark all read" up to it spares articles that arrive later.
  const asOfUs = Date.now() * 1000;
  const where = await viewConditions(app, userId, view, o.unreadOnly);
  let after: ItemPosition | undefined;
  try {
    after = o.cursor ? decodeContinuation(o.cursor) : undefined;
  } catch {
    throw badRequest(`malformed cursor "${o.cursor}": pass back the "next" value of the previous page`, 'cursor');
  }
  const rows = await readerStore(app).streams.statesPage({
    userId,
    where,
    newestFirst: !o.oldestFirst,
    limit: o.limit + 1,
    after,
  });
  let next: string | null = null;
  if (rows.length > o.limit) {
    rows.length = o.limit;
    const last = rows[o.limit - 1];
    next = encodeContinuation({ crawledUs: last.crawledUs, itemId: last.itemId });
  }
  return { items: await summaries(app, userId, rows), next, asOfUs };
}

function parseEnclosures(raw: string | null): Enclosure[] {
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as { url?: unknown; type?: unknown; length?: unknown }[];
    return Array.isArray(list)
      ? list
          .filter((e) => typeof e?.url === 'string' && /^https?:/i.test(e.url as string))
          .map((e) => ({
            url: e.url as string,
            type: typeof e.type === 'string' ? e.type : null,
            length: typeof e.length === 'number' ? e.length : null,
          }))
      : [];
  } catch {
    return [];
  }
}

export async function getArticle(app: App, userId: number, itemId: number): Promise<Article> {
  const store = readerStore(app).streams;
  const [state] = await store.statesByIds(userId, [itemId]);
  if (!state) throw notFound(`no article ${itemId} in your feeds`);
  const [body] = await store.bodies([itemId]);
  if (!body) throw notFound(`article ${itemId} was deleted`);
  const [summary] = await summaries(app, userId, [state]);
  const origin = (await originsOf(app, userId, [state.feedId])).get(state.feedId);
  const tags = (await store.tagsOfItems(userId, [itemId])).get(itemId) ?? [];
  return {
    ...summary,
    html: body.content ?? body.summary ?? '',
    siteUrl: webUrl(origin?.siteUrl),
    tags,
    enclosures: parseEnclosures(body.enclosures),
  };
}

export function parseIds(raw: unknown, max = 5000): number[] {
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest('ids must be a non-empty array of article ids', 'ids');
  if (raw.length > max) throw badRequest(`at most ${max} ids per call`, 'ids');
  return [
    ...new Set(
      raw.map((x) => {
        const n = Number(x);
        if (!Number.isSafeInteger(n) || n <= 0) throw badRequest(`"${String(x)}" is not an article id`, 'ids');
        return n;
      }),
    ),
  ];
}

/** Sets read or starred on the user's own articles (other ids are skipped); returns how many changed. */
export async function setFlag(
  app: App,
  userId: number,
  flag: 'read' | 'starred',
  value: boolean,
  ids: number[],
): Promise<number> {
  return await itemStates.setFlag(app, userId, flag, value, ids);
}

/**
 * Adds and removes the user's tags on one article (Reader API labels: a tag is a label on items,
 * a folder a label on feeds; one name can be both). Removing a tag the article lacks is a no-op.
 */
export async function editTags(
  app: App,
  userId: number,
  itemId: number,
  add: unknown,
  remove: unknown,
): Promise<string[]> {
  const names = (v: unknown, field: string): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw badRequest(`${field} must be an array of tag names`, field);
    return v.map((n) => {
      if (typeof n !== 'string') throw badRequest(`${field}: tag names are strings`, field);
      const problem = newLabelProblem(app, n.trim());
      if (problem) throw badRequest(`${field}: the tag name ${problem}`, field);
      return n.trim();
    });
  };
  const perRequest = labelsPerRequestProblem(
    (Array.isArray(add) ? add.length : 0) + (Array.isArray(remove) ? remove.length : 0),
  );
  if (perRequest) throw badRequest(`${perRequest} (add and remove together)`, 'add');
  const adding = names(add, 'add'),
    removing = names(remove, 'remove');
  if (!adding.length && !removing.length) throw badRequest('send add and/or remove: arrays of tag names');
  await getArticle(app, userId, itemId); // 404 unless the article is the user's
  const tooMany = await labelLimitProblem(app, userId, adding);
  if (tooMany) throw badRequest(tooMany, 'add');
  const { labels } = readerStore(app);
  for (const n of removing) {
    const id = await labels.findLabel(userId, n);
    if (id === undefined || !(await itemStates.untagItems(app, userId, id, n, [itemId]))) continue;
    // A tag on no article any more goes (as in Inoreader); otherwise it would show as an empty folder.
    if (!(await labels.hasTaggedItems(id)) && !(await labels.folderFeedIds(userId, id)).length)
      await deleteLabel(app, userId, id);
  }
  for (const n of adding) await itemStates.tagItems(app, userId, await labels.ensureLabel(userId, n), n, [itemId]);
  return (await readerStore(app).streams.tagsOfItems(userId, [itemId])).get(itemId) ?? [];
}

/** Undo is offered up to this many articles; marking more still works, without undo. */
const UNDO_LIMIT = 5000;

/**
 * Marks read every unread article of the view that arrived at or before `beforeUs` (the newest the
 * user saw: articles that arrive meanwhile stay unread). Returns the ids changed when there are at
 * most UNDO_LIMIT of them, so the page can undo by marking exactly those unread again.
 */
export async function markViewRead(
  app: App,
  userId: number,
  view: View,
  beforeUs: number,
): Promise<{ marked: number; ids: number[] | null }> {
  const where = await viewConditions(app, userId, view, true);
  const store = readerStore(app);
  const rows = await store.streams.statesPage({
    userId,
    where,
    newestFirst: true,
    limit: UNDO_LIMIT + 1,
    maxCrawledUs: beforeUs,
  });
  if (rows.length <= UNDO_LIMIT) {
    const ids = rows.map((r) => r.itemId);
    const marked = ids.length ? await itemStates.setFlag(app, userId, 'read', true, ids) : 0;
    return { marked, ids };
  }
  return { marked: await itemStates.markAllRead(app, userId, where, beforeUs), ids: null };
}

/**
 * The icons Tidings fetched and serves itself, by feed id, as URLs relative to the page (so a
 * sub-path behind a proxy works). Never the publisher's own image URL: the page must not contact
 * publishers for its chrome (privacy, and offline it would fail). Feeds without one get a
 * placeholder drawn by the page.
 */
export async function servedIcons(app: App, userId: number): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const id of await feedIcons(app).feedIdsWithIcon(userId)) out.set(id, (await faviconPath(app, id)).slice(1));
  return out;
}

export interface SidebarFeed {
  id: number;
  title: string;
  url: string;
  siteUrl: string | null;
  iconUrl: string | null;
  unread: number;
  folders: string[];
}
export interface Sidebar {
  unread: number;
  folders: { name: string; unread: number; feeds: number }[];
  tags: { name: string; articles: number }[];
  feeds: SidebarFeed[];
}

export async function sidebar(app: App, userId: number): Promise<Sidebar> {
  const labels = readerStore(app).labels;
  const subs = await labels.subscriptions(userId);
  const icons = await servedIcons(app, userId);
  const feeds: SidebarFeed[] = subs
    .map((s) => ({
      id: s.feedId,
      title: s.title,
      url: s.url,
      siteUrl: webUrl(s.siteUrl),
      iconUrl: icons.get(s.feedId) ?? null,
      unread: s.unreadCount,
      folders: s.folders,
    }))
    .sort((a, b) => byName.compare(a.title, b.title));
  const all = await labels.labels(userId);
  const folders = all
    // A label is a folder when feeds are filed in it, or when it holds nothing (a folder just made).
    .filter((l) => l.subscriptionCount > 0 || l.taggedCount === 0)
    .map((l) => ({ name: l.name, unread: l.unreadCount, feeds: l.subscriptionCount }))
    .sort((a, b) => byName.compare(a.name, b.name));
  const tags = all
    .filter((l) => l.subscriptionCount === 0 && l.taggedCount > 0)
    .map((l) => ({ name: l.name, articles: l.taggedCount }))
    .sort((a, b) => byName.compare(a.name, b.name));
  return { unread: feeds.reduce((n, f) => n + f.unread, 0), folders, tags, feeds };
}

/** Unread counts only (polled by the page): the trigger-maintained counters, never a recount. */
export async function unreadCounts(
  app: App,
  userId: number,
): Promise<{ unread: number; feeds: Record<number, number>; folders: Record<string, number> }> {
  const catalog = await userCatalog(app, userId);
  const counters = await readerStore(app).labels.unreadCounters(userId);
  const feeds: Record<number, number> = {};
  const folders: Record<string, number> = {};
  let unread = 0;
  for (const [feedId, count] of counters) {
    const e = catalog.byFeed.get(feedId);
    if (!e) continue;
    feeds[feedId] = count;
    unread += count;
    for (const f of e.folders) folders[f] = (folders[f] ?? 0) + count;
  }
  return { unread, feeds, folders };
}
