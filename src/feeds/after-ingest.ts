// What happens to a feed's items right after they are stored and fanned out to subscribers, in
// order: the hooks other domains registered (./ingest-hooks.ts: each subscriber's filter rules,
// then their new-item webhooks), then the feed is queued for full text (fetched in the background,
// never blocking the refresh). Called by refresh, subscribe and WebSub pushes; a failing hook is
// logged and never fails the feed (its items are stored).
import type { App } from '../runtime/app.ts';
import type { ItemChanges } from '../model/item.ts';
import { fullTextQueue } from './fulltext/fulltext.ts';
import { ingestHooks } from './ingest-hooks.ts';

export async function afterIngest(app: App, feedId: number, changes: ItemChanges): Promise<void> {
  if (changes.added.length) {
    for (const hook of ingestHooks(app).newItems) {
      try {
        await hook(feedId, changes.added);
      } catch (e) {
        app.log.error({ err: e, feedId }, 'a new-items step failed');
      }
    }
  }
  // An updated entry has the feed's content again: its full text is fetched anew.
  if (changes.added.length || changes.updated.length) fullTextQueue(app).schedule(feedId);
}

/** A new subscription to a feed that already had items (the backfill). */
export async function afterSubscribe(app: App, userId: number, feedId: number): Promise<void> {
  for (const hook of ingestHooks(app).subscribed) {
    try {
      await hook(userId, feedId);
    } catch (e) {
      app.log.error({ err: e, userId, feedId }, 'a new-subscription step failed');
    }
  }
}

/** The end of a refresh round (after full text and favicons): deliveries, retries. */
export async function afterRefreshRound(app: App): Promise<void> {
  for (const hook of ingestHooks(app).roundEnd) {
    try {
      await hook();
    } catch (e) {
      app.log.warn({ err: e }, 'an end-of-round step failed');
    }
  }
}
