// Subscribing a user to a feed given its URL or a site page's URL. A feed already known is not
// fetched again (it is shared by all its subscribers); a new one is fetched and parsed at once so
// the subscription shows items immediately. A page (HTML) gets its feed discovered.
import type { App } from '../runtime/app.ts';
import type { FeedRecord, SubscriptionRecord } from '../model/feed-record.ts';
import type { ParsedFeed } from '../model/parsed-feed.ts';
import { feedEngine } from './services.ts';
import { FeedError } from './errors.ts';
import { parseFeedUrl, type FetchResponse } from './fetcher.ts';
import { commonFeedUrls, type FeedLink } from './discovery/find-feed-links.ts';
import { FeedParseError } from './parser/feed-parse-error.ts';
import { labelNameProblem } from './label-name.ts';
import { labelLimitProblem } from './label-limits.ts';
import { parseFailure, storeParsedFeed } from './refresh.ts';
import { afterIngest, afterSubscribe } from './after-ingest.ts';
import { noteHub } from './websub/websub.ts';

export interface SubscribeOptions {
  /** The user's own title for the subscription. */
  title?: string | null;
  /** Folder names (labels) to file the subscription under. */
  folders?: string[];
}

export interface SubscribeResult {
  feedId: number;
  subscriptionId: number;
  /** Google Reader stream id: `feed/<url>`. */
  streamId: string;
  title: string;
  url: string;
  /** False when the user was already subscribed. */
  created: boolean;
}

/** Accepts `https://…`, `feed/https://…` (Reader stream ids, even repeated), and bare `example.org/feed`. */
export function normaliseInputUrl(input: string): string {
  let s = input.trim();
  while (/^feed\//i.test(s)) s = s.slice(5);
  if (!s) throw new FeedError('bad_url', 'no URL given');
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = `https://${s.replace(/^\/+/, '')}`;
  try {
    return parseFeedUrl(s).href;
  } catch (e) {
    // Name what the user typed, not our https:// guess.
    if (e instanceof FeedError && !s.startsWith(input.trim()))
      throw new FeedError('bad_url', `"${input.trim()}" is not a valid URL`);
    throw e;
  }
}

interface Found {
  url: string;
  res: FetchResponse;
  parsed: ParsedFeed | null;
  known: FeedRecord | null;
}

function looksLikeHtml(res: FetchResponse): boolean {
  if (/html/i.test(res.contentType ?? '')) return true;
  const head = res.body.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

/**
 * The parsed feed, or the reason the body is not one (a page, maybe: then discovery runs). Parsed
 * on a parse worker under its time limit, like a refresh: a crafted feed parsed here froze every
 * request for 5-15 s (issue 25.2).
 */
async function tryParse(app: App, res: FetchResponse): Promise<ParsedFeed | FeedParseError> {
  try {
    return await feedEngine(app).parsePool.parse(res.body, {
      url: res.url,
      contentType: res.contentType,
      crawlTime: Math.floor(Date.now() / 1000),
    });
  } catch (e) {
    if (e instanceof FeedParseError) return e;
    throw e;
  }
}

/** The feed links a page announces, read on a parse worker. */
async function feedLinksOf(app: App, res: FetchResponse): Promise<FeedLink[]> {
  return feedEngine(app).parsePool.findFeedLinks(res.body, res.url, res.contentType);
}

/** Fetches the URL; if it is a page, looks for its feed: announced links first, then common paths. */
async function fetchFeedOrDiscover(app: App, url: string): Promise<Found> {
  const { fetcher, feeds } = feedEngine(app);
  const res = await fetcher.fetch({ url });
  const target = res.permanentUrl ?? url;
  const parsed = await tryParse(app, res);
  if (!(parsed instanceof FeedParseError)) return { url: target, res, parsed, known: null };
  if (!looksLikeHtml(res)) throw parseFailure(parsed);

  const links = (await feedLinksOf(app, res)).map((l) => l.url);
  const candidates = [...new Set([...links, ...commonFeedUrls(res.url)])].filter((c) => c !== url && c !== res.url);
  // Guessing paths on a slow site must not take minutes: guesses stop after one fetch time limit.
  const guessUntil = performance.now() + app.config.fetchTimeoutMs;
  for (const candidate of candidates) {
    if (!links.includes(candidate) && performance.now() > guessUntil) break;
    const known = await feeds.findByUrl(candidate);
    if (known) return { url: candidate, res, parsed: null, known };
    let cres: FetchResponse;
    try {
      cres = await fetcher.fetch({ url: candidate });
    } catch (e) {
      // An announced link that fails is worth reporting; a guessed path that fails is expected.
      if (links.includes(candidate) && e instanceof FeedError && e.code === 'refused_address') throw e;
      continue;
    }
    const p = await tryParse(app, cres);
    if (!(p instanceof FeedParseError))
      return { url: cres.permanentUrl ?? candidate, res: cres, parsed: p, known: null };
  }
  throw new FeedError(
    'not_a_feed',
    links.length
      ? `${url} is a web page whose announced feeds (${links.slice(0, 3).join(', ')}) could not be read`
      : `no feed found at ${url}: the page announces no <link rel="alternate"> feed and none of /feed, /rss, /feed.xml, /atom.xml, /rss.xml, /index.xml, /feed.json answered with a feed`,
  );
}

/** Throws a FeedError naming the limit when the user may not add `adding` more subscriptions. */
export async function checkFeedLimit(app: App, userId: number, adding: number): Promise<void> {
  const max = app.config.maxFeedsPerUser;
  if (max <= 0 || adding <= 0) return;
  const have = await feedEngine(app).subscriptions.countForUser(userId);
  if (have + adding > max) {
    throw new FeedError(
      'limit',
      adding === 1
        ? `you already have ${have} feeds, the most one user may have (TIDINGS_MAX_FEEDS_PER_USER=${max}): unsubscribe from some first`
        : `this would bring you to ${have + adding} feeds (${adding} new); one user may have at most ${max} (TIDINGS_MAX_FEEDS_PER_USER): remove feeds from the list or unsubscribe from some first`,
    );
  }
}

export async function subscribe(
  app: App,
  userId: number,
  urlOrSiteUrl: string,
  opts: SubscribeOptions = {},
): Promise<SubscribeResult> {
  const { feeds, subscriptions } = feedEngine(app);
  const url = normaliseInputUrl(urlOrSiteUrl);
  for (const folder of opts.folders ?? []) {
    const problem = labelNameProblem(folder, app.config.maxLabelLength);
    if (problem) throw new FeedError('bad_label', `folder "${[...folder].slice(0, 60).join('')}" ${problem}`);
  }
  const labelProblem = await labelLimitProblem(app, userId, opts.folders ?? []);
  if (labelProblem) throw new FeedError('limit', labelProblem);
  let feed = await feeds.findByUrl(url);
  if (!feed || !(await subscriptions.find(userId, feed.id))) await checkFeedLimit(app, userId, 1);
  let createdWithFeed = false;
  if (!feed) {
    const found = await fetchFeedOrDiscover(app, url);
    feed = found.known ?? (await feeds.findByUrl(found.url));
    if (!feed && found.parsed) {
      const parsed = found.parsed;
      // Create, subscribe and ingest together: this user gets every item of the first fetch.
      feed = await app.store.transaction(async () => {
        const f = await feeds.create(found.url, {
          title: parsed.title || null,
          siteUrl: parsed.siteUrl,
          description: parsed.description,
          iconUrl: parsed.iconUrl,
          ttlMinutes: parsed.ttlMinutes,
        });
        createdWithFeed = (await subscriptions.subscribe(userId, f.id, opts)).created;
        return f;
      });
      await afterIngest(app, feed.id, await storeParsedFeed(app, feed, parsed, found.res, Date.now() * 1000));
      try {
        await noteHub(app, feed, found.res.body, found.res.linkHeader);
      } catch (e) {
        app.log.warn({ err: e, feedId: feed.id }, 'WebSub hub discovery failed');
      }
    }
  }
  if (!feed) throw new FeedError('not_a_feed', `no feed found at ${url}`);
  const { subscription, created } = await subscriptions.subscribe(userId, feed.id, opts);
  if (created) await afterSubscribe(app, userId, feed.id);
  return {
    feedId: feed.id,
    subscriptionId: subscription.id,
    streamId: `feed/${subscription.feed.url}`,
    title: subscription.title,
    url: subscription.feed.url,
    created: created || createdWithFeed,
  };
}

/**
 * The user's subscription named by feed id or URL (as `tidings feed list` and the web app show
 * it; `feed/<url>` stream ids too); undefined when the user does not follow that feed.
 */
export async function findSubscription(
  app: App,
  userId: number,
  feed: string,
): Promise<SubscriptionRecord | undefined> {
  const raw = feed.trim();
  let normalised: string | undefined;
  try {
    normalised = normaliseInputUrl(raw);
  } catch {
    normalised = undefined;
  }
  return (await feedEngine(app).subscriptions.list(userId)).find(
    (s) => String(s.feedId) === raw || s.feed.url === raw || s.feed.url === normalised,
  );
}

/** Unsubscribes by feed id or URL (or `feed/<url>` stream id). False when there was no subscription. */
export async function unsubscribe(app: App, userId: number, feed: number | string): Promise<boolean> {
  const { feeds, subscriptions } = feedEngine(app);
  let feedId: number | undefined;
  if (typeof feed === 'number') feedId = feed;
  else {
    const raw = feed.trim().replace(/^(feed\/)+/i, '');
    feedId = (await feeds.findByUrl(raw))?.id;
    if (feedId === undefined) {
      try {
        feedId = (await feeds.findByUrl(normaliseInputUrl(raw)))?.id;
      } catch {
        /* not a URL: not subscribed */
      }
    }
  }
  return feedId !== undefined && (await subscriptions.unsubscribe(userId, feedId));
}

export interface FeedCandidate {
  url: string;
  title: string | null;
  /** Already stored (another user subscribes): subscribing will not fetch it again. */
  known: boolean;
}

/**
 * The feeds a URL offers, for a person to choose from before subscribing: the URL itself when it
 * is a feed (or a feed already stored), else the feeds its page announces with
 * <link rel="alternate">. Guessing common paths is left to subscribe(), which tries them in turn.
 */
export async function discoverFeeds(app: App, urlOrSiteUrl: string): Promise<FeedCandidate[]> {
  const { fetcher, feeds } = feedEngine(app);
  const url = normaliseInputUrl(urlOrSiteUrl);
  const stored = await feeds.findByUrl(url);
  if (stored) return [{ url: stored.url, title: stored.title, known: true }];
  const res = await fetcher.fetch({ url });
  const parsed = await tryParse(app, res);
  if (!(parsed instanceof FeedParseError))
    return [{ url: res.permanentUrl ?? url, title: parsed.title || null, known: false }];
  if (!looksLikeHtml(res)) throw parseFailure(parsed);
  const out: FeedCandidate[] = [];
  for (const l of (await feedLinksOf(app, res)).slice(0, 20)) {
    const known = await feeds.findByUrl(l.url);
    out.push({ url: l.url, title: known?.title ?? l.title, known: known !== undefined });
  }
  return out;
}
