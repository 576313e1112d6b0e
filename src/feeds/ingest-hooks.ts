// Other domains' steps in the feed pipeline, registered once per App (from createApp): after a
// feed's new items are stored and fanned out (filter rules shape each subscriber's view, then
// webhooks hear of it), after a new subscription's backfill, and at the end of a refresh round.
// A registry rather than imports, so the feed engine does not depend on the domains built on it.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';

export interface IngestHooks {
  /** Run in registration order (rules before webhooks): each sees what the previous ones did. */
  newItems: ((feedId: number, itemIds: number[]) => Promise<void>)[];
  subscribed: ((userId: number, feedId: number) => Promise<void>)[];
  roundEnd: (() => Promise<void>)[];
}

export const ingestHooks: (app: App) => IngestHooks = perApp(() => ({ newItems: [], subscribed: [], roundEnd: [] }));

export function onNewItems(app: App, hook: IngestHooks['newItems'][number]): void {
  ingestHooks(app).newItems.push(hook);
}
export function onSubscribed(app: App, hook: IngestHooks['subscribed'][number]): void {
  ingestHooks(app).subscribed.push(hook);
}
export function onRefreshRoundEnd(app: App, hook: IngestHooks['roundEnd'][number]): void {
  ingestHooks(app).roundEnd.push(hook);
}
