// Subscriptions as the Reader API lists them, unread counts (from the trigger-maintained counters,
// never a recount), and labels: tag/list, rename-tag, disable-tag.
import type { App } from '../runtime/app.ts';
import type { SubscriptionView } from '../model/stream.ts';
import { ReaderError } from './errors.ts';
import { deleteLabel, newLabelProblem, renameLabel } from '../library/labels.ts';
import { labelStreamId, parseStreamId, stateStreamId } from './ids.ts';
import { readerStore } from '../library/repositories.ts';
import { catalogAt } from '../library/catalog.ts';

/** The `max` field of unread-count: the cap Google Reader clients display as "1000+". */
export const UNREAD_COUNT_MAX = 1000;

export function subscriptionList(app: App, userId: number): Promise<SubscriptionView[]> {
  return readerStore(app).labels.subscriptions(userId);
}

/**
 * The `unreadcounts` array as JSON: reading list, then each folder (sum of its feeds), then each
 * feed. Counts come from the trigger-maintained counters (one indexed read, never a recount);
 * stream ids from the cached catalog.
 */
export async function unreadCountsJson(app: App, userId: number): Promise<string> {
  // Counters and the catalog version in one read; the catalog from memory while that version holds.
  const { counters, catalogVersion } = await readerStore(app).labels.unreadCountersAndCatalogVersion(userId);
  const catalog = await catalogAt(app, userId, catalogVersion);
  let total = 0,
    newest = 0;
  const folders = new Map<string, { count: number; newest: number }>();
  const feeds: string[] = [];
  for (const [feedId, count, newestUs] of counters) {
    const e = catalog.byFeed.get(feedId);
    if (!e) continue; // subscribed after the catalog was read: counted on the next call
    total += count;
    if (newestUs > newest) newest = newestUs;
    for (const f of e.folderStreamIds) {
      const acc = folders.get(f);
      if (acc) {
        acc.count += count;
        if (newestUs > acc.newest) acc.newest = newestUs;
      } else folders.set(f, { count, newest: newestUs });
    }
    feeds.push(`{"id":${e.streamIdJson},"count":${count},"newestItemTimestampUsec":"${newestUs}"}`);
  }
  const head = `{"id":${JSON.stringify(stateStreamId('reading-list'))},"count":${total},"newestItemTimestampUsec":"${newest}"}`;
  const folderParts = [...folders].map(
    ([id, c]) => `{"id":${JSON.stringify(id)},"count":${c.count},"newestItemTimestampUsec":"${c.newest}"}`,
  );
  return '[' + [head, ...folderParts, ...feeds].join(',') + ']';
}

export type TagEntry = { id: string; type?: 'folder' | 'tag'; unread_count?: number };

export async function tagList(app: App, userId: number): Promise<TagEntry[]> {
  const out: TagEntry[] = [{ id: stateStreamId('starred') }];
  for (const l of await readerStore(app).labels.labels(userId)) {
    out.push(
      l.subscriptionCount > 0
        ? { id: labelStreamId(l.name), type: 'folder', unread_count: l.unreadCount }
        : { id: labelStreamId(l.name), type: 'tag' },
    );
  }
  return out;
}

async function labelIdOf(app: App, userId: number, raw: string | undefined, param: string): Promise<number> {
  if (!raw?.trim()) throw new ReaderError(400, `missing parameter ${param}: the label to change (user/-/label/<name>)`);
  const s = parseStreamId(raw, userId);
  if (s.kind !== 'label')
    throw new ReaderError(400, `${param}=${raw}: only labels (user/-/label/<name>) can be renamed or deleted`);
  const id = await readerStore(app).labels.findLabel(userId, s.name);
  if (id === undefined)
    throw new ReaderError(
      404,
      `unknown tag "${raw}": no folder or tag with this name (names are case-sensitive; see tag/list)`,
    );
  return id;
}

/** Refuses a name a new folder or tag would get (the library's rule: library/labels.ts). */
export function checkNewLabel(app: App, name: string, param: string): void {
  const problem = newLabelProblem(app, name);
  if (problem) throw new ReaderError(400, `${param}=user/-/label/…: the label ${problem}`);
}

/** Renames a folder or tag; renaming onto an existing name merges the two. */
export async function renameTag(
  app: App,
  userId: number,
  rawSource: string | undefined,
  rawDest: string | undefined,
): Promise<void> {
  const id = await labelIdOf(app, userId, rawSource, 's');
  if (!rawDest?.trim()) throw new ReaderError(400, 'missing parameter dest: the new label (user/-/label/<name>)');
  const dest = parseStreamId(rawDest, userId);
  if (dest.kind !== 'label')
    throw new ReaderError(400, `dest=${rawDest}: the new name must be a label (user/-/label/<name>)`);
  checkNewLabel(app, dest.name, 'dest');
  await renameLabel(app, userId, id, dest.name);
}

/** Deletes a folder or tag: subscriptions stay (unfiled), items lose the tag. */
export async function disableTag(app: App, userId: number, rawSource: string | undefined): Promise<void> {
  await deleteLabel(app, userId, await labelIdOf(app, userId, rawSource, 's'));
}
