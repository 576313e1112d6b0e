// Refusals of the web API: an HTTP status, a stable code and a message saying what to fix.
// The plugin answers them as {"error":{"code","message","field"?}}.
export class WebError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: string,
    message: string,
    opts: { field?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = opts.field;
    this.headers = opts.headers ?? {};
  }
}

export const badRequest = (message: string, field?: string) => new WebError(400, 'bad_request', message, { field });
export const notFound = (message: string) => new WebError(404, 'not_found', message);
