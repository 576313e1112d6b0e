// Lead images of the magazine view, fetched by Tidings (as Miniflux's media proxy does), so the
// browser contacts no publisher for a list it only scans. Only URLs the server signed can be
// fetched (the list hands out `api/v1/images/<signature>?u=<url>`): not an open proxy. The fetch
// is the feed fetcher's (SSRF guard on every hop, time limit, size cap), and the answer must be a
// PNG, JPEG, GIF or WebP by its bytes (never SVG, which can carry scripts).
import { timingSafeEqual } from 'node:crypto';
import type { App } from '../runtime/app.ts';
import { sign } from '../secrets/keys.ts';
import { feedEngine } from '../feeds/index.ts';
import { sniffImage } from '../feeds/favicons.ts';
import { badRequest, notFound, WebError } from './errors.ts';

/** Lead images are shown at 112×76 px: a few MB covers any sane picture. */
export const IMAGE_MAX_BYTES = 4 * 1024 * 1024;
const ACCEPT = 'image/webp, image/png, image/jpeg, image/gif;q=0.9, */*;q=0.1';

async function signature(app: App, url: string): Promise<string> {
  return (await sign(app, 'web-image', url)).slice(0, 22);
}

/** The page's URL (relative, so a sub-path behind a proxy works) of a publisher's image. */
export async function proxiedImageUrl(app: App, url: string | null): Promise<string | null> {
  if (!url) return null;
  return `api/v1/images/${await signature(app, url)}?u=${encodeURIComponent(url)}`;
}

/** Fetches a signed image URL; 404 for a wrong signature, 502 when the publisher fails. */
export async function fetchProxiedImage(
  app: App,
  sig: string,
  url: string | undefined,
  signal?: AbortSignal,
): Promise<{ mime: string; data: Buffer }> {
  if (!url || !/^https?:\/\//i.test(url)) throw badRequest('u must be the http(s) address of an image', 'u');
  const want = Buffer.from(await signature(app, url));
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want))
    throw notFound('no such image: this link was not made by this server (see an article list item’s image)');
  let body: Buffer;
  try {
    body = (await feedEngine(app).fetcher.fetch({ url, maxBytes: IMAGE_MAX_BYTES, accept: ACCEPT, signal })).body;
  } catch (e) {
    throw new WebError(502, 'upstream_error', `the image could not be fetched: ${(e as Error).message}`);
  }
  const mime = sniffImage(body);
  if (!mime) throw new WebError(502, 'upstream_error', `${url} is not a PNG, JPEG, GIF or WebP image`);
  return { mime, data: body };
}
