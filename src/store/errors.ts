// Storage errors a user or client can act on, shared by both backends and the store module.

/** What an API client is told when the database is unreachable (the details go to the log only). */
export const STORE_UNAVAILABLE = 'The database is temporarily unavailable; retry in a few seconds.';

/** A storage failure the user can fix (server down, bad URL, server too old): one line, no password. */
export class StoreUnavailableError extends Error {
  /** Answered as 503 by the HTTP layer (Fastify uses statusCode): the request may be retried later. */
  readonly statusCode = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The URL with any password replaced by ***, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}
