// The feed fetcher: one GET of a feed or page, with every safety limit a public service needs.
//
// undici (Node's own HTTP engine) through `request`, not `fetch`: it hands us the raw body stream
// (we decompress ourselves to cap the decompressed size), does not follow redirects on its own
// (we follow them by hand to check every hop and to notice permanent moves), and its Agent lets
// the SSRF guard sit in the socket's DNS lookup. Connections are kept alive per origin. undici is
// loaded on the first fetch (a server with no feeds yet, and most CLI commands, never need it).
import type { Agent, Dispatcher } from 'undici';
import { STATUS_CODES } from 'node:http';
import type { Config } from '../config/config.ts';
import { NetError, formatDuration } from './errors.ts';
import { checkHostLiteral, guardedLookup, type LookupAll } from './address-guard.ts';
import { HostLimiter } from './concurrency.ts';
import { HostProbe } from './host-probe.ts';
import { readBody, tooLarge } from './read-body.ts';
import { cacheMaxAgeSeconds, headerString, retryAfterSeconds } from './http-headers.ts';

export interface FetchRequest {
  url: string;
  /** Validators of the copy we have: sent as If-None-Match / If-Modified-Since. */
  etag?: string | null;
  lastModified?: string | null;
  /** Cancels the fetch (scheduler shutdown). */
  signal?: AbortSignal;
  /** Body cap of this fetch when lower than config.maxBodyBytes (article pages, icons). */
  maxBytes?: number;
  /** Accept header (default: feed types first). */
  accept?: string;
  /**
   * Work beside the refresh (article pages: full text, teaser checks; icons): it shares the
   * per-host limits but has global slots of its own, so it never holds the slots the feeds'
   * fetches need; and a host found unreachable fails the other such fetches at once (host-probe.ts).
   */
  background?: boolean;
  /**
   * Only the last part of `background`: fail at once on a host found unreachable (icons, looked
   * up at the end of a round, which must not wait for slots that article pages hold).
   */
  failFastOnHost?: boolean;
}

export interface FetchResponse {
  /** 200-299, or 304 when the copy we have is current (body empty: nothing to parse). */
  status: number;
  notModified: boolean;
  /** URL of the answer after redirects. */
  url: string;
  /** Where the feed now lives when every redirect on the way was permanent (301/308); else null. */
  permanentUrl: string | null;
  body: Buffer;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
  maxAgeSeconds: number | null;
  /** The Link header (WebSub hubs may be announced there), or null. */
  linkHeader?: string | null;
  durationMs: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PERMANENT = new Set([301, 308]);
const ACCEPT =
  'application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.5, */*;q=0.1';

export type FetcherConfig = Pick<
  Config,
  | 'fetchTimeoutMs'
  | 'connectTimeoutMs'
  | 'dnsTimeoutMs'
  | 'maxBodyBytes'
  | 'maxRedirects'
  | 'userAgent'
  | 'fetchConcurrency'
  | 'perHostConcurrency'
  | 'allowPrivateNetworks'
>;

/** Parses and checks a user-supplied URL: http(s) only, no credentials in it. */
export function parseFeedUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new NetError('bad_url', `"${raw}" is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new NetError(
      'bad_url',
      `refusing the ${u.protocol.replace(/:$/, '')}: URL scheme (only http and https feeds can be fetched)`,
    );
  }
  // Refused rather than used: undici would not send them, and they would be stored, listed by the
  // Reader API and written into OPML exports in clear text. Feeds behind HTTP auth need their own
  // credential fields (not supported yet).
  if (u.username || u.password) {
    throw new NetError(
      'bad_url',
      `refusing a URL with a user name or password in it (${u.protocol}//user:pass@…): feeds behind a login are not supported, and credentials in a URL would be stored and shown in clear text`,
    );
  }
  u.hash = '';
  return u;
}

function httpError(status: number, headers: Record<string, string | string[] | undefined>): NetError {
  const text = STATUS_CODES[status] ?? 'Error';
  const retryAfter = retryAfterSeconds(headerString(headers['retry-after']));
  const wait = retryAfter !== null ? `, retrying after ${formatDuration(retryAfter * 1000)}` : '';
  const message =
    status === 404
      ? 'HTTP 404 Not Found: check the feed URL'
      : status === 410
        ? 'HTTP 410 Gone: the feed was removed'
        : status === 429
          ? `HTTP 429: rate limited${wait || ', retrying later'}`
          : status === 401
            ? 'HTTP 401 Unauthorized: the feed needs a login'
            : status === 403
              ? 'HTTP 403 Forbidden: the server refuses to serve the feed to us'
              : `HTTP ${status} ${text}${wait}`;
  return new NetError('http', message, { status, retryAfterSeconds: retryAfter });
}

function findNetError(e: unknown): NetError | undefined {
  for (let x = e, i = 0; x && i < 5; x = (x as { cause?: unknown }).cause, i++) {
    if (x instanceof NetError) return x;
    for (const inner of (x as AggregateError).errors ?? []) if (inner instanceof NetError) return inner;
  }
  return undefined;
}

/** Turns whatever undici/node threw into a NetError a user can act on. */
function toNetError(e: unknown, url: URL, cfg: FetcherConfig, deadline: AbortSignal, outer?: AbortSignal): NetError {
  const known = findNetError(e);
  if (known) return known;
  if (deadline.aborted)
    return new NetError('timeout', `timed out after ${formatDuration(cfg.fetchTimeoutMs)}`, { cause: e });
  if (outer?.aborted) return new NetError('network', 'fetch cancelled (shutting down)', { cause: e });
  const err = e as NodeJS.ErrnoException;
  const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  const where = `${url.hostname}${url.port ? ':' + url.port : ''}`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new NetError('timeout', `could not connect to ${where} within ${formatDuration(cfg.connectTimeoutMs)}`, {
      cause: e,
    });
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return new NetError('timeout', `timed out after ${formatDuration(cfg.fetchTimeoutMs)}`, { cause: e });
  if (code === 'ECONNREFUSED') return new NetError('network', `connection refused by ${where}`, { cause: e });
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return new NetError('network', `connection to ${where} was reset`, { cause: e });
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new NetError('network', `${where} is unreachable`, { cause: e });
  if (code && /CERT|SSL|TLS|SELF_SIGNED/i.test(code))
    return new NetError('network', `TLS problem with ${where}: ${err.message}`, { cause: e });
  return new NetError('network', `fetching ${url.href} failed: ${err.message ?? String(e)}`, { cause: e });
}

/** Drops an unwanted body; small ones are drained so the keep-alive connection can be reused. */
function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  body.on('error', () => {
    /* nobody is reading it */
  });
  return body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

export class HttpClient {
  private client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  private readonly limiter: HostLimiter;
  private readonly cfg: FetcherConfig;

  private readonly lookup: LookupAll | undefined;
  private readonly probe = new HostProbe();

  /** `lookup`: how names are resolved (dns.lookup; tests give their own: an edge we do not own). */
  constructor(cfg: FetcherConfig, opts: { lookup?: LookupAll } = {}) {
    this.cfg = cfg;
    this.lookup = opts.lookup;
    this.limiter = new HostLimiter(cfg.fetchConcurrency, cfg.perHostConcurrency);
  }

  /** undici's request and this fetcher's Agent (with the SSRF-guarded lookup), made on first use. */
  private undici(): Promise<{ agent: Agent; request: typeof import('undici').request }> {
    this.client ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connect: {
          timeout: this.cfg.connectTimeoutMs,
          lookup: guardedLookup(this.cfg.allowPrivateNetworks, {
            timeoutMs: this.cfg.dnsTimeoutMs,
            lookup: this.lookup,
          }),
        },
        keepAliveTimeout: 10_000,
        connections: this.cfg.perHostConcurrency,
      }),
    }));
    return this.client;
  }

  fetch(req: FetchRequest): Promise<FetchResponse> {
    const start = parseFeedUrl(req.url);
    const run = () =>
      this.limiter.run(
        start.host,
        // Cancelled while waiting for a slot (shutdown): it goes no further.
        () =>
          req.signal?.aborted
            ? Promise.reject(new NetError('network', 'fetch cancelled (shutting down)'))
            : this.fetchHops(start, req),
        req.background,
      );
    // A feed's own failure is recorded on the feed (with its back-off): only background work is gated.
    return req.background || req.failFastOnHost ? this.probe.run(start.host, run) : run();
  }

  private async fetchHops(first: URL, req: FetchRequest): Promise<FetchResponse> {
    const t0 = performance.now();
    const deadline = AbortSignal.timeout(this.cfg.fetchTimeoutMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    let url = first;
    let permanentUrl: string | null = null;
    let allPermanent = true;
    for (let hop = 0; ; hop++) {
      checkHostLiteral(url.hostname, this.cfg.allowPrivateNetworks);
      const headers: Record<string, string> = {
        'user-agent': this.cfg.userAgent,
        accept: req.accept ?? ACCEPT,
        'accept-encoding': 'gzip, deflate, br',
      };
      if (req.etag) headers['if-none-match'] = req.etag;
      if (req.lastModified) headers['if-modified-since'] = req.lastModified;
      const { agent, request } = await this.undici();
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          dispatcher: agent,
          method: 'GET',
          headers,
          signal,
          headersTimeout: this.cfg.fetchTimeoutMs,
          bodyTimeout: this.cfg.fetchTimeoutMs,
        });
      } catch (e) {
        throw toNetError(e, url, this.cfg, deadline, req.signal);
      }
      const status = res.statusCode;
      const h = res.headers;

      if (REDIRECTS.has(status)) {
        await discard(res.body);
        const location = headerString(h.location);
        if (!location) throw new NetError('redirects', `HTTP ${status} redirect without a Location header`, { status });
        if (hop >= this.cfg.maxRedirects)
          throw new NetError('redirects', `too many redirects (more than ${this.cfg.maxRedirects}; redirect loop?)`, {
            status,
          });
        let next: URL;
        try {
          next = parseFeedUrl(new URL(location, url).href);
        } catch (e) {
          throw new NetError('redirects', `redirected to an unusable location "${location}": ${(e as Error).message}`, {
            status,
          });
        }
        if (PERMANENT.has(status) && allPermanent) permanentUrl = next.href;
        else allPermanent = false;
        url = next;
        continue;
      }

      const base = {
        status,
        url: url.href,
        permanentUrl: allPermanent ? permanentUrl : null,
        contentType: headerString(h['content-type']),
        etag: headerString(h.etag),
        lastModified: headerString(h['last-modified']),
        maxAgeSeconds: cacheMaxAgeSeconds(headerString(h['cache-control'])),
        linkHeader: headerString(h.link),
      };
      if (status === 304) {
        await discard(res.body);
        return {
          ...base,
          notModified: true,
          body: Buffer.alloc(0),
          etag: base.etag ?? req.etag ?? null,
          lastModified: base.lastModified ?? req.lastModified ?? null,
          durationMs: performance.now() - t0,
        };
      }
      if (status < 200 || status > 299) {
        await discard(res.body);
        throw httpError(status, h);
      }
      const maxBytes = Math.min(req.maxBytes ?? Infinity, this.cfg.maxBodyBytes);
      const declared = Number(headerString(h['content-length']) ?? NaN);
      if (declared > maxBytes) {
        res.body.on('error', () => undefined);
        res.body.destroy();
        throw tooLarge(maxBytes, '');
      }
      let body: Buffer;
      try {
        body = await readBody(res.body, headerString(h['content-encoding']) ?? undefined, maxBytes);
      } catch (e) {
        res.body.on('error', () => undefined);
        res.body.destroy();
        throw e instanceof NetError ? e : toNetError(e, url, this.cfg, deadline, req.signal);
      }
      return { ...base, notModified: false, body, durationMs: performance.now() - t0 };
    }
  }

  /**
   * One POST (webhook deliveries) through the same agent, SSRF guard and host limits. Redirects
   * are not followed (a 3xx is returned as the answer): a POST must not be replayed elsewhere.
   * The answer's body is read up to 4 KiB, for the delivery log.
   */
  post(req: {
    url: string;
    body: string;
    headers: Record<string, string>;
    signal?: AbortSignal;
  }): Promise<{ status: number; body: string; durationMs: number }> {
    const url = parseFeedUrl(req.url);
    return this.limiter.run(url.host, async () => {
      const t0 = performance.now();
      const deadline = AbortSignal.timeout(this.cfg.fetchTimeoutMs);
      const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
      checkHostLiteral(url.hostname, this.cfg.allowPrivateNetworks);
      const { agent, request } = await this.undici();
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          body: req.body,
          signal,
          headers: { 'user-agent': this.cfg.userAgent, ...req.headers },
          headersTimeout: this.cfg.fetchTimeoutMs,
          bodyTimeout: this.cfg.fetchTimeoutMs,
        });
      } catch (e) {
        throw toNetError(e, url, this.cfg, deadline, req.signal);
      }
      let text = '';
      try {
        for await (const chunk of res.body) {
          text += (chunk as Buffer).toString('utf8');
          if (text.length >= 4096) {
            res.body.destroy();
            break;
          }
        }
      } catch {
        /* the status is what counts */
      }
      return { status: res.statusCode, body: text.slice(0, 4096), durationMs: performance.now() - t0 };
    });
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.close();
  }
}
