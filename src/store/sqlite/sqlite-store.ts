// The SQLite store: one node:sqlite connection per process (WAL; other processes such as the CLI
// beside the server open their own), every repository over it, and async transactions.
//
// The repositories run their statements synchronously and hand back settled promises, so a
// transaction whose callback awaits only storage calls runs start to end within one event-loop
// turn: no other request's statements can slip into it. Transactions are still queued (a second
// one waits for the first to commit) in case a callback does wait on something else.
import { SqliteChangeSignal } from './change-signal.ts';
import { SqliteRefreshClaimRepository } from './refresh-claims.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { isAbsolute, join, resolve } from 'node:path';
import { migrate, openConnection, optimizeDatabase, OPTIMIZE_INTERVAL_MS, type Db } from './db.ts';
import { backupDatabase } from './maintenance.ts';
import type { Store } from '../open-store.ts';
import { StoreUnavailableError } from '../errors.ts';
import type { TestSql } from '../testing.ts';
import { SqliteUserRepository } from './users.ts';
import { SqliteTokenRepository, SqliteAuthSecretRepository } from './tokens.ts';
import { SqliteOAuthClientRepository, SqliteAuthorizationCodeRepository } from './oauth.ts';
import { SqliteFeedRepository } from './feeds.ts';
import { SqliteItemRepository } from './items.ts';
import { SqliteSubscriptionRepository } from './subscriptions.ts';
import { SqliteStreamRepository } from './streams.ts';
import { SqliteItemStateRepository } from './item-states.ts';
import { SqliteReaderLabelRepository } from './reader-labels.ts';
import { SqliteSearchIndex } from './search-index.ts';
import { SqliteApiKeyRepository } from './api-keys.ts';
import { SqliteChatUsageRepository } from './chat-usage.ts';
import { SqliteAsyncJobRepository } from './chat-jobs.ts';
import { SqliteAccessRequestRepository } from './access-requests.ts';
import { SqliteFeverRepository } from './fever.ts';
import { SqliteFeedIconRepository } from './feed-icons.ts';
import { SqliteFullTextRepository } from './full-text.ts';
import { SqliteWebSubRepository } from './websub.ts';
import { SqliteFilterRuleRepository } from './filter-rules.ts';
import { SqliteWebhookRepository } from './webhooks.ts';
import { SqliteLimitCounters } from './limit-counters.ts';
import { SqliteConversationRepository, SqliteWebAccountRepository, SqliteWebSessionRepository } from './web.ts';

/** The database file a URL names: '' = tidings.db in the data folder, sqlite:<path> = that file. */
export function sqliteFileOf(databaseUrl: string, dataDir: string): string {
  const url = databaseUrl.trim();
  if (!url) return join(dataDir, 'tidings.db');
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  return path === ':memory:' || isAbsolute(path) ? path : resolve(path);
}

/**
 * Another process (a worker of `serve --workers N`, the CLI) held the write lock longer than
 * busy_timeout (5 s): the request is answered 503 with Retry-After, to be retried, not 500.
 */
function busyAsUnavailable(e: unknown, location: string): unknown {
  const code = (e as { errcode?: number }).errcode;
  if (code === undefined || (code & 0xff) !== 5) return e; // SQLITE_BUSY and its extended codes
  return new StoreUnavailableError(
    `the database ${location} stayed locked by another process for 5 s; retry in a few seconds`,
    { cause: e },
  );
}

/** Which store a transaction callback runs in (so nested calls join it). */
const currentTransaction = new AsyncLocalStorage<SqliteStore>();

export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  readonly location: string;
  readonly migrationsApplied: readonly string[];
  /** The connection, for the store's own tools (db copy, tests' raw SQL); never for domains. */
  readonly db: Db;
  readonly users;
  readonly tokens;
  readonly oauthClients;
  readonly authCodes;
  readonly authSecrets;
  readonly feeds;
  readonly items;
  readonly subscriptions;
  readonly refreshClaims;
  readonly streams;
  readonly itemStates;
  readonly readerLabels;
  readonly searchIndex;
  readonly apiKeys;
  readonly chatUsage;
  readonly asyncJobs;
  readonly accessRequests;
  readonly fever;
  readonly feedIcons;
  readonly fullText;
  readonly webSub;
  readonly filterRules;
  readonly webhooks;
  readonly webSessions;
  readonly webAccounts;
  readonly conversations;
  readonly limitCounters;
  readonly changes: SqliteChangeSignal;
  /** Settles when the last transaction started has finished. */
  private current: Promise<unknown> = Promise.resolve();
  /** Statistics follow the data as it grows while the process runs (a first refresh of 1,000 feeds). */
  private readonly optimizeTimer: NodeJS.Timeout;

  constructor(db: Db, location: string, migrationsApplied: readonly string[]) {
    this.db = db;
    this.changes = new SqliteChangeSignal(db);
    this.location = location;
    this.migrationsApplied = migrationsApplied;
    this.users = new SqliteUserRepository(db);
    this.tokens = new SqliteTokenRepository(db);
    this.oauthClients = new SqliteOAuthClientRepository(db);
    this.authCodes = new SqliteAuthorizationCodeRepository(db);
    this.authSecrets = new SqliteAuthSecretRepository(db);
    this.feeds = new SqliteFeedRepository(db);
    this.items = new SqliteItemRepository(db);
    this.subscriptions = new SqliteSubscriptionRepository(db);
    this.refreshClaims = new SqliteRefreshClaimRepository(db);
    this.streams = new SqliteStreamRepository(db);
    this.itemStates = new SqliteItemStateRepository(db);
    this.readerLabels = new SqliteReaderLabelRepository(db);
    this.searchIndex = new SqliteSearchIndex(db, this.changes);
    this.apiKeys = new SqliteApiKeyRepository(db);
    this.chatUsage = new SqliteChatUsageRepository(db);
    this.asyncJobs = new SqliteAsyncJobRepository(db);
    this.accessRequests = new SqliteAccessRequestRepository(db);
    this.fever = new SqliteFeverRepository(db);
    this.feedIcons = new SqliteFeedIconRepository(db);
    this.fullText = new SqliteFullTextRepository(db);
    this.webSub = new SqliteWebSubRepository(db);
    this.filterRules = new SqliteFilterRuleRepository(db);
    this.webhooks = new SqliteWebhookRepository(db);
    this.webSessions = new SqliteWebSessionRepository(db);
    this.webAccounts = new SqliteWebAccountRepository(db);
    this.conversations = new SqliteConversationRepository(db);
    this.limitCounters = new SqliteLimitCounters(db);
    this.optimizeTimer = setInterval(() => {
      if (!db.isTransaction) optimizeDatabase(db, 'periodic');
    }, OPTIMIZE_INTERVAL_MS).unref();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (currentTransaction.getStore() === this) return fn();
    // Uncontended (the usual case): start at once, so the body runs in this event-loop turn.
    return this.db.isTransaction ? this.startAfterCurrent(fn) : this.start(fn);
  }

  private start<T>(fn: () => Promise<T>): Promise<T> {
    const result = currentTransaction.run(this, async () => {
      try {
        this.db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        throw busyAsUnavailable(e, this.location);
      }
      try {
        const out = await fn();
        this.db.exec('COMMIT');
        return out;
      } catch (e) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    });
    this.current = result.catch(() => undefined);
    return result;
  }

  private async startAfterCurrent<T>(fn: () => Promise<T>): Promise<T> {
    // Checked and started in one synchronous step after each wait: nobody slips in between.
    while (this.db.isTransaction) await this.current;
    return this.start(fn);
  }

  async ping(): Promise<void> {
    try {
      this.db.prepare('SELECT count(*) FROM schema_migrations').get();
    } catch (e) {
      throw new StoreUnavailableError(`the database ${this.location} cannot be read: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  async backup(file: string): Promise<void> {
    await backupDatabase(this.db, file);
  }

  /** Raw SQL for tests (src/store/testing.ts). */
  raw(): TestSql {
    const db = this.db;
    return {
      prepare(sql) {
        const st = db.prepare(sql);
        return {
          async run(...params) {
            const r = st.run(...(params as never[]));
            return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
          },
          async get(...params) {
            return st.get(...(params as never[])) as never;
          },
          async all(...params) {
            return st.all(...(params as never[])) as never;
          },
        };
      },
      async exec(sql) {
        db.exec(sql);
      },
    };
  }

  async close(): Promise<void> {
    clearInterval(this.optimizeTimer);
    while (this.db.isOpen && this.db.isTransaction) await this.current;
    if (this.db.isOpen) {
      optimizeDatabase(this.db, 'close');
      this.db.close();
    }
  }
}

export async function openSqliteStore(file: string): Promise<SqliteStore> {
  const db = openConnection(file);
  const applied = migrate(db);
  optimizeDatabase(db, 'open');
  return new SqliteStore(db, file, applied);
}
