// Full text: for feeds whose subscribers asked for it (or detected teaser feeds, when
// TIDINGS_FULL_TEXT_AUTO=enable), each new article's page is fetched through the feed fetcher —
// the SSRF guard, redirects checked hop by hop, time limit, and the same global and per-host
// concurrency limits as feeds, so a site is never hit harder than its feeds are — and its readable
// text replaces the item's content (the feed's own text stays as the summary). Runs beside the
// refresh, never blocking it; each failure is recorded on the item and retried a few times.
import { perApp } from '../../runtime/per-app.ts';
import type { App } from '../../runtime/app.ts';
import type { FullTextCandidate, FullTextMode, FullTextRepository } from '../../store/repositories.ts';
import { feedEngine } from '../services.ts';
import { Semaphore } from '../../net/concurrency.ts';
import { FeedError, formatBytes } from '../errors.ts';
import { htmlToText } from '../../text/html-to-text.ts';
import type { ExtractedArticle } from './extract.ts';
import type { FetchResponse } from '../fetcher.ts';

/**
 * Items considered: those crawled in the last NEW_ITEM_WINDOW_S (every new article, however many a
 * feed brings) and the RECENT_ITEMS newest (so turning it on shows text at once) — never an old
 * feed's archive.
 */
export const RECENT_ITEMS = 50;
export const NEW_ITEM_WINDOW_S = 2 * 86_400;
export const MAX_ATTEMPTS = 3;
export const RETRY_AFTER_S = 3600;
/** Teaser check: pages sampled, and the text ratio below which the feed is a teaser feed. */
export const TEASER_SAMPLE = 3;
export const TEASER_RATIO = 0.5;
/** A feed whose sampled pages could not be read is checked again after this long. */
export const TEASER_RECHECK_S = 7 * 86_400;
/** Feeds processed at once (their pages still share the fetcher's limits). */
const FEEDS_AT_ONCE = 8;
/**
 * Pages fetched-or-being-read at once. Fetching is much faster than reading a page into a DOM, so
 * without this bound every page of a big refresh would be downloaded and wait in memory for the
 * parse worker (measured: ~1 GB peak for 4,000 pages); 16 keeps the worker busy and memory flat.
 */
const PAGES_AT_ONCE = 16;
const PAGE_ACCEPT = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1';

export const fullTextStore = (app: App): FullTextRepository => app.store.fullText;

const nowS = () => Math.floor(Date.now() / 1000);

/** Fetches one article page and extracts its text; throws FeedError saying what went wrong. */
export async function fetchArticle(
  app: App,
  url: string,
  signal?: AbortSignal,
): Promise<ExtractedArticle & { pageUrl: string }> {
  let res: FetchResponse;
  try {
    res = await feedEngine(app).fetcher.fetch({
      url,
      signal,
      maxBytes: app.config.fullTextMaxBytes,
      accept: PAGE_ACCEPT,
      background: true,
    });
  } catch (e) {
    if (e instanceof FeedError && e.code === 'too_large') {
      throw new FeedError(
        'too_large',
        `page is larger than ${formatBytes(Math.min(app.config.fullTextMaxBytes, app.config.maxBodyBytes))} (raise TIDINGS_FULL_TEXT_MAX_BYTES if it is genuine)`,
      );
    }
    if (e instanceof FeedError && e.code === 'http' && e.status === 404)
      throw new FeedError('http', 'HTTP 404 Not Found: the article page is gone', { status: 404 });
    throw e;
  }
  const type = (res.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'text/html' && type !== 'application/xhtml+xml')
    throw new FeedError('not_a_feed', `not an HTML page (Content-Type ${type}): no article text to extract`);
  if (!type && !/<html|<body|<p[\s>]/i.test(res.body.subarray(0, 8192).toString('latin1')))
    throw new FeedError('not_a_feed', 'not an HTML page: no article text to extract');
  const article = await feedEngine(app).parsePool.extractArticle(res.body, res.url, res.contentType);
  if (!article)
    throw new FeedError(
      'not_a_feed',
      'no readable article text found on the page (paywall, consent page, or a script-only site)',
    );
  return { ...article, pageUrl: res.url };
}

async function fetchCandidate(app: App, c: FullTextCandidate, signal: AbortSignal): Promise<boolean> {
  const store = fullTextStore(app);
  try {
    const a = await fetchArticle(app, c.url, signal);
    return await store.store(c.id, c.contentHash, a.html, a.pageUrl, nowS());
  } catch (e) {
    if (signal.aborted) return false;
    const message = e instanceof FeedError ? e.message : `internal error: ${(e as Error).message}`;
    if (!(e instanceof FeedError)) app.log.error({ err: e, itemId: c.id }, 'full text failed unexpectedly');
    await store.recordFailure(c.id, c.contentHash, message, nowS());
    return false;
  }
}

const pageSlots = perApp(() => new Semaphore(PAGES_AT_ONCE));

/** Fetches the full text of the feed's items that lack it; returns the ids updated. */
export async function fetchFullTextForFeed(
  app: App,
  feedId: number,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ ok: number[]; failed: number }> {
  const candidates = await fullTextStore(app).candidates(
    feedId,
    RECENT_ITEMS,
    (Date.now() / 1000 - NEW_ITEM_WINDOW_S) * 1e6,
    MAX_ATTEMPTS,
    nowS() - RETRY_AFTER_S,
  );
  const slots = pageSlots(app);
  const results = await Promise.all(candidates.map((c) => slots.run(() => fetchCandidate(app, c, signal))));
  const ok = candidates.filter((_, i) => results[i]).map((c) => c.id);
  // The search index and the Reader API's body cache pick the new content up.
  if (ok.length) app.notifyItemChanges({ added: [], updated: ok, deleted: [] });
  return { ok, failed: candidates.length - ok.length };
}

/**
 * Teaser detection: the feed's text against the page's readable text on a sample of recent items.
 * A teaser feed carries less than half of the article (median over the sample). The pages are
 * fetched at once (in the background: the fetcher's per-host limits and HostProbe apply); when none can be read the check gives up,
 * logging why, and the feed is checked again after TEASER_RECHECK_S. A cancelled check records nothing.
 */
export async function checkTeaser(app: App, feedId: number, signal?: AbortSignal): Promise<boolean | null> {
  const sample = await fullTextStore(app).sample(feedId, TEASER_SAMPLE);
  const reasons: string[] = [];
  // (A host that cannot be reached fails its other pages at once: the fetcher's HostProbe.)
  const ratios = (
    await Promise.all(
      sample.map(async (c) => {
        try {
          const a = await fetchArticle(app, c.url, signal);
          return htmlToText(c.content ?? c.summary ?? '').length / a.textLength;
        } catch (e) {
          // A page that cannot be read says nothing about the feed.
          reasons.push(`${c.url}: ${e instanceof FeedError ? e.message : `internal error: ${(e as Error).message}`}`);
          return null;
        }
      }),
    )
  ).filter((r): r is number => r !== null);
  if (signal?.aborted) return null;
  if (!ratios.length) {
    if (reasons.length)
      app.log.warn(
        { feedId, reasons: [...new Set(reasons)] },
        `teaser check gave up: no article page could be read (${reasons[0]}); checked again in ${TEASER_RECHECK_S / 86_400} days`,
      );
    await fullTextStore(app).setTeaserUnknown(feedId, nowS());
    return null;
  }
  ratios.sort((a, b) => a - b);
  const teaser = ratios[Math.floor(ratios.length / 2)]! < TEASER_RATIO;
  await fullTextStore(app).setTeaser(feedId, teaser, nowS());
  return teaser;
}

/** One queue per App: feeds waiting for full text, processed in the background, a few at once. */
class FullTextQueue {
  private readonly app: App;
  private readonly waiting = new Set<number>();
  private readonly running = new Set<number>();
  private readonly abort = new AbortController();
  private idleWaiters: (() => void)[] = [];
  /** Feeds whose teaser check found no readable page this process: not re-checked on every refresh. */
  private readonly unreadable = new Set<number>();
  constructor(app: App) {
    this.app = app;
  }

  schedule(feedId: number): void {
    if (this.abort.signal.aborted) return;
    this.waiting.add(feedId);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < FEEDS_AT_ONCE && this.waiting.size) {
      const feedId = this.waiting.values().next().value!;
      if (this.running.has(feedId)) break;
      this.waiting.delete(feedId);
      this.running.add(feedId);
      void this.run(feedId).finally(() => {
        this.running.delete(feedId);
        this.pump();
        if (!this.running.size && !this.waiting.size) {
          for (const w of this.idleWaiters.splice(0)) w();
        }
      });
    }
  }

  private async run(feedId: number): Promise<void> {
    const app = this.app;
    const store = fullTextStore(app);
    try {
      // One read for the teaser verdict and the subscribers' modes (it was five statements a feed,
      // the most of a first refresh's round trips on PostgreSQL).
      const autoEnable = app.config.fullTextAuto === 'enable';
      const st = await store.queueState(feedId, autoEnable);
      if (!st) return;
      let wants = st.wants;
      if (app.config.fullTextAuto !== 'off' && !this.unreadable.has(feedId)) {
        const checkedLongAgo = st.teaserCheckedAt === null || st.teaserCheckedAt < nowS() - TEASER_RECHECK_S;
        if (st.teaser === null && checkedLongAgo && st.auto) {
          const verdict = await checkTeaser(app, feedId, this.abort.signal);
          if (verdict === null) this.unreadable.add(feedId);
          else
            app.log.info(
              { feedId, teaser: verdict },
              verdict ? 'teaser feed detected: full text suggested' : 'feed carries full articles',
            );
          // A teaser verdict turns full text on for 'auto' subscribers (TIDINGS_FULL_TEXT_AUTO=enable).
          if (verdict && autoEnable) wants = await store.wantsFullText(feedId, true);
        }
      }
      if (wants) await fetchFullTextForFeed(app, feedId, this.abort.signal);
    } catch (e) {
      if (!this.abort.signal.aborted) app.log.error({ err: e, feedId }, 'full text of a feed failed');
    }
  }

  idle(): Promise<void> {
    if (!this.running.size && !this.waiting.size) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.waiting.clear();
    await this.idle();
  }
}

export const fullTextQueue: (app: App) => FullTextQueue = perApp((app) => {
  feedEngine(app); // the fetcher is closed after the queue (closers run last registered first)
  const q = new FullTextQueue(app);
  app.onClose(() => q.close());
  return q;
});

/** Resolves when no full-text work is queued or running (the CLI's refresh waits for it). */
export function fullTextIdle(app: App): Promise<void> {
  return fullTextQueue(app).idle();
}

// ---- a subscription's full-text setting (the CLI's `feed set` and the web API) ----

export const FULL_TEXT_MODES: FullTextMode[] = ['on', 'off', 'auto'];

export class FullTextSettingError extends Error {}

export interface FullTextSettings {
  feedId: number;
  feed: string;
  /** The subscriber's choice. */
  fullText: FullTextMode;
  /** Whether the feed's articles are being fetched (some subscriber wants it, or auto on a teaser feed). */
  active: boolean;
  /** Teaser detection: null before the first check. */
  teaser: boolean | null;
  suggestion: string | null;
  articles: { withFullText: number; failed: number };
  lastError: string | null;
}

/** The user's full-text setting of a subscribed feed and how it is going; undefined when not subscribed. */
export async function fullTextSettings(
  app: App,
  userId: number,
  feedId: number,
): Promise<FullTextSettings | undefined> {
  const store = fullTextStore(app);
  const mode = await store.mode(userId, feedId);
  const sub = mode === undefined ? undefined : await feedEngine(app).subscriptions.find(userId, feedId);
  if (mode === undefined || !sub) return undefined;
  const st = await store.status(feedId);
  const active = await store.wantsFullText(feedId, app.config.fullTextAuto === 'enable');
  return {
    feedId,
    feed: sub.feed.url,
    fullText: mode,
    active,
    teaser: st.teaser,
    suggestion:
      st.teaser && !active ? 'this feed carries only teasers: turning full text on would fetch the articles' : null,
    articles: { withFullText: st.ok, failed: st.failed },
    lastError: st.lastError,
  };
}

/**
 * Sets the user's full-text mode of a subscribed feed; false when not subscribed. Turning it on
 * (or auto) queues the feed's recent items at once, not only the next new ones; `fullTextIdle`
 * waits for them.
 */
export async function setFullTextMode(app: App, userId: number, feedId: number, mode: string): Promise<boolean> {
  if (!FULL_TEXT_MODES.includes(mode as FullTextMode))
    throw new FullTextSettingError(`full text takes on, off or auto, got "${mode}"`);
  if (!(await fullTextStore(app).setMode(userId, feedId, mode as FullTextMode))) return false;
  if (mode !== 'off') fullTextQueue(app).schedule(feedId);
  return true;
}
