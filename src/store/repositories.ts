// Storage interfaces the domain code depends on, all asynchronous (Promises): implemented over
// SQLite in ./sqlite/ and over PostgreSQL in ./postgres/, and handed to the domains by ./open-store.ts.
// Each domain adds its repository interface here (one small interface per entity).
import type { ChangeSignal } from './change-signal.ts';
import type { User } from '../model/user.ts';
import type {
  ApiKey,
  StoredApiKey,
  BetaFeature,
  UsageRecord,
  UsageTotals,
  AsyncJob,
  AccessRequest,
  AccessRequestStatus,
} from '../model/chat.ts';
import type {
  StoredToken,
  NewToken,
  OAuthClient,
  GrantType,
  AuthorizationCode,
  NewAuthorizationCode,
} from '../model/auth.ts';

export interface UserRepository {
  create(username: string, passwordHash: string, email?: string | null): Promise<User>;
  findByName(username: string): Promise<(User & { passwordHash: string }) | undefined>;
  /** The one user with this e-mail address (case-insensitive); undefined when none or several. */
  findByEmail(email: string): Promise<(User & { passwordHash: string }) | undefined>;
  findById(id: number): Promise<User | undefined>;
  list(): Promise<User[]>;
  setPasswordHash(id: number, passwordHash: string): Promise<void>;
  setAdmin(id: number, admin: boolean): Promise<void>;
  delete(id: number): Promise<boolean>;
}

// Authentication (src/auth): bearer tokens, OAuth clients and authorization codes.

export interface TokenRepository {
  insert(token: NewToken, now: number): Promise<StoredToken>;
  findByHash(tokenHash: string): Promise<StoredToken | undefined>;
  findById(id: number): Promise<StoredToken | undefined>;
  /** Records use; callers throttle it (once a minute per token) to avoid a write per request. */
  markUsed(id: number, now: number): Promise<void>;
  /** Returns false when the token does not exist or was already revoked. */
  revoke(id: number, now: number): Promise<boolean>;
  revokeAllForUser(userId: number, now: number): Promise<number>;
  /** Revokes every token descending from one authorization code (code reuse, refresh reuse). */
  revokeGrant(grantId: string, now: number): Promise<number>;
  listForUser(userId: number): Promise<StoredToken[]>;
  /** Deletes a user's ClientLogin tokens with this label not used (or, never used, created) since `idleSince`. */
  deleteIdleClientLogin(userId: number, label: string | null, idleSince: number): Promise<number>;
  /** Deletes tokens that expired or were revoked before `before`. */
  purge(before: number): Promise<number>;
}

export interface OAuthClientRepository {
  create(
    c: { clientId: string; secretHash: string; name: string; redirectUris: string[]; grantTypes: GrantType[] },
    now: number,
  ): Promise<OAuthClient>;
  findByClientId(clientId: string): Promise<OAuthClient | undefined>;
  list(): Promise<OAuthClient[]>;
  delete(clientId: string): Promise<boolean>;
}

export interface AuthorizationCodeRepository {
  insert(code: NewAuthorizationCode, now: number): Promise<AuthorizationCode>;
  findByHash(codeHash: string): Promise<AuthorizationCode | undefined>;
  /** Marks the code used; false when it was already used (a concurrent or replayed exchange). */
  markUsed(id: number, now: number): Promise<boolean>;
  purge(before: number): Promise<number>;
}

/** Named server-side secrets (HMAC keys), created once and kept. */
export interface AuthSecretRepository {
  getOrCreate(name: string, create: () => string, now: number): Promise<string>;
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
  /**
   * False when the item has no article in the index (never indexed): it has no passages or
   * article row to replace, so none is deleted first (PostgreSQL). Undefined: unknown.
   */
  indexed?: boolean;
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
  | {
      kind: 'streams';
      userId: number;
      feedIds: number[];
      taggedLabelIds: number[];
      states: ('starred' | 'read' | 'liked')[];
    };

export interface PassageFilter {
  scope: PassageScope;
  /** Only the items of these feeds among the scope's (a question that names a feed: src/answer). */
  onlyFeeds?: number[];
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

/** A stored article's indexed text: its passages in reading order, joined by blank lines. */
export interface ArticleText {
  title: string;
  url: string;
  text: string;
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
  /** Drawn at random once per database (migration 120): tells this index from another database's. */
  indexId: string;
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

/** An item waiting to be indexed; `seq` tells a later change of the same item from the one read. */
export interface BacklogEntry {
  itemId: number;
  seq: number;
  /**
   * When the entry was queued (Unix ms). With `seq` it names one entry: an item indexed and queued
   * again starts at seq 0 once more, with a later time.
   */
  queuedAt: number;
}

export interface SearchIndexStatus {
  /** Items stored. */
  items: number;
  /** Articles in the index (items without any text are never indexed). */
  articles: number;
  passages: number;
  /** Items waiting to be indexed. */
  waiting: number;
  /**
   * Items looked at and left out for having no text to index (no title, no body), counted apart
   * so that stored minus indexed does not read as a backlog that never drains.
   */
  noText: number;
  /** When the oldest waiting item was queued (Unix ms), null when none waits. */
  oldestQueuedAt: number | null;
}

export interface SearchIndexRepository {
  /** The store's change signal: the article table and the backlog check skip their reads while it stays put. */
  readonly changes: ChangeSignal;
  /**
   * Makes this transaction the only writer of the index until it ends (call first in every
   * transaction that changes postings: indexing, rebuild, compaction).
   */
  lockForWriting(): Promise<void>;
  /**
   * The backlog's indexers, in two steps: `lockForPassages` before writing the passages of the
   * batch they hold (several indexers at once; never beside a `lockForWriting` writer, which
   * rewrites passages of items it holds no backlog entry of), then `lockForPostings` for the
   * document numbers, articles and postings (one at a time). Both held until the transaction
   * ends; always in that order.
   */
  lockForPassages(): Promise<void>;
  lockForPostings(): Promise<void>;
  itemSources(ids: number[]): Promise<SearchItemSource[]>;
  /**
   * Which of these items have an article in the index (their sources were read and prepared
   * before the caller's transaction, so `SearchItemSource.indexed` may be stale). Null: not known
   * (SQLite, which replaces an item's rows whether or not it had any).
   */
  indexedAmong(ids: number[]): Promise<Set<number> | null>;
  /** Reserves n document numbers (inside the caller's transaction); returns the first. */
  reserveDocNumbers(n: number): Promise<number>;
  /**
   * Stores articles and their passages, replacing any earlier version of the items. Without
   * `passages` the items' passages are left as they are (written before by storePassages).
   */
  storeArticles(
    articles: { article: IndexedArticle; passages?: { text: string; words: number }[]; replace?: boolean }[],
  ): Promise<void>;
  /**
   * Replaces the passages of these items (none: the item's go). Touches no counter: the backlog's
   * indexers write them under `lockForPassages`, beside each other (PostgreSQL). `replace: false`
   * (in storeArticles too): the item is known to have none yet, nothing to delete first.
   */
  storePassages(
    items: { itemId: number; passages: { text: string; words: number }[]; replace?: boolean }[],
  ): Promise<void>;
  /** Appends one batch's encoded postings, per term (src/search/postings.ts). */
  appendPostings(entries: { term: string; bytes: Uint8Array; count: number }[]): Promise<void>;
  /** Replaces all of a term's postings with these chunks (none: the term goes). */
  replacePostings(term: string, chunks: { bytes: Uint8Array; count: number }[]): Promise<void>;
  /** Terms in order after `afterTerm` ('' for the first), at most `limit`. */
  termsAfter(afterTerm: string, limit: number): Promise<string[]>;
  /** Document numbers of the current articles. */
  liveDocNumbers(): Promise<number[]>;
  /** Records that a compaction covering removals up to this count finished. */
  setCompactedRemoved(removed: number): Promise<void>;
  /** Postings in chunks of at most this many bytes (appends start a new chunk past it). */
  readonly chunkBytes: number;
  /** Postings stored per term (terms with none are absent), for picking a long query's terms. */
  postingCounts(terms: string[]): Promise<Map<string, number>>;
  /** Several terms' postings at once (one round trip on a server); terms without postings are absent. */
  postingsOf(terms: string[]): Promise<Map<string, { chunks: Uint8Array[]; count: number }>>;
  /** The term's posting chunks in order, and how many postings they hold. */
  postings(term: string): Promise<{ chunks: Uint8Array[]; count: number }>;
  state(): Promise<SearchIndexState>;
  /** Article rows from this document number on, in document number order. */
  articleRows(fromDocNo: number, limit: number): Promise<IndexedArticleRow[]>;
  /** The current item of each document number; numbers of removed or replaced versions are absent. */
  liveDocuments(docNos: number[]): Promise<Map<number, number>>;
  deleteItems(ids: number[]): Promise<void>;
  /** Item ids in id order after `afterId`, at most `untilId` (for rebuilds in batches). */
  itemIdsAfter(afterId: number, limit: number, untilId?: number): Promise<number[]>;
  /** Empties the index; a background rebuild of every stored item is then pending (cleared by setRebuildCursor(null)). */
  deleteAll(): Promise<void>;
  /** Records a background rebuild's progress: items up to this id are indexed (null: finished). */
  setRebuildCursor(afterId: number | null): Promise<void>;
  passageCount(): Promise<number>;
  articleCount(): Promise<number>;
  /**
   * Items waiting to be indexed (stored or changed since they were last indexed: triggers on
   * items record them in the storing transaction), at most `limit`, in id order. Called in a
   * transaction, the entries are held until it ends, and on PostgreSQL entries another
   * transaction holds (another indexer's batch) are skipped, or with `waitForLocked` waited
   * for (then left out if that transaction took them off). SQLite has one writer: no skipping.
   */
  backlog(limit: number, opts?: { waitForLocked?: boolean }): Promise<BacklogEntry[]>;
  /**
   * Up to `limit` backlog entries with item ids after `afterId`, in id order, read without holding
   * them (outside a transaction, or beside the one holding the entries before them): what the next
   * batch will most likely take, prepared ahead of it.
   */
  backlogAfter(afterId: number, limit: number): Promise<BacklogEntry[]>;
  /** Takes these entries off the backlog unless their item changed again since they were read. */
  removeFromBacklog(entries: BacklogEntry[]): Promise<void>;
  /** True when at least one item waits to be indexed (one indexed read). */
  hasBacklog(): Promise<boolean>;
  /** Counts for `tidings search status`: items stored, articles indexed, items waiting and the oldest wait. */
  indexStatus(): Promise<SearchIndexStatus>;
  /** Every passage of these articles, unscored (score 0), in reading order. */
  passageTexts(itemIds: number[]): Promise<PassageMatch[]>;
  articles(ids: number[]): Promise<SearchArticleMeta[]>;
  /**
   * The indexed text of these articles, by item id, in one statement (an answer reads one per cited
   * source); ids of items no longer stored are absent. An item not indexed yet has empty text.
   */
  articleTexts(itemIds: number[]): Promise<Map<number, ArticleText>>;
  // Scope resolution (always relative to one user).
  subscribedFeedIds(userId: number): Promise<number[]>;
  /** Document numbers of the user's items tagged with these labels or in these states. */
  docNosTaggedOrInState(
    userId: number,
    labelIds: number[],
    states: ('starred' | 'read' | 'liked')[],
  ): Promise<number[]>;
  subscribedFeedIdByUrl(userId: number, feedUrl: string): Promise<number | undefined>;
  label(userId: number, name: string): Promise<{ id: number; folderFeedIds: number[] } | undefined>;
  /**
   * The feeds of a scope with their names, at most `limit` (in feed id order): the user's
   * subscriptions (or, for streams, the feeds the stream ids name) with the title the user gave
   * each, or every feed of the instance, named by its subscribers' title when they all gave the
   * same one (the instance scope is an operator's: `tidings ask` without --user). In feed id
   * order, from after `afterFeedId` (pages); names cut to FEED_NAME_CHARS.
   */
  feedNames(scope: PassageScope, limit: number, afterFeedId?: number): Promise<FeedName[]>;
}

/** Characters of a feed's name `feedNames` reads (a question is compared with fewer: src/answer/text/feed-asked.ts). */
export const FEED_NAME_CHARS = 200;

/** A feed of a search scope and the names a question may call it by. */
export interface FeedName {
  feedId: number;
  /** The feed's own title (its URL when it has none), as search hits name it, cut to FEED_NAME_CHARS. */
  title: string;
  /** The title the user gave the subscription, when they gave one. */
  userTitle: string | null;
}

// Chat completions API (src/chat-api).
export interface ApiKeyRepository {
  create(key: { id: string; userId: number; name: string; keyHash: string; tier: number }): Promise<ApiKey>;
  /** The key and its stored hash, revoked or not. */
  findById(id: string): Promise<StoredApiKey | undefined>;
  list(userId?: number): Promise<ApiKey[]>;
  rename(id: string, name: string): Promise<boolean>;
  revoke(id: string): Promise<boolean>;
  setDisabled(id: string, disabled: boolean): Promise<boolean>;
  setTier(id: string, tier: number): Promise<boolean>;
  setFeatures(id: string, features: BetaFeature[]): Promise<boolean>;
}

export interface ChatUsageRepository {
  record(r: UsageRecord): Promise<void>;
  totals(opts: { userId?: number; since?: number }): Promise<UsageTotals[]>;
}

export interface AsyncJobRepository {
  create(job: {
    id: string;
    keyId: string;
    userId: number;
    model: string;
    request: unknown;
    idempotencyKey: string | null;
    createdAt: number;
  }): Promise<AsyncJob>;
  find(id: string): Promise<AsyncJob | undefined>;
  findByIdempotencyKey(keyId: string, idempotencyKey: string): Promise<AsyncJob | undefined>;
  /** Newest first, keyset-paginated by (created_at, id). */
  listForUser(userId: number, limit: number, before?: { createdAt: number; id: string }): Promise<AsyncJob[]>;
  /**
   * Atomically claims the oldest unfinished job nobody holds (CREATED, or IN_PROGRESS with no lease
   * or a lease that has run out): it becomes IN_PROGRESS, owned by `owner` for `leaseMs`, started
   * at `startedAt` (Unix s), with one more attempt. Two processes never get the same job (SQLite:
   * one write statement; PostgreSQL: FOR UPDATE SKIP LOCKED). Leases are set and compared by the
   * database's clock, never the process's: processes on machines whose clocks disagree still see
   * the same expiry.
   */
  claimNext(owner: string, leaseMs: number, startedAt: number): Promise<AsyncJob | undefined>;
  /** Jobs claimNext could take now (the waiting queue's depth). */
  countClaimable(): Promise<number>;
  /** Extends the owner's lease to `leaseMs` from now (the database's clock); false when the job is no longer the owner's (lease lost, finished). */
  renewLease(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Gives the job up (shutdown): it stays IN_PROGRESS and any process may claim it at once. */
  releaseLease(id: string, owner: string): Promise<void>;
  /** The owner's progress report; ignored when the job is no longer the owner's. */
  setProgress(id: string, owner: string, progress: unknown): Promise<void>;
  /** COMPLETED with the response, only if `owner` still holds the job; false otherwise (nothing written). */
  markCompleted(id: string, owner: string, response: unknown, at: number): Promise<boolean>;
  /** FAILED with the message, only if `owner` still holds the job; false otherwise (nothing written). */
  markFailed(id: string, owner: string, message: string, at: number): Promise<boolean>;
  /** Deletes jobs created before `before`; returns how many. */
  purgeCreatedBefore(before: number): Promise<number>;
}

export interface AccessRequestRepository {
  create(r: { keyId: string; requestedTier: number; reason: string }): Promise<AccessRequest>;
  find(id: number): Promise<AccessRequest | undefined>;
  list(status?: AccessRequestStatus): Promise<AccessRequest[]>;
  decide(id: number, status: 'approved' | 'denied', grantedTier: number | null, note: string | null): Promise<boolean>;
}

// Reader API (src/reader-api): per-user streams, item states and the label/subscription views.
import type {
  FeedOrigin,
  ItemCondition,
  ItemRefsJson,
  LabelView,
  ReaderItemBody,
  ReaderItemState,
  StateColumn,
  StreamPageQuery,
  SubscriptionView,
  UnreadCounter,
} from '../model/stream.ts';

/**
 * A page of the user's items with everything rendering it needs from the database, read together:
 * on PostgreSQL one statement (one round trip) instead of four (page, tags, two versions).
 */
export interface PageToRender {
  items: ReaderItemState[];
  /** Custom tag names on each item of the page (only items that have some). */
  tags: Map<number, string[]>;
  /** itemsVersion() as of the same read: keys the serialized-body cache. */
  itemsVersion: number;
  /** ReaderLabelRepository.catalogVersion() as of the same read: tells whether a cached catalog still holds. */
  catalogVersion: number;
}

export interface StreamRepository {
  /** statesPage, its items' tags and both versions in one read. */
  pageToRender(q: StreamPageQuery): Promise<PageToRender>;
  /** statesByIds, their tags and both versions in one read. */
  byIdsToRender(userId: number, itemIds: number[]): Promise<PageToRender>;
  /** Keyset page of item references (index-only) as Google Reader itemRefs JSON entries, comma-joined. */
  refsJson(q: StreamPageQuery): Promise<ItemRefsJson>;
  /** Keyset page of the user's items: their flags, no bodies. */
  statesPage(q: StreamPageQuery): Promise<ReaderItemState[]>;
  /** The user's items among these ids, in the order given; other users' items are never returned. */
  statesByIds(userId: number, itemIds: number[]): Promise<ReaderItemState[]>;
  /** Item bodies by id (any order); callers pass ids that came from the user's own rows. */
  bodies(itemIds: number[]): Promise<ReaderItemBody[]>;
  /** Changes whenever any item's url, title, author, content, summary, dates or enclosures change. */
  itemsVersion(): Promise<number>;
  existingItemIds(userId: number, itemIds: number[]): Promise<number[]>;
  /** Custom tag names on each item (only items that have some). */
  tagsOfItems(userId: number, itemIds: number[]): Promise<Map<number, string[]>>;
}

export interface ItemStateRepository {
  /** Sets a flag on the user's items among itemIds; returns how many changed. */
  setState(userId: number, column: StateColumn, value: 0 | 1, itemIds: number[]): Promise<number>;
  tagItems(userId: number, labelId: number, itemIds: number[]): Promise<number>;
  untagItems(userId: number, labelId: number, itemIds: number[]): Promise<number>;
  /** Marks read every unread item matching the filter crawled at or before maxCrawledUs. */
  markAllRead(userId: number, where: ItemCondition[], maxCrawledUs: number): Promise<number>;
}

export interface ReaderLabelRepository {
  subscriptions(userId: number): Promise<SubscriptionView[]>;
  /** Subscription (or bare feed) info of the given feeds, for item `origin`s and categories. */
  origins(userId: number, feedIds: number[]): Promise<Map<number, FeedOrigin>>;
  /** All of the user's subscriptions as origins; cache it while catalogVersion() stays the same. */
  catalog(userId: number): Promise<FeedOrigin[]>;
  /** Feeds with items the user kept (starred or tagged) after unsubscribing. */
  leftFeedIds(userId: number): Promise<number[]>;
  /** Changes whenever feeds' url/title/site, subscriptions, their titles or folders change. */
  catalogVersion(): Promise<number>;
  /** The trigger-maintained counters of every subscription (never a recount). */
  unreadCounters(userId: number): Promise<UnreadCounter[]>;
  /** unreadCounters and catalogVersion() in one read. */
  unreadCountersAndCatalogVersion(userId: number): Promise<{ counters: UnreadCounter[]; catalogVersion: number }>;
  subscribedFeedId(userId: number, feedUrl: string): Promise<number | undefined>;
  labels(userId: number): Promise<LabelView[]>;
  findLabel(userId: number, name: string): Promise<number | undefined>;
  /** How many folders and tags the user has. */
  countLabels(userId: number): Promise<number>;
  ensureLabel(userId: number, name: string): Promise<number>;
  folderFeedIds(userId: number, labelId: number): Promise<number[]>;
  hasTaggedItems(labelId: number): Promise<boolean>;
  /** Renames; when the new name exists, merges into it. */
  renameLabel(userId: number, labelId: number, newName: string): Promise<void>;
  deleteLabel(userId: number, labelId: number): Promise<void>;
}

// ---- Feeds (fetch state), items (ingest) and subscriptions: src/store/sqlite/{feeds,items,subscriptions}.ts
import type { FeedRecord, FeedMetadata, FetchOutcome, SubscriptionRecord } from '../model/feed-record.ts';
import type { ParsedEntry } from '../model/parsed-feed.ts';
import type { ItemChanges } from '../model/item.ts';

/** A feed FeedRepository.ensureMany creates when its URL is new. */
export interface FeedToEnsure {
  url: string;
  title?: string | null;
  siteUrl?: string | null;
}

export interface FeedRepository {
  findById(id: number): Promise<FeedRecord | undefined>;
  findByUrl(url: string): Promise<FeedRecord | undefined>;
  /** Inserts a feed with that URL, or returns the one that exists (two users adding it at once). */
  create(url: string, meta?: Partial<FeedMetadata>): Promise<FeedRecord>;
  /**
   * The feed ids of these URLs, each feed created as create() would if it does not exist (its
   * title and site URL from the first entry of the URL). One round trip a call on PostgreSQL, so
   * an OPML import of thousands of feeds does not wait on thousands of statements.
   */
  ensureMany(feeds: FeedToEnsure[]): Promise<Map<string, number>>;
  updateMetadata(id: number, meta: FeedMetadata): Promise<void>;
  /**
   * Success: clears the error, resets error_count, stores validators. With `releaseClaimOf`, the
   * same write ends that owner's refresh claim on the feed (another owner's claim stays), so a
   * refresh costs one statement less than a separate RefreshClaimRepository.release.
   */
  recordSuccess(id: number, outcome: FetchOutcome, releaseClaimOf?: string): Promise<void>;
  /** Failure: keeps validators and items, increments error_count; `releaseClaimOf` as recordSuccess. */
  recordFailure(id: number, outcome: FetchOutcome, releaseClaimOf?: string): Promise<void>;
  /** Moves the feed to a new URL (permanent redirect); false when another feed already has it. */
  changeUrl(id: number, newUrl: string): Promise<boolean>;
  /** Feeds with at least one subscriber whose next fetch is due (all of them when dueBy is Infinity). */
  listDue(dueBy: number, limit: number): Promise<FeedRecord[]>;
  /** Publication times (Unix s) of the feed's most recent items, newest first: input of the adaptive interval. */
  recentPublishTimes(id: number, count: number): Promise<number[]>;
}

/**
 * Leases on periodic upkeep tasks (favicon look-ups, WebSub maintenance), shared by every process
 * on the database (src/feeds/upkeep-lease.ts). Their times are the database's clock (DB_NOW_MS),
 * which every process and machine share; durations are in ms.
 */
export interface UpkeepLeaseRepository {
  /**
   * Takes the lease on `task` for `owner` for `leaseMs`, unless another holds a lease that has
   * not run out, or another owner finished a run less than `othersFinishedWithinMs` ago. True when taken.
   */
  claim(task: string, owner: string, opts: { leaseMs: number; othersFinishedWithinMs: number }): Promise<boolean>;
  /** Extends the lease to `leaseMs` from now while the run goes on; false when `owner` no longer holds it. */
  renew(task: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Ends the run: the lease is free and the finish time recorded. */
  finish(task: string, owner: string): Promise<void>;
}

/**
 * Claims on feed refreshes, shared by every process on the database (src/feeds/refresh-claims.ts).
 * A claim is (owner, until in ms since the epoch by the database's clock, DB_NOW_MS, which every
 * process and machine share); a claim whose time has passed counts as none.
 */
export interface RefreshClaimRepository {
  /**
   * Claims, among `ids`, the feeds that are still due (next_fetch_at <= dueBy) and subscribed,
   * claimed by nobody, as long as their host has fewer than `perHost` live claims in all (by any
   * owner, these included; a claim whose fetch has ended, `fetchDone`, no longer counts there):
   * claims bound what is fetched at once, so the per-host limit holds
   * across processes; the owners that have waited for the host longer than `owner` (every waiting
   * one when `owner` does not wait) count as holding a place each. `claimed` are the feeds now
   * held by `owner` for `leaseMs`; `held` the ids still due that someone holds or whose host is at
   * its limit: try them later; `hostFull` those of `held` that nobody holds, left only because of
   * their host (asking for more of that host now is in vain). `owner` then waits for those hosts
   * for `hostWaitMs` (a refused claim renews it, keeping its place in line), no longer for hosts it
   * got a feed of. The other ids (fetched meanwhile, unsubscribed, gone) need nothing more.
   */
  claimListed(
    ids: readonly number[],
    owner: string,
    opts: { dueBy: number; leaseMs: number; perHost: number; hostWaitMs: number },
  ): Promise<{ claimed: FeedRecord[]; held: number[]; hostFull: number[] }>;
  /** `owner` waits for no host any more (its refresh pass is over). */
  endWaits(owner: string): Promise<void>;
  /** Claims one feed whatever its host and due time (refresh now); undefined when it is held (or gone). */
  claimOne(id: number, owner: string, leaseMs: number): Promise<FeedRecord | undefined>;
  /**
   * The owner's fetch of this claimed feed has ended (its body is read; the parse and the store
   * follow): the claim still keeps the feed from the others, but no longer counts against its host.
   */
  fetchDone(id: number, owner: string): Promise<void>;
  /** Extends every claim of `owner` to `leaseMs` from now; returns how many. */
  renew(owner: string, leaseMs: number): Promise<number>;
  /** Ends the owner's claims on these feeds (done, or given back). */
  release(ids: readonly number[], owner: string): Promise<void>;
  /** Whether someone holds a live claim on the feed. */
  isClaimed(id: number): Promise<boolean>;
}

export interface ItemRepository {
  /**
   * Stores the entries of one feed in one transaction: new entries are inserted and fanned out to
   * every subscriber's user_items; entries whose content changed are updated in place (same id and
   * crawl time); unchanged ones are left alone. Entries missing from the feed are kept.
   */
  upsertEntries(feedId: number, entries: ParsedEntry[], crawlTimeUs: number): Promise<ItemChanges>;
  countByFeed(feedId: number): Promise<number>;
  /**
   * Retention: deletes up to `limit` articles crawled before `beforeUs` that every user who has
   * them has read and nobody starred, saved or tagged, leaving a tombstone (feed, guid) so a later
   * fetch does not bring them back; lowers the feeds' item counts. Returns the deleted ids.
   */
  deleteReadBefore(beforeUs: number, limit: number): Promise<number[]>;
}

export interface SubscribeOptions {
  title?: string | null;
  folders?: string[];
}

/** One subscription of SubscriptionRepository.subscribeMany. */
export interface SubscriptionToMake {
  feedId: number;
  /** The name of a subscription this call creates; an existing one keeps its own. */
  title?: string | null;
  folders?: string[];
}

export interface SubscriptionRepository {
  /**
   * Subscribes to many feeds at once, as subscribe() one by one would, except that a title names
   * only a subscription the call creates (an import files an existing subscription, it does not
   * rename it). A feed listed twice is subscribed once, with the folders of both. Returns how many
   * subscriptions were created. A few statements a call on PostgreSQL, whatever the count.
   */
  subscribeMany(userId: number, entries: SubscriptionToMake[]): Promise<number>;
  /** Subscribes (idempotent: an existing subscription gets the folders added). */
  subscribe(
    userId: number,
    feedId: number,
    opts?: SubscribeOptions,
  ): Promise<{ subscription: SubscriptionRecord; created: boolean }>;
  /** Removes the subscription and the user's items of that feed except starred or tagged ones. */
  unsubscribe(userId: number, feedId: number): Promise<boolean>;
  find(userId: number, feedId: number): Promise<SubscriptionRecord | undefined>;
  list(userId: number): Promise<SubscriptionRecord[]>;
  /** The URLs of the user's feeds, unordered: what an import checks against, without list()'s folders and sort. */
  feedUrls(userId: number): Promise<string[]>;
  rename(userId: number, feedId: number, title: string | null): Promise<boolean>;
  addFolder(userId: number, feedId: number, folder: string): Promise<boolean>;
  removeFolder(userId: number, feedId: number, folder: string): Promise<boolean>;
  subscriberCount(feedId: number): Promise<number>;
  /** How many feeds the user is subscribed to (the per-user limit). */
  countForUser(userId: number): Promise<number>;
}

// ---- Fever API (src/fever) ----

/** An item as the Fever API lists it (`is_saved` is the Reader API's starred state). */
export interface FeverItemRow {
  id: number;
  feedId: number;
  title: string;
  author: string | null;
  html: string;
  url: string | null;
  isSaved: number;
  isRead: number;
  createdOnTime: number;
}

export interface FeverRepository {
  /** Stores (or replaces) the user's Fever key, as a MAC of md5(username:password). */
  setCredential(userId: number, keyMac: string, now: number): Promise<void>;
  deleteCredential(userId: number): Promise<boolean>;
  hasCredential(userId: number): Promise<boolean>;
  userIdByKeyMac(keyMac: string): Promise<number | undefined>;
  /** The user's items with ids above afterId, ascending, at most limit. */
  itemsAfter(userId: number, afterId: number, limit: number): Promise<FeverItemRow[]>;
  /** The user's items with ids below beforeId, descending, at most limit. */
  itemsBefore(userId: number, beforeId: number, limit: number): Promise<FeverItemRow[]>;
  /** The user's items among these ids (others' ids are skipped), ascending. */
  itemsWithIds(userId: number, ids: number[]): Promise<FeverItemRow[]>;
  itemCount(userId: number): Promise<number>;
  /** Comma-joined ids, ascending. */
  unreadItemIds(userId: number): Promise<string>;
  savedItemIds(userId: number): Promise<string>;
  /** Newest successful fetch (Unix s) among the user's feeds; 0 when none. */
  lastRefreshedOn(userId: number): Promise<number>;
  /** Last successful fetch (Unix s) of each subscribed feed. */
  feedsUpdatedOn(userId: number): Promise<Map<number, number>>;
}

// ---- Favicons (src/feeds/favicons) ----

export interface FeedIcon {
  feedId: number;
  mime: string;
  data: Uint8Array;
  sourceUrl: string | null;
  fetchedAt: number;
}

export interface FeedIconRepository {
  store(icon: FeedIcon): Promise<void>;
  /** A lookup that found no usable icon: remembered so it is retried later, not on every refresh. */
  recordFailure(feedId: number, error: string, at: number): Promise<void>;
  get(feedId: number): Promise<FeedIcon | undefined>;
  /** Icons of the user's subscribed feeds (feeds without one are absent). */
  forUser(userId: number): Promise<FeedIcon[]>;
  /** Ids of the user's subscribed feeds that have an icon. */
  feedIdsWithIcon(userId: number): Promise<number[]>;
  /** Subscribed feeds never looked up, with an icon fetched before `iconStaleBefore`, or whose failed lookup was before `failedStaleBefore`. */
  feedsToLookUp(
    iconStaleBefore: number,
    failedStaleBefore: number,
    limit: number,
  ): Promise<{ feedId: number; siteUrl: string | null; feedUrl: string }[]>;
}

// ---- Filter rules (src/rules) ----
import type { FilterRule, FilterRuleView, NewFilterRule, RuleItem } from '../model/rule.ts';

export interface FilterRuleRepository {
  create(rule: NewFilterRule, now: number): Promise<FilterRule>;
  list(userId: number): Promise<FilterRuleView[]>;
  find(userId: number, id: number): Promise<FilterRule | undefined>;
  /** Deletes the rule and puts back the items it hid (for feeds the user still follows). */
  delete(userId: number, id: number): Promise<{ deleted: boolean; restored: number }>;
  /** Every enabled rule of the feed's subscribers that covers the feed (everything, the feed, or a folder holding it). */
  rulesCoveringFeed(feedId: number): Promise<FilterRule[]>;
  /** The user's enabled rules that cover this feed. */
  userRulesCoveringFeed(userId: number, feedId: number): Promise<FilterRule[]>;
  /** Feed ids a rule's scope covers for its user (subscribed feeds only). */
  scopeFeedIds(rule: FilterRule): Promise<number[]>;
  /** What rules look at, for these items. */
  ruleItems(itemIds: number[]): Promise<RuleItem[]>;
  /** The user's visible item ids of these feeds, ascending, after `afterId`. */
  userItemIds(userId: number, feedIds: number[], afterId: number, limit: number): Promise<number[]>;
  /** Hides the user's items (moves their rows aside, keeping flags); starred or tagged items are never hidden. Returns how many. */
  hide(userId: number, ruleId: number, itemIds: number[]): Promise<number>;
  /** Records why the rule was skipped (null clears, and resets its time-outs in a row). */
  setError(ruleId: number, error: string | null, at: number): Promise<void>;
  /**
   * Records a time-out of the rule; the `disableAfter`-th in a row disables it with `reason`.
   * Returns whether it is disabled now.
   */
  recordTimeout(ruleId: number, error: string, at: number, disableAfter: number, reason: string): Promise<boolean>;
  /** Enables the user's rule again (time-outs and error cleared); false when the user has no such rule. */
  enable(userId: number, id: number): Promise<boolean>;
}

// ---- Full text (src/feeds/fulltext) ----

export type FullTextMode = 'on' | 'off' | 'auto';

/** An item whose article page is to be fetched. */
export interface FullTextCandidate {
  id: number;
  feedId: number;
  url: string;
  contentHash: string;
  content: string | null;
  summary: string | null;
  attempts: number;
}

export interface FullTextFeedStatus {
  /** Per subscriber: does anyone want full text, explicitly or by auto-detection. */
  modes: FullTextMode[];
  teaser: boolean | null;
  teaserCheckedAt: number | null;
  ok: number;
  failed: number;
  lastError: string | null;
}

export interface FullTextRepository {
  setMode(userId: number, feedId: number, mode: FullTextMode): Promise<boolean>;
  mode(userId: number, feedId: number): Promise<FullTextMode | undefined>;
  /** True when a subscriber has it on, or (autoEnable) the feed is a detected teaser feed with an 'auto' subscriber. */
  wantsFullText(feedId: number, autoEnable: boolean): Promise<boolean>;
  /**
   * What the full-text queue needs of a feed after new items, in one read: the teaser verdict and
   * when it was checked, whether a subscriber is on 'auto', and `wantsFullText` as now.
   * Undefined when the feed is gone.
   */
  queueState(
    feedId: number,
    autoEnable: boolean,
  ): Promise<{ teaser: boolean | null; teaserCheckedAt: number | null; auto: boolean; wants: boolean } | undefined>;
  /**
   * Among the feed's items with a link — its `recent` newest, and all crawled since crawledSinceUs —
   * those with no full text for their current content, and failures due for a retry (fewer than
   * maxAttempts, last attempt before retryBefore). Newest first.
   */
  candidates(
    feedId: number,
    recent: number,
    crawledSinceUs: number,
    maxAttempts: number,
    retryBefore: number,
  ): Promise<FullTextCandidate[]>;
  /** Replaces the content by the full text (the feed's text kept as summary); false when the entry changed meanwhile. */
  store(itemId: number, contentHash: string, html: string, pageUrl: string, now: number): Promise<boolean>;
  recordFailure(itemId: number, contentHash: string, error: string, now: number): Promise<void>;
  /** Feeds with an 'auto' subscriber not yet checked for teasers. */
  feedsToCheckForTeaser(limit: number): Promise<number[]>;
  /** The feed's newest items with a link, for the teaser check. */
  sample(feedId: number, n: number): Promise<FullTextCandidate[]>;
  setTeaser(feedId: number, teaser: boolean, now: number): Promise<void>;
  /** A teaser check that could read none of the sampled pages: remembered, so it is retried later, not every refresh. */
  setTeaserUnknown(feedId: number, now: number): Promise<void>;
  status(feedId: number): Promise<FullTextFeedStatus>;
}

// ---- Webhooks (src/webhooks) ----

export type WebhookEvent = 'new-item' | 'starred';

export interface Webhook {
  id: number;
  userId: number;
  url: string;
  events: WebhookEvent[];
  secretBox: string;
  createdAt: number;
}

export interface WebhookDelivery {
  id: number;
  webhookId: number;
  event: WebhookEvent;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface WebhookRepository {
  create(w: { userId: number; url: string; events: WebhookEvent[]; secretBox: string }, now: number): Promise<Webhook>;
  list(userId: number): Promise<Webhook[]>;
  find(id: number): Promise<Webhook | undefined>;
  delete(userId: number, id: number): Promise<boolean>;
  /** The webhooks of these users that subscribe to the event. */
  forEvent(userIds: number[], event: WebhookEvent): Promise<Webhook[]>;
  /** The webhooks of the feed's subscribers that subscribe to the event. */
  forFeedSubscribers(feedId: number, event: WebhookEvent): Promise<Webhook[]>;
  enqueue(webhookId: number, event: WebhookEvent, payload: string, now: number): Promise<number>;
  /** Pending deliveries due at `now`, oldest first taking turns between users (each one's oldest, then their second …). */
  due(now: number, limit: number): Promise<WebhookDelivery[]>;
  /** Earliest next attempt of a pending delivery, or null. */
  nextDueAt(): Promise<number | null>;
  markDelivered(id: number, status: number, now: number): Promise<void>;
  /** A failed attempt: pending again at nextAttemptAt, or failed for good when it is null. */
  markAttemptFailed(
    id: number,
    status: number | null,
    error: string,
    nextAttemptAt: number | null,
    now: number,
  ): Promise<void>;
  deliveries(userId: number, webhookId: number | null, limit: number): Promise<WebhookDelivery[]>;
  /** Deletes finished deliveries older than `before`. */
  purge(before: number): Promise<number>;
}

// ---- WebSub (src/feeds/websub) ----

export type WebSubState = 'discovered' | 'requested' | 'active' | 'unsubscribing' | 'failed';

export interface WebSubSubscription {
  feedId: number;
  hubUrl: string;
  topicUrl: string;
  callbackToken: string;
  secretBox: string;
  state: WebSubState;
  leaseExpiresAt: number | null;
  leaseSeconds: number | null;
  requestedAt: number | null;
  lastError: string | null;
  lastPushAt: number | null;
  pushes: number;
  /** Users following the feed now. */
  subscribers: number;
}

export interface WebSubRepository {
  find(feedId: number): Promise<WebSubSubscription | undefined>;
  findByToken(token: string): Promise<WebSubSubscription | undefined>;
  /** Records the hub a feed announces: a new row, or a changed hub/topic starts over as 'discovered'. */
  recordHub(feedId: number, hubUrl: string, topicUrl: string, newToken: string, newSecretBox: string): Promise<void>;
  setState(
    feedId: number,
    state: WebSubState,
    fields: {
      leaseExpiresAt?: number | null;
      leaseSeconds?: number | null;
      requestedAt?: number | null;
      lastError?: string | null;
    },
  ): Promise<void>;
  recordPush(feedId: number, at: number): Promise<void>;
  delete(feedId: number): Promise<void>;
  /** Rows that need a (re)subscription (leases renewed within min(renewAheadSeconds, half the lease) of their end) or an unsubscription now. */
  maintenance(now: number, renewAheadSeconds: number, retryBefore: number): Promise<WebSubSubscription[]>;
}

// ---- Web app (src/web): sessions, settings, Ask conversations ----
import type { WebSession, Conversation, ConversationMessage, NewConversationMessage } from '../model/web.ts';

export interface WebSessionRepository {
  create(
    s: { tokenHash: string; userId: number; expiresAt: number; userAgent: string | null },
    now: number,
  ): Promise<WebSession>;
  findByHash(tokenHash: string): Promise<WebSession | undefined>;
  /** Records use and moves the expiry forward (callers do it at most once a minute per session). */
  touch(id: number, now: number, expiresAt: number): Promise<void>;
  /** Sets the expiry (tests and administrators end a session without deleting its row at once). */
  expire(id: number, at: number): Promise<void>;
  delete(id: number): Promise<boolean>;
  /** Ends every session of the user except `exceptId` (password change); returns how many. */
  deleteAllForUser(userId: number, exceptId?: number): Promise<number>;
  listForUser(userId: number): Promise<WebSession[]>;
  purgeExpired(now: number): Promise<number>;
}

export interface WebAccountRepository {
  /** The user's settings JSON, undefined when never saved. */
  settings(userId: number): Promise<string | undefined>;
  saveSettings(userId: number, json: string): Promise<void>;
  userCount(): Promise<number>;
  /** Stores the SHA-256 of a new first-run setup secret, replacing an unused one (one row at most). */
  replaceSetupToken(tokenHash: string, now: number): Promise<void>;
  /** Stores it only if no setup secret is stored (a failed setup gives back the secret it used up); true if stored. */
  restoreSetupToken(tokenHash: string, now: number): Promise<boolean>;
  /** Whether the stored setup secret has this hash (without using it up). */
  hasSetupToken(tokenHash: string): Promise<boolean>;
  /** Uses up the setup secret with this hash, atomically: true for exactly one caller. */
  consumeSetupToken(tokenHash: string): Promise<boolean>;
  /** Forgets any setup secret (an account exists). */
  clearSetupToken(): Promise<void>;
}

export interface ConversationRepository {
  create(c: { userId: number; title: string; scope: unknown; model: string }, now: number): Promise<Conversation>;
  /** The user's conversation; another user's id is not found. */
  find(userId: number, id: number): Promise<Conversation | undefined>;
  /** Most recently updated first. */
  list(userId: number, limit: number): Promise<Conversation[]>;
  addMessage(conversationId: number, m: NewConversationMessage, now: number): Promise<ConversationMessage>;
  messages(conversationId: number): Promise<ConversationMessage[]>;
  delete(userId: number, id: number): Promise<boolean>;
}

/** One pour into a leaky bucket: whether it fitted, and the bucket's level after it. */
export interface BucketPour {
  allowed: boolean;
  level: number;
}

/**
 * The counters rate limits and login throttles keep (src/chat-api/rate-limit.ts,
 * src/auth/login-throttle.ts), behind one interface so they can live in this process's memory, in
 * the database (shared by every process on it) or in Redis. Every method is atomic on its own:
 * two processes pouring into one bucket at once both see the other's unit. Times are epoch ms,
 * passed in by the caller (tests drive a clock).
 */
export interface LimitCounters {
  /** 'memory' counts for this process only; 'database' and 'redis' for every process sharing them. */
  readonly kind: 'memory' | 'database' | 'redis';
  /**
   * Leaky bucket `key` of `capacity` units, draining `drainPerMs` units per ms: drains it to
   * nowMs, then pours one unit in if it fits (level + 1 <= capacity).
   */
  pour(key: string, capacity: number, drainPerMs: number, nowMs: number): Promise<BucketPour>;
  /** Records one event at atMs under each key, each kept for its keepMs. */
  addEvent(keys: readonly { key: string; keepMs: number }[], atMs: number): Promise<void>;
  /** The times of the newest `max` events of key after sinceMs, newest first. */
  newestEvents(key: string, sinceMs: number, max: number): Promise<number[]>;
  clearEvents(key: string): Promise<void>;
  /** Remembers atMs under key for keepMs (replacing an older mark). */
  setMark(key: string, atMs: number, keepMs: number): Promise<void>;
  /** The mark of key, unless it has expired by nowMs. */
  markOf(key: string, nowMs: number): Promise<number | undefined>;
  /** Takes one of `max` slots of key under `token` until expiresMs; false when all are taken. */
  takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean>;
  releaseSlot(key: string, token: string): Promise<void>;
  /** Deletes what expired by nowMs (buckets idle for an hour, old events, marks, slots). */
  prune(nowMs: number): Promise<void>;
  /** Checks that the counters can be reached now (readiness); the database's are checked with the store. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
