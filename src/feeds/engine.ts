// The feed engine's services for one App: repositories and the shared HTTP fetcher (its
// connection pool and concurrency limits are per process, not per call). Memoized per App and
// closed with it. The operations live beside it: subscriptions.ts (subscribe/unsubscribe),
// refresh.ts (refreshFeed/refreshDue), scheduler/ (the background loop).
import type { App } from '../app.ts';
import type { FeedRepository, ItemRepository, SubscriptionRepository } from '../store/repositories.ts';
import { SqliteFeedRepository } from '../store/sqlite/feeds.ts';
import { SqliteItemRepository } from '../store/sqlite/items.ts';
import { SqliteSubscriptionRepository } from '../store/sqlite/subscriptions.ts';
import { FeedFetcher } from './fetcher/http-client.ts';

export interface FeedEngine {
  feeds: FeedRepository;
  items: ItemRepository;
  subscriptions: SubscriptionRepository;
  fetcher: FeedFetcher;
}

const engines = new WeakMap<App, FeedEngine>();

export function feedEngine(app: App): FeedEngine {
  let e = engines.get(app);
  if (!e) {
    e = {
      feeds: new SqliteFeedRepository(app.db),
      items: new SqliteItemRepository(app.db),
      subscriptions: new SqliteSubscriptionRepository(app.db),
      fetcher: new FeedFetcher(app.config),
    };
    engines.set(app, e);
    const fetcher = e.fetcher;
    app.onClose(() => fetcher.close());
  }
  return e;
}

export { subscribe, unsubscribe, type SubscribeResult } from './subscriptions.ts';
export { refreshFeed, refreshDue, type RefreshResult, type RefreshSummary } from './refresh.ts';
export { FeedError } from './errors.ts';
