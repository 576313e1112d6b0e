// Favicons of feeds: found from the site's <link rel="icon"> (else /favicon.ico), fetched through
// the feed fetcher (SSRF guard on every hop, time limit, per-host limits) with a size limit,
// checked to be an image by its bytes, and stored (src/store/sqlite/feed-icons.ts), so reader
// apps and the web app get them from Tidings and never contact the site. Looked up after
// refreshes for feeds without one; kept icons are refreshed monthly, failed lookups retried daily.
import type { App } from '../runtime/app.ts';
import { sign } from '../secrets/keys.ts';
import type { FeedIconRepository } from '../store/repositories.ts';
import { feedEngine } from './services.ts';
import { withUpkeepLease } from './upkeep-lease.ts';
import { FeedError } from './errors.ts';

// Parsed on a parse worker (src/feeds/parse-pool): the page is remote content.
export { findIconLinks } from './discovery/find-icon-links.ts';

export const feedIcons = (app: App): FeedIconRepository => app.store.feedIcons;

/** Largest icon accepted (a 256×256 PNG is ~50 KiB; multi-size .ico files reach ~100 KiB). */
export const ICON_MAX_BYTES = 256 * 1024;
/** The site page is read only for its <head>: a small cap. */
const PAGE_MAX_BYTES = 1024 * 1024;
const ICON_REFRESH_S = 30 * 86_400;
const FAILED_RETRY_S = 86_400;
const LOOKUPS_AT_ONCE = 8;
const HTML_ACCEPT = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1';
const ICON_ACCEPT =
  'image/png, image/x-icon, image/vnd.microsoft.icon, image/gif, image/jpeg, image/webp;q=0.9, */*;q=0.1';

/**
 * The image type from the first bytes; undefined when it is not an image we serve. SVG is refused:
 * it is a document that can carry scripts, and sites that have one almost always have a PNG/ICO too.
 */
export function sniffImage(b: Uint8Array): string | undefined {
  const at = (i: number, ...bytes: number[]) => bytes.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0x00, 0x00, 0x01, 0x00) && b.length > 6) return 'image/x-icon';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

function fromDataUrl(url: string): Uint8Array | undefined {
  const m = /^data:image\/[\w.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i.exec(url);
  if (!m || m[1]!.length > (ICON_MAX_BYTES * 4) / 3 + 4) return undefined;
  return Buffer.from(m[1]!, 'base64');
}

async function fetchIcon(
  app: App,
  url: string,
  signal?: AbortSignal,
): Promise<{ mime: string; data: Uint8Array } | string> {
  let data: Uint8Array | undefined;
  if (url.startsWith('data:')) {
    data = fromDataUrl(url);
    if (!data) return 'the inline icon is not a base64 image (or is too large)';
  } else {
    try {
      data = (
        await feedEngine(app).fetcher.fetch({
          url,
          signal,
          maxBytes: ICON_MAX_BYTES,
          accept: ICON_ACCEPT,
          failFastOnHost: true,
        })
      ).body;
    } catch (e) {
      if (e instanceof FeedError && e.code === 'too_large')
        return `icon at ${url} is larger than ${ICON_MAX_BYTES / 1024} KiB`;
      return e instanceof FeedError ? `${url}: ${e.message}` : `${url}: ${(e as Error).message}`;
    }
  }
  const mime = sniffImage(data);
  return mime
    ? { mime, data }
    : `${url.startsWith('data:') ? 'the inline icon' : url} is not a PNG, ICO, GIF, JPEG or WebP image`;
}

/** Finds, fetches and stores one feed's icon; returns the error when none could be had. */
export async function lookUpFavicon(
  app: App,
  feed: { feedId: number; siteUrl: string | null; feedUrl: string },
  signal?: AbortSignal,
): Promise<string | null> {
  const now = Math.floor(Date.now() / 1000);
  let site: URL;
  try {
    site = new URL(feed.siteUrl ?? feed.feedUrl);
  } catch {
    site = new URL(feed.feedUrl);
  }
  if (site.protocol !== 'http:' && site.protocol !== 'https:') site = new URL(feed.feedUrl);
  const candidates: string[] = [];
  try {
    const page = await feedEngine(app).fetcher.fetch({
      url: feed.siteUrl ?? site.origin + '/',
      signal,
      maxBytes: PAGE_MAX_BYTES,
      accept: HTML_ACCEPT,
      failFastOnHost: true,
    });
    if (/html/i.test(page.contentType ?? 'text/html'))
      candidates.push(...(await feedEngine(app).parsePool.findIconLinks(page.body, page.url)));
    site = new URL(page.url);
  } catch {
    /* no page: /favicon.ico may still answer */
  }
  candidates.push(new URL('/favicon.ico', site.origin).href);
  const errors: string[] = [];
  for (const url of candidates.slice(0, 4)) {
    const r = await fetchIcon(app, url, signal);
    if (typeof r !== 'string') {
      await feedIcons(app).store({
        feedId: feed.feedId,
        mime: r.mime,
        data: r.data,
        sourceUrl: url.startsWith('data:') ? null : url,
        fetchedAt: now,
      });
      return null;
    }
    errors.push(r);
  }
  const error = `no usable icon: ${errors.join('; ')}`;
  await feedIcons(app).recordFailure(feed.feedId, error, now);
  return error;
}

/**
 * Looks up icons of subscribed feeds that have none (or a stale one), a few at once; in one
 * process at a time among those on the database (./upkeep-lease.ts): 0 when another has it.
 */
export async function refreshFavicons(app: App, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<number> {
  return (await withUpkeepLease(app, 'favicons', () => lookUpMissingFavicons(app, opts))) ?? 0;
}

async function lookUpMissingFavicons(app: App, opts: { limit?: number; signal?: AbortSignal }): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const todo = await feedIcons(app).feedsToLookUp(now - ICON_REFRESH_S, now - FAILED_RETRY_S, opts.limit ?? 500);
  let next = 0,
    found = 0;
  const worker = async () => {
    while (next < todo.length && !opts.signal?.aborted) {
      const f = todo[next++]!;
      try {
        if ((await lookUpFavicon(app, f, opts.signal)) === null) found++;
      } catch (e) {
        app.log.warn({ err: e, feedId: f.feedId }, 'favicon lookup failed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, todo.length) }, worker));
  return found;
}

/** Path of a feed's icon on this server; the signature keeps feed ids from being enumerated. */
export async function faviconPath(app: App, feedId: number): Promise<string> {
  return `/icons/${feedId}.${(await sign(app, 'feed-icon', String(feedId))).slice(0, 16)}`;
}

/** The icon behind a path from faviconPath, or undefined (unknown, forged, or no icon). */
export async function faviconForPath(app: App, name: string) {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{16})$/.exec(name);
  if (!m || (await faviconPath(app, Number(m[1]))) !== `/icons/${name}`) return undefined;
  return await feedIcons(app).get(Number(m[1]));
}
