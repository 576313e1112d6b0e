/**
 * A request the Reader API refuses, with the status to answer and a message saying what to fix.
 * The HTTP layer turns it into `text/plain` `Error=<message>`.
 */
export class ReaderError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
