// Storage interfaces the domain code depends on. The SQLite implementations live in ./sqlite/;
// a PostgreSQL backend implements the same interfaces without touching the domain.
// Each domain adds its repository interface here (one small interface per entity).
import type { User } from '../model/user.ts';
import type { ApiKey, BetaFeature, UsageRecord, UsageTotals, AsyncJob, AccessRequest, AccessRequestStatus } from '../model/chat.ts';
import type { StoredToken, NewToken, OAuthClient, GrantType, AuthorizationCode, NewAuthorizationCode } from '../model/auth.ts';

export interface UserRepository {
  create(username: string, passwordHash: string, email?: string | null): User;
  findByName(username: string): (User & { passwordHash: string }) | undefined;
  /** The one user with this e-mail address (case-insensitive); undefined when none or several. */
  findByEmail(email: string): (User & { passwordHash: string }) | undefined;
  findById(id: number): User | undefined;
  list(): User[];
  setPasswordHash(id: number, passwordHash: string): void;
  delete(id: number): boolean;
}

// Authentication (src/auth): bearer tokens, OAuth clients and authorization codes.

export interface TokenRepository {
  insert(token: NewToken, now: number): StoredToken;
  findByHash(tokenHash: string): StoredToken | undefined;
  findById(id: number): StoredToken | undefined;
  /** Records use; callers throttle it (once a minute per token) to avoid a write per request. */
  markUsed(id: number, now: number): void;
  /** Returns false when the token does not exist or was already revoked. */
  revoke(id: number, now: number): boolean;
  revokeAllForUser(userId: number, now: number): number;
  /** Revokes every token descending from one authorization code (code reuse, refresh reuse). */
  revokeGrant(grantId: string, now: number): number;
  listForUser(userId: number): StoredToken[];
  /** Deletes tokens that expired or were revoked before `before`. */
  purge(before: number): number;
}

export interface OAuthClientRepository {
  create(c: { clientId: string; secretHash: string; name: string; redirectUris: string[]; grantTypes: GrantType[] }, now: number): OAuthClient;
  findByClientId(clientId: string): OAuthClient | undefined;
  list(): OAuthClient[];
  delete(clientId: string): boolean;
}

export interface AuthorizationCodeRepository {
  insert(code: NewAuthorizationCode, now: number): AuthorizationCode;
  findByHash(codeHash: string): AuthorizationCode | undefined;
  /** Marks the code used; false when it was already used (a concurrent or replayed exchange). */
  markUsed(id: number, now: number): boolean;
  purge(before: number): number;
}

/** Named server-side secrets (HMAC keys), created once and kept. */
export interface AuthSecretRepository {
  getOrCreate(name: string, create: () => string, now: number): string;
}

// ---- Search index (src/search) ----

/** What the indexer reads of an item to build its passages. */
export interface SearchItemSource {
  id: number;
  feedId: number;
  url: string | null;
  title: string;
  content: string | null;
  summary: string | null;
  publishedAt: number;
  updatedAt: number;
  feedUrl: string;
  feedSiteUrl: string | null;
}

export interface IndexedItem {
  id: number;
  feedId: number;
  host: string;
  title: string;
  publishedAt: number;
  updatedAt: number;
}

/** Which articles a search may see, resolved to ids (stream ids are resolved by src/search). */
export type PassageScope =
  | { kind: 'instance' }
  | { kind: 'subscriptions'; userId: number }
  /** The union of: items of these feeds, items tagged with these labels, items in these states. */
  | { kind: 'streams'; userId: number; feedIds: number[]; taggedLabelIds: number[]; states: ('starred' | 'read' | 'liked')[] };

export interface PassageFilter {
  scope: PassageScope;
  /** Hosts (lowercase); a host matches itself and its subdomains. At most one of allow/deny. */
  allowHosts?: string[];
  denyHosts?: string[];
  /** Unix seconds, inclusive. */
  publishedAfter?: number;
  publishedBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
}

export interface PassageMatch {
  passageId: number;
  itemId: number;
  ord: number;
  text: string;
  /** Length in words (space-separated). */
  words: number;
  /** Higher is better (negated FTS5 bm25). */
  score: number;
}

export interface SearchArticleMeta {
  id: number;
  url: string;
  title: string;
  feedTitle: string;
  publishedAt: number;
  updatedAt: number;
  imageUrl: string | null;
}

export interface ArticleMatch {
  itemId: number;
  /** Higher is better (negated FTS5 bm25). */
  score: number;
}

/** An article as the index stores it: its document number and field lengths (in terms). */
export interface IndexedArticle extends IndexedItem {
  docNo: number;
  titleLength: number;
  bodyLength: number;
  urlLength: number;
}

/** The index's counters (kept by the store in step with search_articles). */
export interface SearchIndexState {
  nextDocNo: number;
  articles: number;
  titleLength: number;
  bodyLength: number;
  urlLength: number;
  /** Articles removed or replaced since the last rebuild. */
  removed: number;
  /** `removed` when the last postings compaction started (postings of removals before it are gone). */
  compactedRemoved: number;
  /** Changes when the index is rebuilt (document numbers start again). */
  epoch: number;
  /** A background rebuild still has the items with ids in (rebuildAfter, rebuildUntil] to index; null: none. */
  rebuildAfter: number | null;
  rebuildUntil: number | null;
}

/** One stored article row, for the ranking's in-memory article table. */
export interface IndexedArticleRow {
  docNo: number;
  itemId: number;
  feedId: number;
  host: string;
  publishedAt: number;
  updatedAt: number;
  titleLength: number;
  bodyLength: number;
  urlLength: number;
}

export interface SearchIndexRepository {
  itemSources(ids: number[]): SearchItemSource[];
  /** Reserves n document numbers (inside the caller's transaction); returns the first. */
  reserveDocNumbers(n: number): number;
  /** Stores an article and its passages, replacing any earlier version of the item. */
  storeArticle(article: IndexedArticle, passages: { text: string; words: number }[]): void;
  /** Appends one batch's encoded postings of a term (src/search/postings.ts). */
  appendPostings(term: string, bytes: Uint8Array, count: number): void;
  /** Replaces all of a term's postings with these chunks (none: the term goes). */
  replacePostings(term: string, chunks: { bytes: Uint8Array; count: number }[]): void;
  /** Terms in order after `afterTerm` ('' for the first), at most `limit`. */
  termsAfter(afterTerm: string, limit: number): string[];
  /** Document numbers of the current articles. */
  liveDocNumbers(): number[];
  /** Records that a compaction covering removals up to this count finished. */
  setCompactedRemoved(removed: number): void;
  /** Postings in chunks of at most this many bytes (appends start a new chunk past it). */
  readonly chunkBytes: number;
  /** Postings stored per term (terms with none are absent), for picking a long query's terms. */
  postingCounts(terms: string[]): Map<string, number>;
  /** The term's posting chunks in order, and how many postings they hold. */
  postings(term: string): { chunks: Uint8Array[]; count: number };
  state(): SearchIndexState;
  /** Article rows from this document number on, in document number order. */
  articleRows(fromDocNo: number, limit: number): IndexedArticleRow[];
  /** The current item of each document number; numbers of removed or replaced versions are absent. */
  liveDocuments(docNos: number[]): Map<number, number>;
  deleteItems(ids: number[]): void;
  /** Item ids in id order after `afterId`, at most `untilId` (for rebuilds in batches). */
  itemIdsAfter(afterId: number, limit: number, untilId?: number): number[];
  /** Empties the index; a background rebuild of every stored item is then pending (cleared by setRebuildCursor(null)). */
  deleteAll(): void;
  /** Records a background rebuild's progress: items up to this id are indexed (null: finished). */
  setRebuildCursor(afterId: number | null): void;
  passageCount(): number;
  articleCount(): number;
  /** Every passage of these articles, unscored (score 0), in reading order. */
  passageTexts(itemIds: number[]): PassageMatch[];
  articles(ids: number[]): SearchArticleMeta[];
  /** The article's indexed text (its passages in order). */
  articleText(itemId: number): { title: string; url: string; text: string } | undefined;
  // Scope resolution (always relative to one user).
  subscribedFeedIds(userId: number): number[];
  /** Document numbers of the user's items tagged with these labels or in these states. */
  docNosTaggedOrInState(userId: number, labelIds: number[], states: ('starred' | 'read' | 'liked')[]): number[];
  subscribedFeedIdByUrl(userId: number, feedUrl: string): number | undefined;
  label(userId: number, name: string): { id: number; folderFeedIds: number[] } | undefined;
}

// Chat completions API (src/chat-api).
export interface ApiKeyRepository {
  create(key: { id: string; userId: number; name: string; keyHash: string; tier: number }): ApiKey;
  /** The key and its stored hash, revoked or not. */
  findById(id: string): (ApiKey & { keyHash: string }) | undefined;
  list(userId?: number): ApiKey[];
  rename(id: string, name: string): boolean;
  revoke(id: string): boolean;
  setDisabled(id: string, disabled: boolean): boolean;
  setTier(id: string, tier: number): boolean;
  setFeatures(id: string, features: BetaFeature[]): boolean;
}

export interface ChatUsageRepository {
  record(r: UsageRecord): void;
  totals(opts: { userId?: number; since?: number }): UsageTotals[];
}

export interface AsyncJobRepository {
  create(job: { id: string; keyId: string; userId: number; model: string; request: unknown; idempotencyKey: string | null; createdAt: number }): AsyncJob;
  find(id: string): AsyncJob | undefined;
  findByIdempotencyKey(keyId: string, idempotencyKey: string): AsyncJob | undefined;
  /** Newest first, keyset-paginated by (created_at, id). */
  listForUser(userId: number, limit: number, before?: { createdAt: number; id: string }): AsyncJob[];
  /** CREATED and IN_PROGRESS jobs, oldest first (resumed on start). */
  listUnfinished(): AsyncJob[];
  markStarted(id: string, at: number): void;
  setProgress(id: string, progress: unknown): void;
  markCompleted(id: string, response: unknown, at: number): void;
  markFailed(id: string, message: string, at: number): void;
  /** Deletes jobs created before `before`; returns how many. */
  purgeCreatedBefore(before: number): number;
}

export interface AccessRequestRepository {
  create(r: { keyId: string; requestedTier: number; reason: string }): AccessRequest;
  find(id: number): AccessRequest | undefined;
  list(status?: AccessRequestStatus): AccessRequest[];
  decide(id: number, status: 'approved' | 'denied', grantedTier: number | null, note: string | null): boolean;
}

// Reader API (src/reader-api): per-user streams, item states and the label/subscription views.
import type { FeedOrigin, ItemCondition, ItemRefsJson, LabelView, ReaderItemBody, ReaderItemState, StateColumn, StreamPageQuery, SubscriptionView, UnreadCounter } from '../model/stream.ts';

export interface StreamRepository {
  /** Keyset page of item references (index-only) as Google Reader itemRefs JSON entries, comma-joined. */
  refsJson(q: StreamPageQuery): ItemRefsJson;
  /** Keyset page of the user's items: their flags, no bodies. */
  statesPage(q: StreamPageQuery): ReaderItemState[];
  /** The user's items among these ids, in the order given; other users' items are never returned. */
  statesByIds(userId: number, itemIds: number[]): ReaderItemState[];
  /** Item bodies by id (any order); callers pass ids that came from the user's own rows. */
  bodies(itemIds: number[]): ReaderItemBody[];
  /** Changes whenever any item's url, title, author, content, summary, dates or enclosures change. */
  itemsVersion(): number;
  existingItemIds(userId: number, itemIds: number[]): number[];
  /** Custom tag names on each item (only items that have some). */
  tagsOfItems(userId: number, itemIds: number[]): Map<number, string[]>;
}

export interface ItemStateRepository {
  /** Sets a flag on the user's items among itemIds; returns how many changed. */
  setState(userId: number, column: StateColumn, value: 0 | 1, itemIds: number[]): number;
  tagItems(userId: number, labelId: number, itemIds: number[]): number;
  untagItems(userId: number, labelId: number, itemIds: number[]): number;
  /** Marks read every unread item matching the filter crawled at or before maxCrawledUs. */
  markAllRead(userId: number, where: ItemCondition[], maxCrawledUs: number): number;
}

export interface ReaderLabelRepository {
  subscriptions(userId: number): SubscriptionView[];
  /** Subscription (or bare feed) info of the given feeds, for item `origin`s and categories. */
  origins(userId: number, feedIds: number[]): Map<number, FeedOrigin>;
  /** All of the user's subscriptions as origins; cache it while catalogVersion() stays the same. */
  catalog(userId: number): FeedOrigin[];
  /** Feeds with items the user kept (starred or tagged) after unsubscribing. */
  leftFeedIds(userId: number): number[];
  /** Changes whenever feeds' url/title/site, subscriptions, their titles or folders change. */
  catalogVersion(): number;
  /** The trigger-maintained counters of every subscription (never a recount). */
  unreadCounters(userId: number): UnreadCounter[];
  subscribedFeedId(userId: number, feedUrl: string): number | undefined;
  labels(userId: number): LabelView[];
  findLabel(userId: number, name: string): number | undefined;
  ensureLabel(userId: number, name: string): number;
  folderFeedIds(userId: number, labelId: number): number[];
  hasTaggedItems(labelId: number): boolean;
  /** Renames; when the new name exists, merges into it. */
  renameLabel(userId: number, labelId: number, newName: string): void;
  deleteLabel(userId: number, labelId: number): void;
}

// ---- Feeds (fetch state), items (ingest) and subscriptions: src/store/sqlite/{feeds,items,subscriptions}.ts
import type { FeedRecord, FeedMetadata, FetchOutcome, SubscriptionRecord } from '../model/feed-record.ts';
import type { ParsedEntry } from '../model/feed.ts';
import type { ItemChanges } from '../model/item.ts';

export interface FeedRepository {
  findById(id: number): FeedRecord | undefined;
  findByUrl(url: string): FeedRecord | undefined;
  /** Inserts a feed with that URL, or returns the one that exists (two users adding it at once). */
  create(url: string, meta?: Partial<FeedMetadata>): FeedRecord;
  updateMetadata(id: number, meta: FeedMetadata): void;
  /** Success: clears the error, resets error_count, stores validators. */
  recordSuccess(id: number, outcome: FetchOutcome): void;
  /** Failure: keeps validators and items, increments error_count. */
  recordFailure(id: number, outcome: FetchOutcome): void;
  /** Moves the feed to a new URL (permanent redirect); false when another feed already has it. */
  changeUrl(id: number, newUrl: string): boolean;
  /** Feeds with at least one subscriber whose next fetch is due (all of them when dueBy is Infinity). */
  listDue(dueBy: number, limit: number): FeedRecord[];
  /** Publication times (Unix s) of the feed's most recent items, newest first: input of the adaptive interval. */
  recentPublishTimes(id: number, count: number): number[];
}

export interface ItemRepository {
  /**
   * Stores the entries of one feed in one transaction: new entries are inserted and fanned out to
   * every subscriber's user_items; entries whose content changed are updated in place (same id and
   * crawl time); unchanged ones are left alone. Entries missing from the feed are kept.
   */
  upsertEntries(feedId: number, entries: ParsedEntry[], crawlTimeUs: number): ItemChanges;
  countByFeed(feedId: number): number;
}

export interface SubscribeOptions {
  title?: string | null;
  folders?: string[];
}

export interface SubscriptionRepository {
  /** Subscribes (idempotent: an existing subscription gets the folders added). */
  subscribe(userId: number, feedId: number, opts?: SubscribeOptions): { subscription: SubscriptionRecord; created: boolean };
  /** Removes the subscription and the user's items of that feed except starred or tagged ones. */
  unsubscribe(userId: number, feedId: number): boolean;
  find(userId: number, feedId: number): SubscriptionRecord | undefined;
  list(userId: number): SubscriptionRecord[];
  rename(userId: number, feedId: number, title: string | null): boolean;
  addFolder(userId: number, feedId: number, folder: string): boolean;
  removeFolder(userId: number, feedId: number, folder: string): boolean;
  subscriberCount(feedId: number): number;
}

// ---- Web app (src/web): sessions, settings and admins, Ask conversations ----
import type { WebSession, Conversation, ConversationMessage, NewConversationMessage } from '../model/web.ts';

export interface WebSessionRepository {
  create(s: { tokenHash: string; userId: number; expiresAt: number; userAgent: string | null }, now: number): WebSession;
  findByHash(tokenHash: string): WebSession | undefined;
  /** Records use and moves the expiry forward (callers do it at most once a minute per session). */
  touch(id: number, now: number, expiresAt: number): void;
  /** Sets the expiry (tests and administrators end a session without deleting its row at once). */
  expire(id: number, at: number): void;
  delete(id: number): boolean;
  /** Ends every session of the user except `exceptId` (password change); returns how many. */
  deleteAllForUser(userId: number, exceptId?: number): number;
  listForUser(userId: number): WebSession[];
  purgeExpired(now: number): number;
}

export interface WebAccountRepository {
  /** The user's settings JSON, undefined when never saved. */
  settings(userId: number): string | undefined;
  saveSettings(userId: number, json: string): void;
  /** Flagged admins; while none is flagged, the oldest account. */
  isAdmin(userId: number): boolean;
  setAdmin(userId: number, admin: boolean): void;
  userCount(): number;
}

export interface ConversationRepository {
  create(c: { userId: number; title: string; scope: unknown; model: string }, now: number): Conversation;
  /** The user's conversation; another user's id is not found. */
  find(userId: number, id: number): Conversation | undefined;
  /** Most recently updated first. */
  list(userId: number, limit: number): Conversation[];
  addMessage(conversationId: number, m: NewConversationMessage, now: number): ConversationMessage;
  messages(conversationId: number): ConversationMessage[];
  delete(userId: number, id: number): boolean;
}
