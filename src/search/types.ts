// The contract of the search subsystem: the local article index and web providers behind one
// interface, consumed by the answer pipelines (../answer). Nothing here knows HTTP.

export type RecencyFilter = 'hour' | 'day' | 'week' | 'month' | 'year';

/** Which articles a search may return. */
export type SearchScope =
  | { kind: 'subscriptions'; userId: number }
  | { kind: 'instance' }
  /** Google Reader stream ids of the user: feed/<url>, user/-/label/<name>, user/-/state/com.google/starred … */
  | { kind: 'streams'; userId: number; streamIds: string[] };

export interface SearchFilters {
  /** Up to 3 entries (validated by callers): domains or URLs; a leading '-' denies. Never mixed. */
  domainFilter?: string[];
  recency?: RecencyFilter;
  /** Unix seconds, inclusive bounds. */
  publishedAfter?: number;
  publishedBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
}

export interface Passage {
  /** Plain text of a few sentences from the article. */
  text: string;
  score: number;
}

export interface SearchHit {
  /** Local article id (items.id), or null for a web result. */
  itemId: number | null;
  url: string;
  title: string;
  /** Feed title (local) or site name (web). */
  sourceName: string;
  /** Unix seconds or null. */
  publishedAt: number | null;
  updatedAt: number | null;
  /** Best matching passages, best first. */
  passages: Passage[];
  score: number;
  imageUrl: string | null;
  origin: 'local' | 'web';
}

export interface SearchQuery {
  text: string;
  scope: SearchScope;
  filters: SearchFilters;
  /** Maximum articles returned. */
  limit: number;
}

/** The newest articles in a scope, for a question that names no topic ("what's new?"). */
export type NewestQuery = Omit<SearchQuery, 'text'> & {
  /** Only these feeds of the scope (ids from `feedNames`): a question that names a feed. */
  feedIds?: number[];
};

/** A feed of the asker's scope and the names a question may call it by. */
export interface ScopeFeed {
  feedId: number;
  /** The feed's own title (search hits name it so). */
  title: string;
  /** The name the user gave the subscription, when they gave one. */
  userTitle: string | null;
}

export interface SearchProvider {
  readonly name: string;
  search(q: SearchQuery, signal?: AbortSignal): Promise<SearchHit[]>;
}

export interface SearchService {
  /** Searches every configured provider, fuses the results; counts as one billed search. */
  search(q: SearchQuery, signal?: AbortSignal): Promise<SearchHit[]>;
  /**
   * The newest stored articles in the query's scope under its filters, newest first (the local
   * index only: web search has no date order); counts as one billed search.
   */
  newest(q: NewestQuery, signal?: AbortSignal): Promise<SearchHit[]>;
  /**
   * Full plain text of stored articles, by item id (one read for all of them: grounding and deep
   * research read several per answer); ids of items no longer stored are absent.
   */
  articleTexts(itemIds: number[]): Promise<Map<number, { title: string; url: string; text: string }>>;
  /**
   * The feeds of a scope and their names, at most `limit` (not a billed search): the asker's
   * subscriptions with the names they gave them, the stream ids' feeds, or the instance's feeds.
   */
  feedNames(scope: SearchScope, limit: number): Promise<ScopeFeed[]>;
}

/** A filter value the caller must fix (names the parameter). */
export class SearchFilterError extends Error {
  readonly param: string;
  constructor(param: string, message: string) {
    super(message);
    this.param = param;
  }
}

/** What one search did, for callers that report more than the hits. */
export interface SearchReport {
  hits: SearchHit[];
  /** Always 1: one search() call is one billed search (usage.searchQueries counts calls). */
  billedSearches: 1;
  /** Providers that failed (their results are missing); empty when all answered. */
  degraded: string[];
}
