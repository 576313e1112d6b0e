// Errors of the feed pipeline are values with a message the user can act on: they are stored on
// the feed (feeds.last_error), shown by `tidings feed list`, and returned by quickadd. `code` is
// for programs (scheduling decisions, tests); `message` is for people.
import type { NetError, NetErrorCode } from '../net/errors.ts';

export { formatBytes, formatDuration } from '../net/errors.ts';

export type FeedErrorCode =
  | NetErrorCode // an outbound request failed (src/net/errors.ts: bad_url, refused_address, dns, network, …)
  | 'not_a_feed' // body is not RSS/Atom/RDF/JSON Feed, and no feed was discovered
  | 'bad_label' // a folder name that cannot be a label (too long, control characters)
  | 'limit'; // a per-user limit (feeds per user) would be exceeded

export class FeedError extends Error {
  readonly code: FeedErrorCode;
  /** HTTP status of the answer that failed, when there was one. */
  readonly status: number | null;
  /** Seconds the server asked us to wait (Retry-After on 429/503), if any. */
  readonly retryAfterSeconds: number | null;
  constructor(
    code: FeedErrorCode,
    message: string,
    opts: { status?: number | null; retryAfterSeconds?: number | null; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FeedError';
    this.code = code;
    this.status = opts.status ?? null;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? null;
  }
}

/**
 * The feed pipeline's error for an outbound request that failed (src/net): the same code, message,
 * status and cause. The feed engine's fetcher wraps each failure once (./fetcher.ts).
 */
export function feedErrorOf(e: NetError): FeedError {
  return new FeedError(e.code, e.message, { status: e.status, retryAfterSeconds: e.retryAfterSeconds, cause: e.cause });
}
