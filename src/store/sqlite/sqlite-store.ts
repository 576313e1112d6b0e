// The SQLite store: one node:sqlite connection per process (WAL; other processes such as the CLI
// beside the server open their own), every repository over it, and async transactions (run by
// the statement executor, ./sql-executor.ts).
//
// The repositories run their statements synchronously and hand back settled promises.
import { SqliteChangeSignal } from './change-signal.ts';
import { SqliteRefreshClaimRepository } from './refresh-claims.ts';
import { isAbsolute, join, resolve } from 'node:path';
import { migrate, openConnection, optimizeDatabase, useConnectionMemory, OPTIMIZE_INTERVAL_MS, type Db } from './db.ts';
import { backupDatabase } from './maintenance.ts';
import type { Store, StoreWorkload } from '../open-store.ts';
import { PortableRepositories } from '../portable/repositories.ts';
import { AuthRowCache } from '../portable/auth-row-cache.ts';
import type { StoredToken } from '../../model/auth.ts';
import type { StoredApiKey } from '../../model/chat.ts';
import type { TestSql } from '../testing.ts';
import { SqliteFeedRepository } from './feeds.ts';
import { SqliteItemRepository } from './items.ts';
import { SqliteSubscriptionRepository } from './subscriptions.ts';
import { SqliteStreamRepository } from './streams.ts';
import { SqliteItemStateRepository } from './item-states.ts';
import { SqliteReaderLabelRepository } from './reader-labels.ts';
import { SqliteSearchIndex } from './search-index.ts';
import { SqliteSql } from './sql-executor.ts';
import { SqliteLimitCounters } from './limit-counters.ts';
import { StoreUnavailableError } from '../errors.ts';

/** The database file a URL names: '' = tidings.db in the data folder, sqlite:<path> = that file. */
export function sqliteFileOf(databaseUrl: string, dataDir: string): string {
  const url = databaseUrl.trim();
  if (!url) return join(dataDir, 'tidings.db');
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  return path === ':memory:' || isAbsolute(path) ? path : resolve(path);
}

export class SqliteStore extends PortableRepositories implements Store {
  readonly backend = 'sqlite' as const;
  readonly location: string;
  readonly migrationsApplied: readonly string[];
  /** The connection, for the store's own tools (db copy, tests' raw SQL); never for domains. */
  readonly db: Db;
  readonly feeds;
  readonly items;
  readonly subscriptions;
  readonly refreshClaims;
  readonly streams;
  readonly itemStates;
  readonly readerLabels;
  readonly searchIndex;
  readonly changes: SqliteChangeSignal;
  readonly limitCounters: SqliteLimitCounters;
  /** What the connection was opened for (StoreWorkload), and what withWorkload set it to meanwhile. */
  private readonly workload: StoreWorkload;
  private workloadOverride: StoreWorkload | undefined;
  /** Statistics follow the data as it grows while the process runs (a first refresh of 1,000 feeds). */
  private readonly optimizeTimer: NodeJS.Timeout;

  /** Statements of the portable repositories, and the transactions of the whole store. */
  declare protected readonly sql: SqliteSql;

  constructor(db: Db, location: string, migrationsApplied: readonly string[], workload: StoreWorkload = 'serve') {
    const changes = new SqliteChangeSignal(db);
    // Token and chat API key rows kept for authentication (portable/auth-row-cache.ts): this
    // process's revocations forget them themselves, another process's commit (any) drops them at
    // the next event-loop turn. One pragma a turn instead of the row's statement: 0.01-0.02 ms of a
    // Reader call that comes alone, more of one that follows another (BENCHMARKS.md, "The lone
    // Reader call"); every chat answer authenticates too.
    // Chat usage rows (one per served answer) and the rate-limit counters leave the change signal
    // put: nothing caches them, and counted, each answer made the next one read again what the
    // search keeps (the user's subscriptions, the index counters).
    super(new SqliteSql(db), {
      tokenRows: new AuthRowCache<StoredToken>(() => changes.authGeneration()),
      apiKeyRows: new AuthRowCache<StoredApiKey>(() => changes.authGeneration()),
      quietWrite: (write) => changes.quietWrite(write),
    });
    this.db = db;
    this.workload = workload;
    this.changes = changes;
    this.limitCounters = new SqliteLimitCounters(db, changes);
    this.location = location;
    this.migrationsApplied = migrationsApplied;
    this.feeds = new SqliteFeedRepository(db);
    this.items = new SqliteItemRepository(db);
    this.subscriptions = new SqliteSubscriptionRepository(db);
    this.refreshClaims = new SqliteRefreshClaimRepository(db);
    this.streams = new SqliteStreamRepository(db);
    this.itemStates = new SqliteItemStateRepository(db);
    this.readerLabels = new SqliteReaderLabelRepository(db);
    this.searchIndex = new SqliteSearchIndex(db, this.changes);
    this.optimizeTimer = setInterval(() => {
      if (!db.isTransaction) optimizeDatabase(db, 'periodic');
    }, OPTIMIZE_INTERVAL_MS).unref();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.sql.transaction(fn);
  }

  async withWorkload<T>(workload: StoreWorkload, fn: () => Promise<T>): Promise<T> {
    if (this.workloadOverride !== undefined || workload === this.workload) return fn();
    this.workloadOverride = workload;
    useConnectionMemory(this.db, workload);
    try {
      return await fn();
    } finally {
      this.workloadOverride = undefined;
      if (this.db.isOpen) useConnectionMemory(this.db, this.workload);
    }
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
    await this.sql.idle();
    if (this.db.isOpen) {
      optimizeDatabase(this.db, 'close');
      this.db.close();
    }
  }
}

export async function openSqliteStore(file: string, workload: StoreWorkload = 'serve'): Promise<SqliteStore> {
  const db = openConnection(file, workload);
  const applied = migrate(db);
  optimizeDatabase(db, 'open');
  return new SqliteStore(db, file, applied, workload);
}
