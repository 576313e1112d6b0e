// The error shape of one API mounted on the server: the paths it answers under and what its errors
// look like. Each API plugin declares its own (reader-api/plugin.ts, fever/plugin.ts, …); the
// server (src/server/framework-errors.ts) answers errors raised before any route runs, and paths
// no route claims, in the shape of the API the path falls under.

export interface ShapedError {
  contentType: string;
  body: string;
}

export interface ApiErrorShape {
  /** Paths of this API: a path equal to one of these, or below it. */
  readonly prefixes: readonly string[];
  /** The body of an error of this API, from its status and a one-line message. */
  shape(status: number, message: string): ShapedError;
  /** Where the API's endpoints are: ends the 404 of an unknown path under its prefixes. */
  readonly endpointHint: string;
  /** Headers of its 404 and 405 answers (OAuth's `cache-control: no-store`). */
  readonly notFoundHeaders?: Readonly<Record<string, string>>;
}

/** The API of every path no other API claims (the chat API, as on Perplexity): its own 404 wording. */
export interface FallbackApiErrorShape extends ApiErrorShape {
  notFoundMessage(method: string, path: string): string;
}

export const textError = (body: string): ShapedError => ({ contentType: 'text/plain; charset=utf-8', body });
export const jsonError = (body: unknown): ShapedError => ({
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

export type StatusErrorCode =
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'bad_request';

/** Status -> the error type of the chat API and code of the web API (same spelling, see src/http/README.md). */
export function errorCodeOf(status: number): StatusErrorCode {
  return status === 404
    ? 'not_found'
    : status === 405
      ? 'method_not_allowed'
      : status === 413
        ? 'payload_too_large'
        : status === 415
          ? 'unsupported_media_type'
          : 'bad_request';
}
