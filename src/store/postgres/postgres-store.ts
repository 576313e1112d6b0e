// The PostgreSQL store: a pooled connection (./client.ts), every repository over it, migrations
// in the postgres dialect, and the checks that turn a bad start into one clear line (server
// unreachable, too old, URL wrong) naming TIDINGS_DATABASE_URL without its password.
import { PgChangeSignal } from './change-signal.ts';
import { PgRefreshClaimRepository } from './refresh-claims.ts';
import type { Store, StoreWorkload } from '../open-store.ts';
import { PortableRepositories } from '../portable/repositories.ts';
import { AuthRowCache } from '../portable/auth-row-cache.ts';
import { StoreUnavailableError, redactUrl } from '../errors.ts';
import type { TestSql } from '../testing.ts';
import { MIGRATIONS, type Migration } from '../migrations.ts';
import { PgDatabase } from './client.ts';
import type { StoredToken } from '../../model/auth.ts';
import type { StoredApiKey } from '../../model/chat.ts';
import { PgFeedRepository, PgItemRepository, PgSubscriptionRepository } from './feeds.ts';
import { PgItemStateRepository, PgReaderLabelRepository, PgStreamRepository } from './reader.ts';
import { PgSearchIndex } from './search-index.ts';
import { PgSql } from './sql-executor.ts';
import { PgLimitCounters } from './limit-counters.ts';

/**
 * Oldest server accepted: the schema uses statement triggers with transition tables (10),
 * EXECUTE FUNCTION (11) and generated identity columns; 13 is the oldest release still supported
 * by the PostgreSQL project.
 */
export const MIN_SERVER_VERSION = 130000;

/** Session-level advisory lock held while migrating: two processes starting at once take turns. */
const MIGRATION_LOCK = 0x7469_6d67; // 'timg'

const PING_TIMEOUT_MS = 2000;

export class PostgresStore extends PortableRepositories implements Store {
  readonly backend = 'postgres' as const;
  readonly location: string;
  migrationsApplied: readonly string[] = [];
  readonly db: PgDatabase;
  readonly feeds;
  readonly items;
  readonly subscriptions;
  readonly refreshClaims;
  readonly streams;
  readonly itemStates;
  readonly readerLabels;
  readonly searchIndex;
  readonly changes: PgChangeSignal;
  readonly limitCounters: PgLimitCounters;

  constructor(db: PgDatabase) {
    const changes = new PgChangeSignal(db);
    // Rows read to authenticate requests, reused briefly (portable/auth-row-cache.ts,
    // AUTH_ROW_CACHE_MS) and dropped when another process revokes (migrations 095 and 135 notify).
    const tokenRows = new AuthRowCache<StoredToken>(() => changes.authGeneration());
    const apiKeyRows = new AuthRowCache<StoredApiKey>(() => changes.authGeneration());
    super(new PgSql(db), { tokenRows, apiKeyRows });
    this.db = db;
    this.changes = changes;
    this.limitCounters = new PgLimitCounters(db);
    this.location = redactUrl(db.url);
    this.feeds = new PgFeedRepository(db);
    this.items = new PgItemRepository(db);
    this.subscriptions = new PgSubscriptionRepository(db);
    this.refreshClaims = new PgRefreshClaimRepository(db);
    this.streams = new PgStreamRepository(db);
    this.itemStates = new PgItemStateRepository(db);
    this.readerLabels = new PgReaderLabelRepository(db);
    this.searchIndex = new PgSearchIndex(db, this.changes);
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Nothing to change: the workload only sets SQLite's memory (open-store.ts). */
  withWorkload<T>(_workload: StoreWorkload, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** SELECT 1 within PING_TIMEOUT_MS: a pool that waits for a connection counts as unreachable. */
  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StoreUnavailableError(
              `the database did not answer within ${PING_TIMEOUT_MS} ms (TIDINGS_DATABASE_URL=${this.location})`,
            ),
          ),
        PING_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.db.query('SELECT 1'), timeout]);
    } catch (e) {
      throw this.db.mapError(e);
    } finally {
      clearTimeout(timer);
    }
  }

  async backup(): Promise<void> {
    throw new StoreUnavailableError(
      `tidings backup copies SQLite databases; back up PostgreSQL (${this.location}) with its own tools: pg_dump, or continuous archiving`,
    );
  }

  /** Applies every migration not yet recorded, each in its own transaction (PostgreSQL's DDL is transactional). */
  async migrate(migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
    const client = await this.db.pool.connect().catch((e: unknown) => {
      throw this.db.mapError(e);
    });
    const ran: string[] = [];
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
      );
      const applied = new Set(
        (await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id),
      );
      for (const m of migrations) {
        if (applied.has(m.id)) continue;
        try {
          await client.query('BEGIN');
          await client.query(m.postgres);
          await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [
            m.id,
            Math.floor(Date.now() / 1000),
          ]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(
            `migration ${m.id} failed and was rolled back (the database is as it was before it): ${(e as Error).message}`,
            { cause: e },
          );
        }
        ran.push(m.id);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    this.migrationsApplied = ran;
    return ran;
  }

  /** Raw SQL for tests (src/store/testing.ts): `?` placeholders become $1, $2 … */
  raw(): TestSql {
    const db = this.db;
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    return {
      prepare(sql) {
        const text = numbered(sql);
        return {
          async run(...params) {
            const r = await db.query(text, params);
            const first = r.rows[0] as { id?: number } | undefined;
            return { changes: r.rowCount ?? 0, lastInsertRowid: Number(first?.id ?? 0) };
          },
          async get(...params) {
            return (await db.query(text, params)).rows[0] as never;
          },
          async all(...params) {
            return (await db.query(text, params)).rows as never;
          },
        };
      },
      async exec(sql) {
        await db.exec(sql);
      },
    };
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.db.close();
  }
}

/** Refuses a server older than MIN_SERVER_VERSION (server_version_num) with a message saying what is needed. */
export function checkServerVersion(version: number, url: string): void {
  if (version < MIN_SERVER_VERSION) {
    throw new StoreUnavailableError(
      `the PostgreSQL server at TIDINGS_DATABASE_URL=${redactUrl(url)} is version ${Math.floor(version / 10000)}; Tidings needs PostgreSQL ${MIN_SERVER_VERSION / 10000} or newer`,
    );
  }
}

/** Connects, checks the server, applies pending migrations. */
export async function openPostgresStore(
  url: string,
  opts: { migrate?: boolean; queryTimeoutMs?: number } = {},
): Promise<PostgresStore> {
  const db = new PgDatabase(url, { queryTimeoutMs: opts.queryTimeoutMs });
  const store = new PostgresStore(db);
  try {
    let version: number;
    try {
      version = Number((await db.row<{ v: string }>("SELECT current_setting('server_version_num') AS v"))!.v);
    } catch (e) {
      const mapped = db.mapError(e);
      if (mapped instanceof StoreUnavailableError) throw mapped;
      throw new StoreUnavailableError(
        `cannot use the database at TIDINGS_DATABASE_URL=${redactUrl(url)}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    checkServerVersion(version, url);
    if (opts.migrate !== false) await store.migrate();
    return store;
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
