// The feeds domain's entry module: what other domains (Reader API, CLI, tests) use of it. The
// services live in ./services.ts, the operations beside it: subscriptions.ts (subscribe/
// unsubscribe), refresh.ts (refreshFeed/refreshDue), opml/, scheduler/ (the background loop).
export { feedEngine, type FeedEngine } from './services.ts';
export {
  subscribe,
  unsubscribe,
  findSubscription,
  normaliseInputUrl,
  discoverFeeds,
  type SubscribeResult,
  type FeedCandidate,
} from './subscriptions.ts';
export { refreshFeed, refreshFeedNow, refreshDue, type RefreshResult, type RefreshSummary } from './refresh.ts';
export { FeedError } from './errors.ts';
export { importOpml, exportOpml, OPML_IMPORT_CHUNK, type OpmlImportResult } from './opml/import-export.ts';
export { OpmlError } from './opml/opml-error.ts';
export { startScheduler } from './scheduler/scheduler.ts';
export { refreshSoon, setRefreshWaker } from './scheduler/refresh-soon.ts';
export { onNewItems, onSubscribed, onRefreshRoundEnd } from './ingest-hooks.ts';
export { labelNameProblem } from './label-name.ts';
export { labelLimitProblem, labelsPerRequestProblem, MAX_LABELS_PER_REQUEST } from './label-limits.ts';
export { ParsePool } from './parse-pool/parse-pool.ts';
