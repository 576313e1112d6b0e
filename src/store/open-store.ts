// The one storage module: it picks the backend once from the configuration (TIDINGS_DATABASE_URL:
// empty = SQLite in the data folder, postgres://… = PostgreSQL) and gives every domain its
// repositories and one transaction(fn). Domains import this file and ./repositories.ts only; no
// file outside src/store/ imports a backend folder or a database driver (test/import-boundaries).
//
// Transactions: `store.transaction(async () => { await store.feeds…; await store.items…; })`
// runs the callback in one database transaction; repositories called inside it (through the same
// store) take part in it, nested calls join the outer one, and a throw rolls everything back. The
// callback must do storage work only (no network I/O): on SQLite the whole process shares one
// connection, so a transaction that waits on the network would hold every other writer.
import type { ChangeSignal } from './change-signal.ts';
import type {
  AccessRequestRepository,
  ApiKeyRepository,
  AsyncJobRepository,
  AuthSecretRepository,
  AuthorizationCodeRepository,
  ChatUsageRepository,
  FeedRepository,
  ItemRepository,
  RefreshClaimRepository,
  UpkeepLeaseRepository,
  ItemStateRepository,
  OAuthClientRepository,
  ReaderLabelRepository,
  SearchIndexRepository,
  StreamRepository,
  SubscriptionRepository,
  TokenRepository,
  UserRepository,
  FeverRepository,
  FeedIconRepository,
  FilterRuleRepository,
  FullTextRepository,
  WebhookRepository,
  WebSubRepository,
  WebSessionRepository,
  WebAccountRepository,
  ConversationRepository,
  LimitCounters,
} from './repositories.ts';

import { StoreUnavailableError, redactUrl } from './errors.ts';

export { StoreUnavailableError, redactUrl, STORE_UNAVAILABLE } from './errors.ts';

export type Backend = 'sqlite' | 'postgres';

export interface Repositories {
  readonly users: UserRepository;
  // auth
  readonly tokens: TokenRepository;
  readonly oauthClients: OAuthClientRepository;
  readonly authCodes: AuthorizationCodeRepository;
  readonly authSecrets: AuthSecretRepository;
  // feeds
  readonly feeds: FeedRepository;
  readonly items: ItemRepository;
  readonly subscriptions: SubscriptionRepository;
  readonly refreshClaims: RefreshClaimRepository;
  readonly upkeepLeases: UpkeepLeaseRepository;
  // reader-api
  readonly streams: StreamRepository;
  readonly itemStates: ItemStateRepository;
  readonly readerLabels: ReaderLabelRepository;
  // search
  readonly searchIndex: SearchIndexRepository;
  // chat-api
  readonly apiKeys: ApiKeyRepository;
  readonly chatUsage: ChatUsageRepository;
  readonly asyncJobs: AsyncJobRepository;
  readonly accessRequests: AccessRequestRepository;
  // reader features (issue #14): fever, feeds (favicons, full text, WebSub), rules, webhooks
  readonly fever: FeverRepository;
  readonly feedIcons: FeedIconRepository;
  readonly fullText: FullTextRepository;
  readonly webSub: WebSubRepository;
  readonly filterRules: FilterRuleRepository;
  readonly webhooks: WebhookRepository;
  // web
  readonly webSessions: WebSessionRepository;
  readonly webAccounts: WebAccountRepository;
  readonly conversations: ConversationRepository;
  // shared limits (rate limits, login throttles) when they count in the database
  readonly limitCounters: LimitCounters;
}

export { ChangeGated, type ChangeSignal } from './change-signal.ts';

export interface Store extends Repositories {
  readonly backend: Backend;
  /** Where the data lives, for logs and errors (a URL never shows its password). */
  readonly location: string;
  /** Moves when the data may have changed, in this process or another: what a process caches revalidates on it (change-signal.ts). */
  readonly changes: ChangeSignal;
  /** Runs fn in one transaction (see the top of this file). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs fn with the connection set for another workload, then sets it back (nested calls join
   * the outermost): a server's large refresh pass runs as `batch` (SQLite: no memory map, a
   * smaller page cache, see StoreWorkload). Other work of the process meanwhile runs with the same
   * settings. PostgreSQL: no change.
   */
  withWorkload<T>(workload: StoreWorkload, fn: () => Promise<T>): Promise<T>;
  /** Migrations applied when the store was opened (ids, in order). */
  readonly migrationsApplied: readonly string[];
  /** Writes a consistent copy of the whole database to `file` while it stays in use (tidings backup). */
  backup(file: string): Promise<void>;
  /** Checks that the database answers now (readiness): resolves, or throws StoreUnavailableError. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * How the process will use the database. `serve` (the default): reads and writes of a server or
 * a short command. `batch`: a one-shot process that mostly writes (`tidings refresh`); on SQLite
 * it opens without a memory map and with a smaller page cache, which kept a 1,000-feed first
 * refresh under its memory budget (sqlite/db.ts, connectionMemory). PostgreSQL ignores it.
 */
export type StoreWorkload = 'serve' | 'batch';

export interface StoreOptions {
  /** TIDINGS_DATABASE_URL: '' for SQLite in dataDir, postgres://… for PostgreSQL. */
  databaseUrl: string;
  dataDir: string;
  /** Default `serve` (see StoreWorkload). */
  workload?: StoreWorkload;
  /** PostgreSQL: time limit of a statement without an answer (TIDINGS_DATABASE_TIMEOUT_MS; 0 or absent: none). */
  queryTimeoutMs?: number;
}

/** The backend a database URL selects ('' = SQLite); throws on a scheme we do not speak. */
export function backendOf(databaseUrl: string): Backend {
  const url = databaseUrl.trim();
  if (!url) return 'sqlite';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^sqlite:/i.test(url)) return 'sqlite';
  throw new StoreUnavailableError(
    `TIDINGS_DATABASE_URL must be empty (SQLite in the data folder), sqlite:<file> or postgres://user@host/db; got "${redactUrl(url)}"`,
  );
}

/** The SQLite file these options name, or null for a database server (PostgreSQL). */
export async function sqliteFile(opts: StoreOptions): Promise<string | null> {
  if (backendOf(opts.databaseUrl) !== 'sqlite') return null;
  const { sqliteFileOf } = await import('./sqlite/sqlite-store.ts');
  return sqliteFileOf(opts.databaseUrl, opts.dataDir);
}

/** A backup file that cannot be restored (not SQLite, not Tidings, damaged): the message says which. */
export { BackupFileError } from './backup-error.ts';

/**
 * Replaces the database with a backup made by Store.backup (SQLite). The current database is kept
 * beside it first; returns where. Call it with no store open on that database.
 */
export async function restoreBackup(file: string, opts: StoreOptions): Promise<{ keptAs: string | null }> {
  const target = await sqliteFile(opts);
  if (target === null)
    throw new StoreUnavailableError(
      'tidings restore works on SQLite databases; restore PostgreSQL with its own tools (pg_restore)',
    );
  const { restoreDatabase } = await import('./sqlite/maintenance.ts');
  return restoreDatabase(file, target);
}

/** Opens the configured backend and applies pending migrations. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  if (backendOf(opts.databaseUrl) === 'postgres') {
    const { openPostgresStore } = await postgresModule();
    return openPostgresStore(opts.databaseUrl.trim(), { queryTimeoutMs: opts.queryTimeoutMs });
  }
  const { openSqliteStore, sqliteFileOf } = await sqliteModule();
  return openSqliteStore(sqliteFileOf(opts.databaseUrl, opts.dataDir), opts.workload);
}

const postgresModule = () => import('./postgres/postgres-store.ts');
const sqliteModule = () => import('./sqlite/sqlite-store.ts');

/** Loads the module of the backend a database URL names, as openStore will (nothing is opened). */
export function loadStoreModule(databaseUrl: string): Promise<unknown> {
  return backendOf(databaseUrl) === 'postgres' ? postgresModule() : sqliteModule();
}
