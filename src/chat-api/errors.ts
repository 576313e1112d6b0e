// API errors as the wire contract shows them: {"error":{"message","type","code":<HTTP status>}}.
// The AI SDK requires `code` to be a number; the message is what users see, so it says what to fix.
import { AnswerError } from '../answer/types.ts';
import { SearchFilterError } from '../search/types.ts';
import { StoreUnavailableError, STORE_UNAVAILABLE } from '../store/open-store.ts';

export type ApiErrorType =
  | 'invalid_model'
  | 'invalid_message'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limit_exceeded'
  | 'model_unavailable'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'internal_error'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'service_unavailable';

export class ApiError extends Error {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly headers: Record<string, string>;
  constructor(status: number, type: ApiErrorType, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.type = type;
    this.headers = headers;
  }
}

export function errorBody(e: ApiError): { error: { message: string; type: string; code: number } } {
  return { error: { message: e.message, type: e.type, code: e.status } };
}

/** Maps anything thrown by the pipeline or Fastify to an ApiError. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof AnswerError) {
    switch (e.code) {
      case 'invalid_request':
        return new ApiError(400, 'bad_request', e.message);
      case 'engine_unavailable':
        return new ApiError(400, 'model_unavailable', e.message);
      case 'upstream_timeout':
        return new ApiError(503, 'upstream_timeout', e.message);
      case 'overloaded':
        // Sonar's overload answer: 429 with Retry-After, which the SDKs retry.
        return new ApiError(429, 'rate_limit_exceeded', e.message, { 'retry-after': '2' });
      default:
        return new ApiError(503, 'upstream_error', e.message);
    }
  }
  if (e instanceof SearchFilterError) return new ApiError(400, 'bad_request', `Invalid ${e.param}: ${e.message}`);
  if (e instanceof StoreUnavailableError)
    return new ApiError(503, 'service_unavailable', STORE_UNAVAILABLE, { 'retry-after': '5' });
  const fe = e as { statusCode?: number; code?: string; message?: string };
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return new ApiError(
        415,
        'unsupported_media_type',
        'Unsupported Content-Type: send the body as JSON with "Content-Type: application/json".',
      );
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return new ApiError(413, 'payload_too_large', 'Request body too large.');
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return new ApiError(
        400,
        'bad_request',
        'The request body is empty: send a JSON object with "model" and "messages".',
      );
    return new ApiError(
      fe.statusCode,
      'bad_request',
      `Malformed request: ${fe.message ?? 'bad request'}. Send a JSON object with "model" and "messages".`,
    );
  }
  return new ApiError(
    500,
    'internal_error',
    'Internal error in the chat completions API; the server log has the details.',
  );
}
