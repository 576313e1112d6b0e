// Refreshing feeds: fetch (conditional) -> parse -> store in one transaction -> schedule the next
// fetch -> tell listeners. A failure of one feed is recorded on that feed (status, actionable
// error, consecutive count, back-off) and never touches its stored items or other feeds.
import { createHash } from 'node:crypto';
import { collectGarbage, withCompactHeap } from '../runtime/startup-garbage.ts';
import type { App } from '../runtime/app.ts';
import type { FeedMetadata, FeedRecord } from '../model/feed-record.ts';
import type { ParsedFeed } from '../model/parsed-feed.ts';
import type { ItemChanges } from '../model/item.ts';
import { feedEngine } from './services.ts';
import { FeedError } from './errors.ts';
import type { FetchResponse } from './fetcher.ts';
import { FeedParseError } from './parser/feed-parse-error.ts';
import { scheduleAfterFailure, scheduleAfterSuccess } from './scheduler/next-fetch.ts';
import { withoutTruncatedTail } from './truncated-tail.ts';
import { afterIngest, afterRefreshRound } from './after-ingest.ts';
import { fullTextIdle } from './fulltext/fulltext.ts';
import { refreshFavicons } from './favicons.ts';
import { maintainWebSub, noteHub } from './websub/websub.ts';
import { observeFeedFetch } from '../observability/events.ts';
import { feedClaims } from './refresh-claims.ts';
import { HostQueues } from './scheduler/host-queues.ts';

const PUBLISH_SAMPLE = 20;

export interface RefreshResult {
  feedId: number;
  url: string;
  /** refreshed_elsewhere: another process was fetching the feed; this is the state it left (refreshFeedNow). */
  outcome: 'updated' | 'not_modified' | 'failed' | 'refreshed_elsewhere';
  added: number;
  updated: number;
  error: FeedError | null;
}

const nowS = () => Math.floor(Date.now() / 1000);

/** A parse failure, worded for the feed list. */
export function parseFailure(e: unknown): FeedError {
  const msg = (e as Error).message;
  return new FeedError('not_a_feed', /^not a feed/i.test(msg) ? msg : `not a feed: ${msg}`, { cause: e });
}

export function bodyHash(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}

/**
 * Stores a parsed feed: metadata, entries (new inserted + fanned out, changed updated in place),
 * validators and the next fetch time, all in one transaction; listeners hear of the changes after
 * the commit.
 */
export async function storeParsedFeed(
  app: App,
  feed: FeedRecord,
  parsed: ParsedFeed,
  res: FetchResponse,
  crawlUs: number,
  startedAt = performance.now() - res.durationMs,
  releaseClaimOf?: string,
  given?: GivenBody,
): Promise<ItemChanges> {
  const { feeds, items } = feedEngine(app);
  const fetchedAt = Math.floor(crawlUs / 1e6);
  parsed = withoutTruncatedTail(parsed, given?.tail ?? res.body);
  const metadata = {
    title: parsed.title || null,
    siteUrl: parsed.siteUrl,
    description: parsed.description,
    iconUrl: parsed.iconUrl,
    ttlMinutes: parsed.ttlMinutes,
  };
  const changes = await app.store.transaction(async () => {
    // Most fetches carry the metadata the feed already has: no write (one round trip less).
    if (metadataChanges(feed, metadata)) await feeds.updateMetadata(feed.id, metadata);
    const c = await items.upsertEntries(feed.id, parsed.entries, crawlUs);
    await recordFetched(app, feed, res, {
      fetchedAt,
      ttlMinutes: parsed.ttlMinutes,
      startedAt,
      releaseClaimOf,
      bodyHash: given?.hash ?? bodyHash(res.body),
    });
    return c;
  });
  app.notifyItemChanges(changes);
  return changes;
}

/**
 * What is kept of a body given away to the parse worker (ParsePool.parse, `giveAway`): its hash,
 * its last bytes (truncated-tail.ts reads 256) and its first 64 KiB (WebSub hub discovery).
 */
interface GivenBody {
  hash: string;
  tail: Buffer;
  head: Buffer;
}

function keepOf(body: Buffer, hash: string, needHead: boolean): GivenBody {
  return {
    hash,
    tail: Buffer.from(body.subarray(Math.max(0, body.length - 256))),
    head: needHead ? Buffer.from(body.subarray(0, 64 * 1024)) : Buffer.alloc(0),
  };
}

/**
 * A fetch that succeeded: its validators and the next fetch time, and the end of this process's
 * claim on the feed in the same write. `bodyHash` absent keeps the stored one (a 304 has no body).
 */
async function recordFetched(
  app: App,
  feed: FeedRecord,
  res: FetchResponse,
  at: { fetchedAt: number; ttlMinutes: number | null; startedAt: number; releaseClaimOf?: string; bodyHash?: string },
): Promise<void> {
  const { feeds } = feedEngine(app);
  const next = scheduleAfterSuccess(app.config, {
    now: at.fetchedAt,
    publishTimes: await feeds.recentPublishTimes(feed.id, PUBLISH_SAMPLE),
    ttlMinutes: at.ttlMinutes,
    maxAgeSeconds: res.maxAgeSeconds,
  });
  await feeds.recordSuccess(
    feed.id,
    {
      fetchedAt: at.fetchedAt,
      status: res.status,
      error: null,
      etag: res.etag,
      lastModified: res.lastModified,
      ...(at.bodyHash === undefined ? {} : { bodyHash: at.bodyHash }),
      durationMs: performance.now() - at.startedAt,
      ...next,
    },
    at.releaseClaimOf,
  );
}

/** Whether updateMetadata would change the stored feed (a missing value keeps the stored one). */
function metadataChanges(feed: FeedRecord, m: FeedMetadata): boolean {
  return (
    (m.title !== null && m.title !== feed.title) ||
    (m.siteUrl !== null && m.siteUrl !== feed.siteUrl) ||
    (m.description !== null && m.description !== feed.description) ||
    (m.iconUrl !== null && m.iconUrl !== feed.iconUrl) ||
    m.ttlMinutes !== feed.ttlMinutes
  );
}

async function recordFailure(
  app: App,
  feed: FeedRecord,
  error: FeedError,
  durationMs: number,
  releaseClaimOf?: string,
): Promise<void> {
  const { feeds } = feedEngine(app);
  const now = nowS();
  const next = scheduleAfterFailure(app.config, {
    now,
    errorCount: feed.errorCount + 1,
    retryAfterSeconds: error.retryAfterSeconds,
  });
  await feeds.recordFailure(
    feed.id,
    {
      fetchedAt: now,
      status: error.status ?? 0,
      error: error.message,
      durationMs,
      ...next,
    },
    releaseClaimOf,
  );
}

/** Moves the feed to where a permanent redirect points, unless another feed already lives there. */
async function followPermanentMove(app: App, feed: FeedRecord, res: FetchResponse): Promise<void> {
  if (!res.permanentUrl || res.permanentUrl === feed.url) return;
  if (await feedEngine(app).feeds.changeUrl(feed.id, res.permanentUrl)) {
    app.log.info({ feedId: feed.id, from: feed.url, to: res.permanentUrl }, 'feed moved permanently: URL updated');
  } else {
    // Merging two feeds' items and subscribers is not worth the risk: keep fetching the old URL.
    app.log.warn(
      { feedId: feed.id, from: feed.url, to: res.permanentUrl },
      'feed moved to a URL another feed already has: URL kept',
    );
  }
}

export async function refreshFeed(
  app: App,
  feedOrId: FeedRecord | number,
  opts: RefreshFeedOptions = {},
): Promise<RefreshResult> {
  const t0 = performance.now();
  const r = await fetchAndStore(app, feedOrId, opts);
  const outcome = r.error ? (opts.signal?.aborted ? 'cancelled' : 'failed') : r.outcome;
  observeFeedFetch(app, outcome, r.error?.code ?? null, (performance.now() - t0) / 1000);
  return r;
}

export interface RefreshFeedOptions {
  signal?: AbortSignal;
  /**
   * This process holds the feed's refresh claim (feedClaims): the success or failure write ends
   * it in the same statement, and FeedClaims.release then has nothing left to do for the feed.
   */
  claimed?: boolean;
  /**
   * Called when the fetch ended with a body to parse and store: the host's place can go to the
   * next feed (refreshDue), since the parse and the store ask nothing more of the host.
   */
  onFetched?: () => Promise<void>;
}

async function fetchAndStore(
  app: App,
  feedOrId: FeedRecord | number,
  opts: RefreshFeedOptions,
): Promise<RefreshResult> {
  const { feeds, fetcher } = feedEngine(app);
  const claims = opts.claimed ? feedClaims(app) : undefined;
  const releaseClaimOf = claims?.owner;
  const feed = typeof feedOrId === 'number' ? await feeds.findById(feedOrId) : feedOrId;
  if (!feed) throw new FeedError('bad_url', `no feed with id ${String(feedOrId)}`);
  const result: RefreshResult = {
    feedId: feed.id,
    url: feed.url,
    outcome: 'failed',
    added: 0,
    updated: 0,
    error: null,
  };
  const startedAt = performance.now();
  try {
    const res = await fetcher.fetch({
      url: feed.url,
      etag: feed.etag,
      lastModified: feed.lastModified,
      signal: opts.signal,
    });
    await followPermanentMove(app, feed, res);
    const crawlUs = Date.now() * 1000;
    // 304, or a server without validators sending the very same bytes: nothing to parse.
    const hash = res.notModified ? null : bodyHash(res.body);
    if (hash === null || hash === feed.bodyHash) {
      const fetchedAt = Math.floor(crawlUs / 1e6);
      await recordFetched(app, feed, res, { fetchedAt, ttlMinutes: feed.ttlMinutes, startedAt, releaseClaimOf });
      claims?.releasedWithRecord(feed.id);
      result.outcome = 'not_modified';
      return result;
    }
    // The fetch is over: the feed's place on its host goes to the next feed while this one is
    // parsed and stored (its claim stays until the store: no other process fetches it meanwhile).
    await opts.onFetched?.();
    // The body moves to the parse worker instead of being copied: what is needed of it after the
    // parse is kept first (the head only when hub discovery will read it: noteHub needs a public URL).
    const given = keepOf(res.body, hash, Boolean(app.config.publicUrl));
    let parsed: ParsedFeed;
    try {
      parsed = await feedEngine(app).parsePool.parse(
        res.body,
        { url: res.url, contentType: res.contentType, crawlTime: Math.floor(crawlUs / 1e6) },
        feed.id,
        true,
      );
    } catch (e) {
      if (e instanceof FeedParseError) throw parseFailure(e);
      throw e;
    }
    const changes = await storeParsedFeed(app, feed, parsed, res, crawlUs, startedAt, releaseClaimOf, given);
    claims?.releasedWithRecord(feed.id);
    await afterIngest(app, feed.id, changes);
    try {
      await noteHub(app, feed, given.head, res.linkHeader);
    } catch (e) {
      app.log.warn({ err: e, feedId: feed.id }, 'WebSub hub discovery failed');
    }
    Object.assign(result, { outcome: 'updated', added: changes.added.length, updated: changes.updated.length });
  } catch (e) {
    const error =
      e instanceof FeedError
        ? e
        : new FeedError('network', `internal error while refreshing: ${(e as Error).message}`, { cause: e });
    if (!(e instanceof FeedError))
      app.log.error({ err: e, feedId: feed.id, url: feed.url }, 'feed refresh failed unexpectedly');
    result.error = error;
    // A fetch cancelled by shutdown says nothing about the feed: no failure, no back-off.
    if (opts.signal?.aborted) return result;
    try {
      await recordFailure(app, feed, error, performance.now() - startedAt, releaseClaimOf);
      claims?.releasedWithRecord(feed.id);
    } catch (e2) {
      app.log.error({ err: e2, feedId: feed.id }, 'could not record feed failure');
    }
  }
  return result;
}

/**
 * Refreshes one feed now (the web app's "Refresh now"), unless another process is fetching it:
 * then waits for that fetch to end and reports the state it left, instead of fetching it twice.
 */
export async function refreshFeedNow(app: App, feedId: number): Promise<RefreshResult> {
  const claims = feedClaims(app);
  const feed = await claims.claimOne(feedId);
  if (feed) {
    try {
      return await refreshFeed(app, feed, { claimed: true });
    } finally {
      await claims.release([feed.id]);
    }
  }
  const giveUpAt = Date.now() + app.config.fetchTimeoutMs + app.config.claimLeaseSeconds * 1000;
  while (Date.now() < giveUpAt && (await claims.isClaimed(feedId))) await sleep(200);
  const f = await feedEngine(app).feeds.findById(feedId);
  if (!f) throw new FeedError('bad_url', `no feed with id ${feedId}`);
  return {
    feedId,
    url: f.url,
    outcome: 'refreshed_elsewhere',
    added: 0,
    updated: 0,
    error: f.lastError
      ? new FeedError(f.lastStatus && f.lastStatus >= 400 ? 'http' : 'network', f.lastError, { status: f.lastStatus })
      : null,
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export interface RefreshSummary {
  /** Feeds this process refreshed. */
  feeds: number;
  updated: number;
  notModified: number;
  failed: number;
  itemsAdded: number;
  itemsUpdated: number;
  /** Feeds that were due when the pass began and that another process refreshed meanwhile. */
  refreshedElsewhere: number;
  durationMs: number;
}

export interface RefreshDueOptions {
  /** Every subscribed feed, not just those due. */
  all?: boolean;
  onProgress?: (done: number, total: number, last: RefreshResult) => void;
  signal?: AbortSignal;
  /** At most this many feeds per call (the scheduler takes the most overdue first). */
  limit?: number;
  /**
   * Wait for this round's full-text fetching before returning (default true: `tidings refresh`
   * ends when the articles are in). The scheduler passes false so a long full-text backlog never
   * delays the next feed pass; the queue carries on in the background.
   */
  awaitFullText?: boolean;
}

/**
 * Refreshes every due feed with at most config.fetchConcurrency in flight (fetch, parse and store
 * together, so neither the network nor the database is flooded); per-host limits apply inside.
 * The due feeds are listed once into per-host queues (host-queues.ts), then claimed as fetch slots
 * free up (refresh-claims.ts), each feed once unless another process holds it or its host: a claim
 * asks only for feeds of hosts this process has room on, so feeds waiting for their host cost
 * nothing until a fetch on that host ends. Feeds another process holds, or on a host other
 * processes fill, are tried again after a wait that grows while they stay held; feeds another
 * process refreshed meanwhile are no longer due and are left out. So several processes refreshing
 * at once fetch each due feed once, and this pass ends when every listed feed is done (here or
 * elsewhere).
 */
export async function refreshDue(app: App, opts: RefreshDueOptions = {}): Promise<RefreshSummary> {
  const t0 = performance.now();
  const dueBy = opts.all ? Infinity : nowS();
  const listed = (await feedEngine(app).feeds.listDue(dueBy, opts.limit ?? 1_000_000)).map((f) => ({
    id: f.id,
    url: f.url,
  }));
  // A large pass (a first refresh after an import, a server back after a day off) mostly writes:
  // it runs with the store set for a batch workload (SQLite: no memory map, a 16 MB page cache),
  // which took a server's 1,000-feed first refresh from 487-499 MB peak RSS to 317-403 MB
  // (BENCHMARKS.md, Memory), and with V8's old generation kept near what is live (withCompactHeap:
  // 413-444 -> 290-303 MB). The scheduler's usual passes of a few feeds keep the serving settings.
  // A process opened for it (`tidings refresh`) also collects its main thread's garbage every
  // BATCH_GC_EVERY_FEEDS feeds (src/runtime/startup-garbage.ts, collectGarbage: not in a server).
  const gcEvery = app.role.workload === 'batch' ? BATCH_GC_EVERY_FEEDS : 0;
  return listed.length >= LARGE_PASS_FEEDS
    ? withCompactHeap(() => app.store.withWorkload('batch', () => refreshListed(app, opts, listed, dueBy, t0, gcEvery)))
    : refreshListed(app, opts, listed, dueBy, t0, gcEvery);
}

const BATCH_GC_EVERY_FEEDS = 100;

/** Due feeds in one pass from which refreshDue runs with the store set for a batch workload. */
export const LARGE_PASS_FEEDS = 100;

/** The longest wait between retries while this process waits in line for a host (a place kept for it is empty meanwhile). */
const HOST_RETRY_MAX_MS = 250;

/** Ids per claim when feeds left waiting are tried again (a claim's statement stays short). */
const RETRY_SLICE = 500;

async function refreshListed(
  app: App,
  opts: RefreshDueOptions,
  listed: { id: number; url: string }[],
  dueBy: number,
  t0: number,
  gcEvery: number,
): Promise<RefreshSummary> {
  const claims = feedClaims(app);
  const summary: RefreshSummary = {
    feeds: 0,
    updated: 0,
    notModified: 0,
    failed: 0,
    itemsAdded: 0,
    itemsUpdated: 0,
    refreshedElsewhere: 0,
    durationMs: 0,
  };
  // Claims run a little ahead of the fetch slots (`ahead` feeds claimed and waiting), so a slot
  // does not wait on the next claim, without holding feeds (and places on hosts) long before this
  // process gets to them: the places it does not need go to the other processes.
  const slots = app.config.fetchConcurrency;
  const ahead = Math.max(2, Math.ceil(slots / 2));
  const batchSize = Math.max(8, slots * 2);
  const hosts = new HostQueues(listed, app.config.perHostConcurrency);
  const queue: FeedRecord[] = [];
  // Feeds another process holds, or whose host other processes fill: tried again after a wait.
  let deferred: number[] = [];
  let retryAt = 0;
  let backoffMs = 50;
  // A claim refused by a full host made this process wait for it (refresh-claims.ts): ended with the pass.
  let waitsForHosts = false;
  let inFlight = 0;
  let released = Promise.withResolvers<void>();
  const aborted = () => opts.signal?.aborted ?? false;
  const take = async (ids: number[]): Promise<number> => {
    const r = await claims.claimListed(ids, dueBy);
    const got = new Set<number>();
    for (const f of r.claimed) got.add(f.id);
    hosts.answered(ids, got);
    r.claimed.sort((a, b) => a.nextFetchAt - b.nextFetchAt || a.id - b.id);
    queue.push(...r.claimed);
    if (r.held.length) {
      deferred.push(...r.held);
      // A host other processes fill is left alone until the retry: asking again at once would be
      // refused again. A feed another process holds says nothing of its host's other feeds.
      for (const id of r.hostFull) hosts.block(id);
      if (r.hostFull.length) waitsForHosts = true;
      retryAt ||= Date.now() + backoffMs;
    }
    summary.refreshedElsewhere += ids.length - r.claimed.length - r.held.length;
    return r.claimed.length;
  };
  const refill = async (): Promise<void> => {
    const asked = hosts.ask(slots + ahead - queue.length - inFlight);
    if (asked.length) {
      await take(asked);
      return;
    }
    if (deferred.length && Date.now() >= retryAt) {
      // Only feeds held elsewhere, or on hosts others fill, are left to ask for: try them again.
      const retry = deferred;
      deferred = [];
      retryAt = 0;
      hosts.unblockAll();
      let got = 0;
      let k = 0;
      for (; k < retry.length && got < batchSize; k += RETRY_SLICE) got += await take(retry.slice(k, k + RETRY_SLICE));
      deferred.push(...retry.slice(k));
      // At most one retry per wait, however the fetches end: the waiting list costs time, not feeds squared.
      // Waiting in line for a host (refresh-claims.ts), the place kept for this process stays empty
      // until it asks again: then at most HOST_RETRY_MAX_MS between asks.
      backoffMs = got ? 50 : Math.min(backoffMs * 2, waitsForHosts ? HOST_RETRY_MAX_MS : 2000);
      retryAt = Date.now() + backoffMs;
      return;
    }
    // Nothing left to claim (a claim ahead of need found the last feeds taken): the pass ends with the fetches in flight.
    if (!deferred.length && !hosts.pending) return;
    // Every host with feeds left is at its limit here, or waits for the retry: wait for a place
    // (one of this process's fetches ends) or for the retry, whichever comes first.
    // (No timer when only a place is awaited: one per fetch ending was a tenth of an unchanged refresh's CPU.)
    if (!deferred.length && inFlight > 0) await released.promise;
    else {
      const wait = deferred.length ? Math.max(0, retryAt - Date.now()) : 50;
      await (inFlight > 0 ? Promise.race([released.promise, sleep(wait, opts.signal)]) : sleep(wait, opts.signal));
    }
  };
  let refilling: Promise<void> | null = null;
  const startRefill = () =>
    (refilling ??= refill().finally(() => {
      refilling = null;
    }));
  const nextFeed = async (): Promise<FeedRecord | undefined> => {
    while (!aborted()) {
      const f = queue.shift();
      if (f) {
        // Counted from here, so a refill never sees a host full with nothing in flight to free it.
        inFlight++;
        // Claim the next batch before this one runs dry, so fetch slots do not wait on the claim.
        // (When half of those ahead are gone: a claim of a few feeds each time one starts cost a statement a feed.)
        if (queue.length <= ahead / 2 && hosts.hasReady() && !refilling) void startRefill().catch(() => {});
        return f;
      }
      if (!hosts.pending && !deferred.length && !refilling) return undefined;
      await startRefill();
    }
    return undefined;
  };
  let done = 0;
  const worker = async () => {
    for (let feed = await nextFeed(); feed; feed = await nextFeed()) {
      let r: RefreshResult;
      // The feed's place on its host, here (HostQueues) and in the claims (fetchDone), ends with
      // its fetch: a host's places bound its fetches, not the parse worker's queue and the
      // database's writes behind them (2,000 feeds on one host with 4 places: 2.5 fetches at a
      // time on average before, BENCHMARKS.md). The feed itself counts in `inFlight` until it is
      // stored: the pass never runs more feeds at once than it has fetch slots.
      let placeFreed = false;
      const freePlace = () => {
        if (placeFreed) return;
        placeFreed = true;
        hosts.done(feed.id);
        released.resolve();
        released = Promise.withResolvers<void>();
      };
      const onFetched = async () => {
        try {
          await claims.fetchDone(feed.id);
        } catch (err) {
          // The place is then held until the feed's store, as a claim always was.
          app.log.warn({ err, feedId: feed.id }, 'could not free the host place of a fetched feed');
          return;
        }
        freePlace();
      };
      try {
        r = await refreshFeed(app, feed, { signal: opts.signal, claimed: true, onFetched });
      } finally {
        await claims.release([feed.id]);
        inFlight--;
        freePlace();
      }
      summary.feeds++;
      if (r.outcome === 'updated') summary.updated++;
      else if (r.outcome === 'not_modified') summary.notModified++;
      else summary.failed++;
      summary.itemsAdded += r.added;
      summary.itemsUpdated += r.updated;
      opts.onProgress?.(++done, listed.length - summary.refreshedElsewhere, r);
      if (gcEvery && done % gcEvery === 0) collectGarbage();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(app.config.fetchConcurrency, listed.length) }, worker));
  } finally {
    // Cancelled (shutdown): feeds claimed but not started go back at once, not when the claims run out.
    await claims.release(queue.splice(0).map((f) => f.id));
    if (waitsForHosts) await claims.endWaits();
  }
  // Full text of this round's new items runs in the background; a refresh is done when it is.
  if (opts.awaitFullText !== false) await fullTextIdle(app);
  // Feeds without an icon (new ones) or with a month-old one get it looked up.
  if (!opts.signal?.aborted) {
    try {
      await refreshFavicons(app, { signal: opts.signal });
    } catch (e) {
      app.log.warn({ err: e }, 'favicon lookups failed');
    }
    // WebSub: subscribe to announced hubs, renew leases, unsubscribe feeds nobody follows.
    try {
      await maintainWebSub(app);
    } catch (e) {
      app.log.warn({ err: e }, 'WebSub maintenance failed');
    }
    // Other domains' end-of-round steps: webhook deliveries and retries that came due (the CLI has no timer running).
    await afterRefreshRound(app);
  }
  summary.durationMs = performance.now() - t0;
  return summary;
}
