// The feed engine's services for one App: repositories and the shared HTTP fetcher (its
// connection pool and concurrency limits are per process, not per call). Memoized per App and
// closed with it. The operations live beside it: subscriptions.ts (subscribe/unsubscribe),
// refresh.ts (refreshFeed/refreshDue), scheduler/ (the background loop).
import { perApp, type App } from '../app.ts';
import type { FeedRepository, ItemRepository, SubscriptionRepository } from '../store/repositories.ts';
import { SqliteFeedRepository } from '../store/sqlite/feeds.ts';
import { SqliteItemRepository } from '../store/sqlite/items.ts';
import { SqliteSubscriptionRepository } from '../store/sqlite/subscriptions.ts';
import { FeedFetcher } from './fetcher/http-client.ts';
import { ParsePool, parseWorkerCount } from './parse-pool/parse-pool.ts';

export interface FeedEngine {
  feeds: FeedRepository;
  items: ItemRepository;
  subscriptions: SubscriptionRepository;
  fetcher: FeedFetcher;
  /** Parses refreshed feeds on worker threads (config.parseWorkers, see parseWorkerCount; 0 = on this thread). */
  parsePool: ParsePool;
}

export const feedEngine: (app: App) => FeedEngine = perApp((app) => {
  const fetcher = new FeedFetcher(app.config);
  const parsePool = new ParsePool(parseWorkerCount(app.config.parseWorkers));
  app.onClose(async () => { await parsePool.close(); await fetcher.close(); });
  return {
    feeds: new SqliteFeedRepository(app.db),
    items: new SqliteItemRepository(app.db),
    subscriptions: new SqliteSubscriptionRepository(app.db),
    fetcher,
    parsePool,
  };
});

export { subscribe, unsubscribe, type SubscribeResult } from './subscriptions.ts';
export { refreshFeed, refreshDue, type RefreshResult, type RefreshSummary } from './refresh.ts';
export { FeedError } from './errors.ts';
