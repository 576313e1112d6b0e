// Turns stream ids (the stream asked for, `xt` exclusions, `it` inclusions, several `s`) into the
// storage filter over the user's items. Unknown feeds and labels are refused with 404 so a client
// typo never silently reads as an empty stream.
import type { ItemCondition, StateColumn } from '../model/stream.ts';
import type { ReaderLabelRepository } from '../store/repositories.ts';
import type { App } from '../runtime/app.ts';
import { LibraryError } from './errors.ts';
import { readerStore } from './repositories.ts';
import { userCatalog, type UserCatalog } from './catalog.ts';
import { normaliseInputUrl } from '../feeds/index.ts';
import { formatStreamId, type StreamId, type SystemState } from './stream-ids.ts';

export const STATE_COLUMN: Record<Exclude<SystemState, 'reading-list'>, StateColumn> = {
  read: 'read',
  starred: 'starred',
  like: 'liked',
  broadcast: 'broadcast',
  'saved-web-pages': 'saved',
};

/**
 * The user's subscribed feed for a stream url: as stored, else as the feed engine normalises input
 * (`http://x.org` -> `http://x.org/`), since clients also build stream ids from their own URLs.
 */
export async function subscribedFeedId(
  labels: ReaderLabelRepository,
  userId: number,
  url: string,
): Promise<number | undefined> {
  const exact = await labels.subscribedFeedId(userId, url);
  if (exact !== undefined) return exact;
  let normalised: string;
  try {
    normalised = normaliseInputUrl(url);
  } catch {
    return undefined;
  }
  return normalised === url ? undefined : labels.subscribedFeedId(userId, normalised);
}

/**
 * Conditions (ANDed) selecting the items of one stream, or excluding them when negate is set. The
 * reading list is the items of the user's subscriptions: items kept from feeds the user left
 * (starred or tagged) stay in their state and label streams only, so the reading list agrees with
 * unread-count, which sums subscriptions.
 */
export async function streamConditions(
  app: App,
  userId: number,
  s: StreamId,
  negate = false,
  catalog?: UserCatalog,
): Promise<ItemCondition[]> {
  const labels = readerStore(app).labels;
  switch (s.kind) {
    case 'state':
      if (s.state === 'reading-list') {
        if (negate) return [{ kind: 'nothing' }];
        const left = (catalog ?? (await userCatalog(app, userId))).leftFeedIds;
        return left.length ? [{ kind: 'feeds', feedIds: left, negate: true }] : [];
      }
      return [{ kind: 'state', column: STATE_COLUMN[s.state], value: negate ? 0 : 1 }];
    case 'feed': {
      // The catalog in memory knows the user's feeds by URL (its version is checked with the page);
      // other spellings of the URL go to the database.
      const feedId =
        catalog?.entries.find((e) => e.url === s.url)?.feedId ?? (await subscribedFeedId(labels, userId, s.url));
      if (feedId === undefined)
        throw new LibraryError(
          404,
          `unknown stream "${formatStreamId(s)}": no subscription to this feed (see subscription/list)`,
        );
      return [{ kind: 'feeds', feedIds: [feedId], negate }];
    }
    case 'label': {
      const labelId = await labels.findLabel(userId, s.name);
      if (labelId === undefined)
        throw new LibraryError(
          404,
          `unknown stream "${formatStreamId(s)}": no folder or tag with this name (names are case-sensitive; see tag/list)`,
        );
      const feedIds = await labels.folderFeedIds(userId, labelId);
      const tagged = await labels.hasTaggedItems(labelId);
      const folder: ItemCondition = { kind: 'feeds', feedIds, negate };
      const tag: ItemCondition = { kind: 'tagged', labelId, negate };
      if (feedIds.length && tagged) return negate ? [folder, tag] : [{ kind: 'any', of: [[folder], [tag]] }];
      return [tagged ? tag : folder];
    }
  }
}

/** Filter for one or more streams (union) with exclusions and inclusions applied. */
/** `catalog`: the user's catalog when the caller already read it (one version check per request). */
export async function buildFilter(
  app: App,
  userId: number,
  streams: StreamId[],
  exclude: StreamId[],
  include: StreamId[],
  catalog?: UserCatalog,
): Promise<ItemCondition[]> {
  const where: ItemCondition[] = [];
  if (streams.length === 1) where.push(...(await streamConditions(app, userId, streams[0]!, false, catalog)));
  else if (streams.length > 1) {
    const of: ItemCondition[][] = [];
    for (const s of streams) of.push(await streamConditions(app, userId, s, false, catalog));
    if (!of.some((c) => c.length === 0)) where.push({ kind: 'any', of });
  }
  for (const s of include) where.push(...(await streamConditions(app, userId, s, false, catalog)));
  for (const s of exclude) where.push(...(await streamConditions(app, userId, s, true, catalog)));
  return where;
}
