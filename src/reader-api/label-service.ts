// Subscriptions as the Reader API lists them, unread counts (from the trigger-maintained counters,
// never a recount), and labels: tag/list, rename-tag, disable-tag.
import type { App } from '../app.ts';
import type { SubscriptionView } from '../model/stream.ts';
import { ReaderError } from './errors.ts';
import { feedStreamId, labelStreamId, parseStreamId, stateStreamId } from './ids.ts';
import { readerStore } from './store.ts';

/** The `max` field of unread-count: the cap Google Reader clients display as "1000+". */
export const UNREAD_COUNT_MAX = 1000;

export function subscriptionList(app: App, userId: number): SubscriptionView[] {
  return readerStore(app).labels.subscriptions(userId);
}

export interface UnreadCount { id: string; count: number; newestItemTimestampUsec: string }

/** Reading list, then each folder (sum of its feeds), then each feed. */
export function unreadCounts(app: App, userId: number): UnreadCount[] {
  const subs = readerStore(app).labels.subscriptions(userId);
  let total = 0, newest = 0;
  const folders = new Map<string, { count: number; newest: number }>();
  const feeds: UnreadCount[] = [];
  for (const s of subs) {
    total += s.unreadCount;
    if (s.newestItemUs > newest) newest = s.newestItemUs;
    for (const f of s.folders) {
      const acc = folders.get(f) ?? { count: 0, newest: 0 };
      acc.count += s.unreadCount;
      if (s.newestItemUs > acc.newest) acc.newest = s.newestItemUs;
      folders.set(f, acc);
    }
    feeds.push({ id: feedStreamId(s.url), count: s.unreadCount, newestItemTimestampUsec: String(s.newestItemUs) });
  }
  return [
    { id: stateStreamId('reading-list'), count: total, newestItemTimestampUsec: String(newest) },
    ...[...folders].map(([name, c]) => ({ id: labelStreamId(name), count: c.count, newestItemTimestampUsec: String(c.newest) })),
    ...feeds,
  ];
}

export type TagEntry = { id: string; type?: 'folder' | 'tag'; unread_count?: number };

export function tagList(app: App, userId: number): TagEntry[] {
  const out: TagEntry[] = [{ id: stateStreamId('starred') }];
  for (const l of readerStore(app).labels.labels(userId)) {
    out.push(l.subscriptionCount > 0
      ? { id: labelStreamId(l.name), type: 'folder', unread_count: l.unreadCount }
      : { id: labelStreamId(l.name), type: 'tag' });
  }
  return out;
}

function labelIdOf(app: App, userId: number, raw: string | undefined, param: string): number {
  if (!raw?.trim()) throw new ReaderError(400, `missing parameter ${param}: the label to change (user/-/label/<name>)`);
  const s = parseStreamId(raw, userId);
  if (s.kind !== 'label') throw new ReaderError(400, `${param}=${raw}: only labels (user/-/label/<name>) can be renamed or deleted`);
  const id = readerStore(app).labels.findLabel(userId, s.name);
  if (id === undefined) throw new ReaderError(404, `unknown tag "${raw}": no folder or tag with this name (names are case-sensitive; see tag/list)`);
  return id;
}

/** Renames a folder or tag; renaming onto an existing name merges the two. */
export function renameTag(app: App, userId: number, rawSource: string | undefined, rawDest: string | undefined): void {
  const id = labelIdOf(app, userId, rawSource, 's');
  if (!rawDest?.trim()) throw new ReaderError(400, 'missing parameter dest: the new label (user/-/label/<name>)');
  const dest = parseStreamId(rawDest, userId);
  if (dest.kind !== 'label') throw new ReaderError(400, `dest=${rawDest}: the new name must be a label (user/-/label/<name>)`);
  readerStore(app).labels.renameLabel(userId, id, dest.name);
}

/** Deletes a folder or tag: subscriptions stay (unfiled), items lose the tag. */
export function disableTag(app: App, userId: number, rawSource: string | undefined): void {
  readerStore(app).labels.deleteLabel(userId, labelIdOf(app, userId, rawSource, 's'));
}
