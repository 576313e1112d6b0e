// Errors of an outbound HTTP request are values with a message the user can act on: the feed
// engine stores them on the feed (as a FeedError with the same code, src/feeds/errors.ts), the
// webhook log and web search show them. `code` is for programs; `message` is for people.

export type NetErrorCode =
  | 'bad_url' // not a URL, or not http(s)
  | 'refused_address' // SSRF guard: loopback/private/link-local/… address
  | 'dns' // host name does not resolve
  | 'network' // connection refused/reset, TLS failure
  | 'timeout' // connect or total time limit
  | 'too_large' // body (compressed or decompressed) over maxBodyBytes
  | 'redirects' // too many redirects, or a redirect without a usable Location
  | 'http' // non-2xx answer (status set)
  | 'bad_encoding'; // broken Content-Encoding stream

export class NetError extends Error {
  readonly code: NetErrorCode;
  /** HTTP status of the answer that failed, when there was one. */
  readonly status: number | null;
  /** Seconds the server asked us to wait (Retry-After on 429/503), if any. */
  readonly retryAfterSeconds: number | null;
  constructor(
    code: NetErrorCode,
    message: string,
    opts: { status?: number | null; retryAfterSeconds?: number | null; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'NetError';
    this.code = code;
    this.status = opts.status ?? null;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? null;
  }
}

/** "30 s", "1.5 s", "250 ms": how time limits are worded in error messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** "15 MiB", "512 KiB": how size limits are worded in error messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) {
    const m = n / (1024 * 1024);
    return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
  }
  if (n >= 1024) {
    const k = n / 1024;
    return `${Number.isInteger(k) ? k : k.toFixed(1)} KiB`;
  }
  return `${n} bytes`;
}
