// Kept apart from ./opml.ts so that catching it does not load the OPML parser (feedsmith).
export class OpmlError extends Error {
  override name = 'OpmlError';
}
