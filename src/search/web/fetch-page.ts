// The one place web search fetches pages: through the outbound HTTP client (src/net), so every page
// request passes the SSRF guard (private addresses refused unless allowPrivateNetworks), the
// redirect checks and the body size cap. A shorter time limit than feeds get: a search waits on it.
import iconv from 'iconv-lite';
import type { App } from '../../runtime/app.ts';
import { perApp } from '../../runtime/per-app.ts';
import { HttpClient } from '../../net/http-client.ts';

/** Pages slower than this are skipped (the search answers without them). */
export const PAGE_FETCH_TIMEOUT_MS = 8000;
/** Web pages larger than this are not read (a readable article is far smaller). */
export const MAX_PAGE_BYTES = 3 * 1024 * 1024;

export interface FetchedPage {
  url: string;
  html: string;
}

export type PageFetcher = (url: string, signal?: AbortSignal) => Promise<FetchedPage>;

/** The App's guarded page fetcher (one connection pool, closed with the App). */
export const pageFetcher: (app: App) => PageFetcher = perApp((app) => {
  const c = app.config;
  const fetcher = new HttpClient({
    fetchTimeoutMs: Math.min(c.fetchTimeoutMs, PAGE_FETCH_TIMEOUT_MS),
    connectTimeoutMs: Math.min(c.connectTimeoutMs, PAGE_FETCH_TIMEOUT_MS),
    dnsTimeoutMs: Math.min(c.dnsTimeoutMs, PAGE_FETCH_TIMEOUT_MS),
    maxBodyBytes: Math.min(c.maxBodyBytes, MAX_PAGE_BYTES),
    maxRedirects: c.maxRedirects,
    userAgent: c.userAgent,
    fetchConcurrency: c.fetchConcurrency,
    perHostConcurrency: c.perHostConcurrency,
    allowPrivateNetworks: c.allowPrivateNetworks,
  });
  app.onClose(() => fetcher.close());
  return async (url, signal) => {
    const res = await fetcher.fetch({ url, signal });
    const type = res.contentType ?? '';
    if (type && !/html|xml|text\/plain/i.test(type)) throw new Error(`${url} is ${type.split(';')[0]}, not a web page`);
    return { url: res.url, html: decodeHtml(res.body, type) };
  };
});

/** Bytes to text: charset from Content-Type, else a <meta charset> near the top, else UTF-8. */
export function decodeHtml(body: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(body.subarray(0, 4096).toString('latin1'))?.[1];
  const charset = declared && iconv.encodingExists(declared) ? declared : 'utf-8';
  return iconv.decode(body, charset);
}
