/**
 * A request on the user's library refused (an unknown stream, a malformed continuation), with the
 * status to answer and a message saying what to fix. Each protocol answers it in its own shape:
 * the Reader API as `text/plain` `Error=<message>`, the web API as its JSON error.
 */
export class LibraryError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
