// The Fever API (v3) over a user's items: what each request argument returns and what each mark
// does. Free of HTTP: the plugin passes the merged parameters and sends the object back as JSON.
// Several read arguments may be combined in one request (FreshRSS answers them all; Miniflux only
// the first): every one present is answered, after the mark (if any) is applied.
import type { App } from '../runtime/app.ts';
import { readerStore } from '../library/repositories.ts';
import type { ItemCondition } from '../model/stream.ts';
import { userCatalog } from '../library/catalog.ts';
import { feverStore } from './repositories.ts';
import { feverFavicons, feverFaviconIds } from './favicons.ts';
import { markAllRead, setFlag } from '../library/item-states.ts';
import type { FeverItemRow } from '../store/repositories.ts';

export const FEVER_API_VERSION = 3;
/** Items per page, as the Fever spec and every implementation use. */
const FEVER_PAGE = 50;

export interface FeverParams {
  has(name: string): boolean;
  get(name: string): string | undefined;
}

/** A refused request: the answer keeps the Fever shape, with `error` saying what to fix. */
export class FeverError extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.status = status;
  }
}

function intParam(p: FeverParams, name: string, { min = 0 } = {}): number | undefined {
  const raw = p.get(name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d{1,16}$/.test(raw) || Number(raw) < min)
    throw new FeverError(`${name} must be an integer${min === 0 ? ' ≥ 0' : ` ≥ ${min}`}, got "${raw}"`);
  return Number(raw);
}

function idList(raw: string, name: string): number[] {
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!/^\d{1,16}$/.test(id)) throw new FeverError(`${name} must be comma-separated item ids, got "${id}"`);
  return [...new Set(ids.map(Number))];
}

/** The Unix second a mark=feed/group applies up to (items crawled at or before it); absent: now. */
function beforeUs(p: FeverParams): number {
  const before = intParam(p, 'before');
  return before === undefined || before === 0 ? Date.now() * 1000 : before * 1_000_000 + 999_999;
}

async function markItem(app: App, userId: number, p: FeverParams): Promise<'unread' | 'saved'> {
  const as = p.get('as');
  const raw = p.get('id')?.trim();
  if (!raw) throw new FeverError('mark=item needs id=<item id>');
  const ids = idList(raw, 'id');
  switch (as) {
    case 'read':
      await setFlag(app, userId, 'read', true, ids);
      return 'unread';
    case 'unread':
      await setFlag(app, userId, 'read', false, ids);
      return 'unread';
    case 'saved':
      await setFlag(app, userId, 'starred', true, ids);
      return 'saved';
    case 'unsaved':
      await setFlag(app, userId, 'starred', false, ids);
      return 'saved';
    default:
      throw new FeverError(`mark=item takes as=read, unread, saved or unsaved, got as=${as ?? '(missing)'}`);
  }
}

async function markFeedOrGroup(app: App, userId: number, kind: 'feed' | 'group', p: FeverParams): Promise<void> {
  if (p.get('as') !== 'read')
    throw new FeverError(`mark=${kind} takes as=read only, got as=${p.get('as') ?? '(missing)'}`);
  const id = intParam(p, 'id', { min: -1 });
  if (id === undefined) throw new FeverError(`mark=${kind} needs id=<${kind} id>`);
  const { labels } = readerStore(app);
  let where: ItemCondition[];
  if (kind === 'feed') {
    const subscribed = (await labels.subscriptions(userId)).some((s) => s.feedId === id);
    if (!subscribed) throw new FeverError(`unknown feed id ${id}: not one of this user's feeds (see ?api&feeds)`, 404);
    where = [{ kind: 'feeds', feedIds: [id], negate: false }];
  } else if (id === -1) {
    return; // Sparks: Tidings has no spark feeds, so the group is empty.
  } else if (id === 0) {
    // Kindling: every subscribed feed (items kept from feeds the user left stay as they are).
    const left = (await userCatalog(app, userId)).leftFeedIds;
    where = left.length ? [{ kind: 'feeds', feedIds: left, negate: true }] : [];
  } else {
    const folder = (await labels.labels(userId)).find((l) => l.id === id && l.subscriptionCount > 0);
    if (!folder) throw new FeverError(`unknown group id ${id}: not one of this user's groups (see ?api&groups)`, 404);
    where = [{ kind: 'feeds', feedIds: await labels.folderFeedIds(userId, id), negate: false }];
  }
  const maxUs = beforeUs(p);
  await markAllRead(app, userId, where, maxUs);
}

async function feedsGroups(app: App, userId: number): Promise<{ group_id: number; feed_ids: string }[]> {
  const { labels } = readerStore(app);
  const out: { group_id: number; feed_ids: string }[] = [];
  for (const l of await labels.labels(userId)) {
    if (l.subscriptionCount === 0) continue;
    out.push({ group_id: l.id, feed_ids: (await labels.folderFeedIds(userId, l.id)).join(',') });
  }
  return out;
}

async function items(app: App, userId: number, p: FeverParams): Promise<Record<string, unknown>> {
  const store = feverStore(app);
  let rows: FeverItemRow[];
  const withIds = p.get('with_ids')?.trim();
  if (withIds) {
    const ids = idList(withIds, 'with_ids');
    if (ids.length > FEVER_PAGE) throw new FeverError(`with_ids takes at most ${FEVER_PAGE} ids, got ${ids.length}`);
    rows = await store.itemsWithIds(userId, ids);
  } else if (p.has('since_id') && !p.has('max_id')) {
    rows = await store.itemsAfter(userId, intParam(p, 'since_id') ?? 0, FEVER_PAGE);
  } else if (p.has('max_id')) {
    const max = intParam(p, 'max_id') ?? 0;
    rows = await store.itemsBefore(userId, max === 0 ? Number.MAX_SAFE_INTEGER : max, FEVER_PAGE);
  } else {
    rows = await store.itemsAfter(userId, 0, FEVER_PAGE); // no argument: the oldest items first, as Fever did
  }
  return {
    items: rows.map((r) => ({
      id: r.id,
      feed_id: r.feedId,
      title: r.title,
      author: r.author ?? '',
      html: r.html,
      url: r.url ?? '',
      is_saved: r.isSaved ? 1 : 0,
      is_read: r.isRead ? 1 : 0,
      created_on_time: r.createdOnTime,
    })),
    total_items: await store.itemCount(userId),
  };
}

/** Answers one authenticated Fever request. */
export async function feverResponse(app: App, userId: number, p: FeverParams): Promise<Record<string, unknown>> {
  const store = feverStore(app);
  const out: Record<string, unknown> = { api_version: FEVER_API_VERSION, auth: 1 };
  const mark = p.get('mark');
  let markedList: 'unread' | 'saved' | undefined;
  if (mark !== undefined) {
    if (mark === 'item') markedList = await markItem(app, userId, p);
    else if (mark === 'feed' || mark === 'group') {
      await markFeedOrGroup(app, userId, mark, p);
      markedList = 'unread';
    } else throw new FeverError(`mark takes item, feed or group, got mark=${mark}`);
  }
  out.last_refreshed_on_time = await store.lastRefreshedOn(userId);
  const { labels } = readerStore(app);
  if (p.has('groups')) {
    out.groups = (await labels.labels(userId))
      .filter((l) => l.subscriptionCount > 0)
      .map((l) => ({ id: l.id, title: l.name }));
    out.feeds_groups = await feedsGroups(app, userId);
  }
  if (p.has('feeds')) {
    const updated = await store.feedsUpdatedOn(userId);
    const icons = await feverFaviconIds(app, userId);
    out.feeds = (await labels.subscriptions(userId)).map((s) => ({
      id: s.feedId,
      favicon_id: icons.get(s.feedId) ?? 0,
      title: s.title,
      url: s.url,
      site_url: s.siteUrl ?? '',
      is_spark: 0,
      last_updated_on_time: updated.get(s.feedId) ?? 0,
    }));
    out.feeds_groups = await feedsGroups(app, userId);
  }
  if (p.has('favicons')) out.favicons = await feverFavicons(app, userId);
  if (p.has('items')) Object.assign(out, await items(app, userId, p));
  if (p.has('links')) out.links = []; // Hot links (Fever's link popularity) are not computed.
  // After a mark, the list it changed, as FreshRSS answers, so a client can resync at once.
  if (p.has('unread_item_ids') || markedList === 'unread') out.unread_item_ids = await store.unreadItemIds(userId);
  if (p.has('saved_item_ids') || markedList === 'saved') out.saved_item_ids = await store.savedItemIds(userId);
  return out;
}
