// A feed as stored (shared by all its subscribers), and one user's subscription to it.

export interface FeedRecord {
  id: number;
  url: string;
  siteUrl: string | null;
  title: string | null;
  description: string | null;
  iconUrl: string | null;
  etag: string | null;
  lastModified: string | null;
  /** Unix seconds of the last fetch attempt (success or not). */
  lastFetchedAt: number | null;
  lastSuccessAt: number | null;
  /** HTTP status of the last answer (0 when no answer: DNS, refused address, timeout …). */
  lastStatus: number | null;
  /** Actionable text of the last failure; null after a success. */
  lastError: string | null;
  /** Consecutive failures (0 after a success). */
  errorCount: number;
  nextFetchAt: number;
  intervalSeconds: number | null;
  itemCount: number;
  /** RSS <ttl> in minutes from the last successful parse. */
  ttlMinutes: number | null;
  /** Hash of the last body parsed: an identical body (servers without validators) skips parsing. */
  bodyHash: string | null;
  /** How long the last refresh took, in ms. */
  lastDurationMs: number | null;
  createdAt: number;
}

export interface FeedMetadata {
  title: string | null;
  siteUrl: string | null;
  description: string | null;
  iconUrl: string | null;
  ttlMinutes: number | null;
}

/** Outcome of one fetch, as recorded on the feed. */
export interface FetchOutcome {
  fetchedAt: number;
  status: number;
  nextFetchAt: number;
  intervalSeconds: number;
  /** Null on success. */
  error: string | null;
  etag?: string | null;
  lastModified?: string | null;
  bodyHash?: string | null;
  /** Wall time of the fetch (and parse and store, on success), in ms. */
  durationMs?: number | null;
}

export interface SubscriptionRecord {
  id: number;
  userId: number;
  feedId: number;
  /** The user's title, else the feed's title, else its URL. */
  title: string;
  customTitle: string | null;
  folders: string[];
  unreadCount: number;
  newestItemUs: number;
  createdAt: number;
  feed: FeedRecord;
}
