import { LibraryError } from '../library/errors.ts';

/**
 * A request the Reader API refuses, with the status to answer and a message saying what to fix.
 * The HTTP layer turns it into `text/plain` `Error=<message>`.
 */
export class ReaderError extends LibraryError {}
