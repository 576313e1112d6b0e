/** The document cannot be turned into a feed; the message says what was seen, for the user and the logs. */
export class FeedParseError extends Error {
  override name = 'FeedParseError';
}
