// Plain types of per-user item streams: which items a stream selects (filters), how a page is
// asked for (keyset), and what a stored item looks like to a reader.

/** user_items flag columns, one per system state. */
export type StateColumn = 'read' | 'starred' | 'liked' | 'broadcast' | 'saved';

/**
 * One condition on a user's items; a filter is the AND of its conditions. `any` is an OR of
 * filters (several `s` streams, or a label that is both a folder and an item tag).
 */
export type ItemCondition =
  | { kind: 'state'; column: StateColumn; value: 0 | 1 }
  | { kind: 'feeds'; feedIds: number[]; negate: boolean }
  | { kind: 'tagged'; labelId: number; negate: boolean }
  | { kind: 'any'; of: ItemCondition[][] }
  | { kind: 'nothing' };

export interface ItemPosition {
  crawledUs: number;
  itemId: number;
}

export interface StreamPageQuery {
  userId: number;
  where: ItemCondition[];
  newestFirst: boolean;
  /** Rows wanted; the repository returns at most this many. */
  limit: number;
  /** Keyset: only items strictly after this position in the chosen order. */
  after?: ItemPosition;
  /** Crawl-time window, inclusive, in microseconds. */
  minCrawledUs?: number;
  maxCrawledUs?: number;
}

export interface ItemRef {
  itemId: number;
  crawledUs: number;
  feedId: number;
}

/** Refs formatted as Google Reader `itemRefs` entries, comma-joined, and how many rows matched. */
export interface ItemRefsJson {
  json: string;
  count: number;
}

/** The user's flags on an item. */
export interface ReaderItemState extends ItemRef {
  read: number;
  starred: number;
  liked: number;
  broadcast: number;
  saved: number;
}

/** What an item shows, the same for every user. */
export interface ReaderItemBody {
  itemId: number;
  url: string | null;
  title: string;
  author: string | null;
  content: string | null;
  summary: string | null;
  publishedAt: number;
  updatedAt: number;
  /** When it was first stored (µs): fixed at ingest, the same in every user's rows. */
  crawledUs: number;
  /** JSON array of {url, type, length} as stored at ingest, or null. */
  enclosures: string | null;
}

/** A user's subscription as the Reader API lists it. */
export interface SubscriptionView {
  subscriptionId: number;
  feedId: number;
  url: string;
  title: string;
  siteUrl: string | null;
  iconUrl: string | null;
  createdAt: number;
  unreadCount: number;
  newestItemUs: number;
  folders: string[];
}

/** Where an item comes from, as its `origin` and folder categories show it to one user. */
export interface FeedOrigin {
  feedId: number;
  url: string;
  title: string;
  siteUrl: string | null;
  folders: string[];
}

/** [feed id, unread count, newest crawl time in µs] of one subscription. */
export type UnreadCounter = [feedId: number, unread: number, newestItemUs: number];

export interface LabelView {
  id: number;
  name: string;
  /** Subscriptions filed in it (a folder when > 0). */
  subscriptionCount: number;
  /** Items tagged with it (a tag when > 0, or when it has neither). */
  taggedCount: number;
  unreadCount: number;
}
