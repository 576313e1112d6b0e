// The feed engine's services for one App: repositories and the shared HTTP fetcher (its
// connection pool and concurrency limits are per process, not per call). Memoized per App and
// closed with it. Other domains import ./index.ts (the entry module), not this file.
import { perApp } from '../runtime/per-app.ts';
import { reportMemoryUse } from '../observability/events.ts';
import type { App } from '../runtime/app.ts';
import type { FeedRepository, ItemRepository, SubscriptionRepository } from '../store/repositories.ts';
import { FeedFetcher } from './fetcher.ts';
import type { LookupAll } from '../net/address-guard.ts';
import { ParsePool, parseWorkerCount } from './parse-pool/parse-pool.ts';

export interface FeedEngine {
  feeds: FeedRepository;
  items: ItemRepository;
  subscriptions: SubscriptionRepository;
  fetcher: FeedFetcher;
  /** Parses refreshed feeds on worker threads (config.parseWorkers, see parseWorkerCount; 0 = on this thread). */
  parsePool: ParsePool;
}

const dnsLookups = new WeakMap<App, LookupAll>();

/**
 * The DNS lookup the App's fetcher resolves names with, instead of dns.lookup (tests: a name that
 * never answers). Set before the App's first fetch.
 */
export function useDnsLookup(app: App, lookup: LookupAll): void {
  dnsLookups.set(app, lookup);
}

export const feedEngine: (app: App) => FeedEngine = perApp((app) => {
  const fetcher = new FeedFetcher(app.config, { lookup: dnsLookups.get(app) });
  const parsePool = new ParsePool(parseWorkerCount(app.config.parseWorkers));
  reportMemoryUse(app, 'parse_workers_heap', () => parsePool.heapBytes());
  app.onClose(async () => {
    // Fetches in flight end first (undici's close waits for them), then the parses they lead to.
    await fetcher.close();
    await parsePool.close();
  });
  return {
    feeds: app.store.feeds,
    items: app.store.items,
    subscriptions: app.store.subscriptions,
    fetcher,
    parsePool,
  };
});
