// What happens to a feed's items right after they are stored and fanned out to subscribers, in
// order: each subscriber's filter rules (src/rules) shape that subscriber's view, their new-item
// webhooks are queued (src/webhooks), then the feed is queued for full text (fetched in the background, never blocking the refresh). Called by
// refresh and subscribe; failures here are logged and never fail the feed (its items are stored).
import type { App } from '../app.ts';
import type { ItemChanges } from '../model/item.ts';
import { applyRulesToNewItems, applyRulesToSubscription } from '../rules/rules.ts';
import { fullTextQueue } from './fulltext/fulltext.ts';
import { emitNewItems } from '../webhooks/webhooks.ts';

export async function afterIngest(app: App, feedId: number, changes: ItemChanges): Promise<void> {
  if (changes.added.length) {
    try {
      await applyRulesToNewItems(app, feedId, changes.added);
    } catch (e) {
      app.log.error({ err: e, feedId }, 'applying filter rules to new items failed');
    }
    // After the rules: each subscriber's webhooks get the items that subscriber sees.
    await emitNewItems(app, feedId, changes.added);
  }
  // An updated entry has the feed's content again: its full text is fetched anew.
  if (changes.added.length || changes.updated.length) fullTextQueue(app).schedule(feedId);
}

/** A new subscription to a feed that already had items: the user's rules shape the backfill. */
export async function afterSubscribe(app: App, userId: number, feedId: number): Promise<void> {
  try {
    await applyRulesToSubscription(app, userId, feedId);
  } catch (e) {
    app.log.error({ err: e, userId, feedId }, 'applying filter rules to a new subscription failed');
  }
}
