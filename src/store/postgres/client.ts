// The PostgreSQL connection layer every repository of ./ uses: one pg.Pool per store, named
// prepared statements (prepared once per connection, then only bound and executed), and routing
// of each query to the connection of the transaction the caller is in (AsyncLocalStorage), so
// repositories called inside store.transaction(fn) take part in it without being handed a client.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { StoreUnavailableError, redactUrl } from '../errors.ts';
import { TABLES_NO_CACHE_READS } from './change-signal.ts';

export type Row = Record<string, unknown>;

/** int8 (counts, ids, microsecond times) as numbers: every value we store is below 2^53. */
function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(20, (v: string) => Number(v));
  types.setTypeParser(1700, (v: string) => Number(v)); // numeric: sum() of integers
  return types;
}

/** SQLSTATE classes and socket errors that mean "the server is gone", not "the query is wrong". */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  if (!err || typeof err !== 'object') return false;
  const code = err.code ?? '';
  return (
    /^(08|57P0[1-3]|53300)/.test(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'ENOENT', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(
      code,
    ) ||
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(
      err.message ?? '',
    )
  );
}

/** pg reads query_timeout from a query's config (its types leave it out). */
type Timed = { query_timeout?: number };

interface TxContext {
  db: PgDatabase;
  client: pg.PoolClient;
  /** A statement of this transaction wrote something caches depend on: its commit moves the signal. */
  movedCaches: boolean;
}

/** The table an INSERT, UPDATE or DELETE writes (none for anything else: a CTE may write several). */
const WRITTEN_TABLE = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i;
const currentTransaction = new AsyncLocalStorage<TxContext>();

/**
 * Attempts at a statement or transaction that lost a deadlock (40P01) or a serialization conflict
 * (40001): five, with waits that double, where transactions had three with flat waits; on a
 * loaded machine the same writers are still in flight after a flat 5-25 ms.
 */
const CONFLICT_ATTEMPTS = 5;

function isConflict(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === '40P01' || code === '40001';
}

/** 5-20 ms, doubling each attempt (to 80-320 ms before the fifth), jittered so the losers do not meet again. */
function conflictBackoff(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, (5 + Math.random() * 15) * 2 ** (attempt - 1)));
}

export class PgDatabase {
  readonly pool: pg.Pool;
  readonly url: string;
  private readonly names = new Map<string, string>();
  /**
   * Counts this process's writes that may change what processes cache (statements that wrote, and
   * the commits of transactions that did): the change signal reads it. Writes to the tables no
   * cache depends on (TABLES_NO_CACHE_READS: the rate-limit counters and chat usage every answer
   * writes) are not counted, so an answer does not make the next one read the search state again.
   */
  localWrites = 0;
  private readonly movesCachesBySql = new Map<string, boolean>();
  /**
   * Time limit of one statement without an answer (0: none). pg's query_timeout: past it the
   * query fails with "Query read timeout" (a StoreUnavailableError here) and pg-pool drops the
   * connection it ran on, so a hung server (SIGSTOP, a partition: the socket stays open and
   * silent, TCP keep-alive sees nothing) costs a request this long, not forever. Not applied to
   * exec() (migrations, maintenance), which may rightly run for minutes.
   */
  private readonly queryTimeoutMs: number | undefined;

  constructor(url: string, opts: { max?: number; queryTimeoutMs?: number } = {}) {
    this.url = url;
    this.queryTimeoutMs = opts.queryTimeoutMs || undefined;
    this.pool = new pg.Pool({
      connectionString: url,
      // The feed scheduler runs up to 32 refreshes at once; each holds a connection only while it
      // stores (fetching happens outside transactions), so 20 rarely makes one wait.
      max: opts.max ?? 20,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: Math.min(10_000, opts.queryTimeoutMs || 10_000),
      types: typeParsers(),
      application_name: 'tidings',
      // Each statement is prepared once per connection and reused (below), so it should be planned
      // once. Left to choose (plan_cache_mode = auto), PostgreSQL re-plans at every execution any
      // statement whose generic plan looks dearer than a custom one, which a LIMIT parameter always
      // makes it look (a LIMIT $n is costed as a tenth of the rows): a 20-item Reader page spent
      // 0.6 ms planning for 0.08 ms of work, and PostgreSQL's CPU per page fell from 0.32 to 0.08 ms
      // with generic plans, no Reader call slower (BENCHMARKS.md). The statements are keyset scans
      // and key look-ups whose best plan does not turn on the values bound. A connection URL's own
      // ?options=-c%20plan_cache_mode%3Dauto wins over this (and over jit, below).
      // No JIT: a generic plan costed on statistics taken while a table was filling (a fresh
      // database, a first import) can pass jit_above_cost, and compiling took 22 ms of PostgreSQL CPU
      // at every execution of a statement that runs in 0.1 ms (the chat answer's passage read,
      // BENCHMARKS.md). Every statement here is a short key or keyset read or a batch write.
      options: '-c plan_cache_mode=force_generic_plan -c jit=off',
    });
    // An idle connection the server dropped (restart, failover) must not crash the process: the
    // pool discards it and the next query opens a new one.
    this.pool.on('error', () => {});
  }

  /** The statement name of a SQL text (stable: the same text is prepared once per connection). */
  private nameOf(sql: string): string {
    let n = this.names.get(sql);
    if (!n) {
      n = 't' + createHash('sha1').update(sql).digest('hex').slice(0, 20);
      this.names.set(sql, n);
    }
    return n;
  }

  private runner(): pg.Pool | pg.PoolClient {
    const tx = currentTransaction.getStore();
    return tx && tx.db === this ? tx.client : this.pool;
  }

  /** Whether a statement may move what caches depend on (anything but a write to TABLES_NO_CACHE_READS). */
  private movesCaches(sql: string): boolean {
    let moves = this.movesCachesBySql.get(sql);
    if (moves === undefined) {
      const table = WRITTEN_TABLE.exec(sql)?.[1]?.toLowerCase();
      moves = !(table && TABLES_NO_CACHE_READS.has(table));
      this.movesCachesBySql.set(sql, moves);
    }
    return moves;
  }

  private countWrite(command: string, sql: string): void {
    if (command === 'SELECT' || !this.movesCaches(sql)) return;
    this.localWrites++;
    const tx = currentTransaction.getStore();
    if (tx && tx.db === this) tx.movedCaches = true;
  }

  async query<T = Row>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T & Row>> {
    try {
      const q: pg.QueryConfig & Timed = {
        name: this.nameOf(sql),
        text: sql,
        values: params,
        query_timeout: this.queryTimeoutMs,
      };
      const r = await this.outsideConflicts(() => this.runner().query<T & Row>(q));
      this.countWrite(r.command, sql);
      return r;
    } catch (e) {
      throw this.mapError(e);
    }
  }

  /**
   * Runs one statement; outside a transaction, a deadlock or serialization failure runs it again
   * (CONFLICT_ATTEMPTS in all). Such a statement was rolled back whole, so running it again is
   * what its caller would do: a single edit-tag is one statement, and its counter trigger can lose
   * a deadlock to another user's write (src/store/postgres/unread-counter-locks.test.ts). Inside a transaction
   * the whole transaction is run again instead (transaction()).
   */
  private async outsideConflicts<R>(run: () => Promise<R>): Promise<R> {
    if (this.inTransaction) return run();
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (e) {
        if (attempt >= CONFLICT_ATTEMPTS || !isConflict(e)) throw e;
        await conflictBackoff(attempt);
      }
    }
  }

  async rows<T = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows as T[];
  }

  async row<T = Row>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0] as T | undefined;
  }

  /** Rows as arrays (no per-row object), for the hot paths that map columns by position. */
  async arrays<T extends unknown[]>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      const q: pg.QueryArrayConfig & Timed = {
        name: this.nameOf(sql) + 'a',
        text: sql,
        values: params,
        rowMode: 'array',
        query_timeout: this.queryTimeoutMs,
      };
      const r = await this.outsideConflicts(() => this.runner().query(q));
      this.countWrite(r.command, sql);
      return r.rows as T[];
    } catch (e) {
      throw this.mapError(e);
    }
  }

  async changes(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  /** Several statements in one round trip (no parameters): migrations and maintenance. */
  async exec(sql: string): Promise<void> {
    try {
      await this.runner().query(sql);
      this.localWrites++;
    } catch (e) {
      throw this.mapError(e);
    }
  }

  get inTransaction(): boolean {
    return currentTransaction.getStore()?.db === this;
  }

  /**
   * Runs fn in a transaction on one connection; nested calls join it. A deadlock or serialization
   * failure (two refreshes fanning out to the same users' counters in another order) rolls back
   * and runs fn again, CONFLICT_ATTEMPTS times in all: transaction bodies only touch the database.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(fn);
      } catch (e) {
        if (attempt >= CONFLICT_ATTEMPTS || !isConflict(e)) throw e;
        await conflictBackoff(attempt);
      }
    }
  }

  private async transactionOnce<T>(fn: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw this.mapError(e);
    }
    let broken = false;
    const timeout = this.queryTimeoutMs;
    try {
      await client.query({ text: 'BEGIN', query_timeout: timeout } as pg.QueryConfig & Timed);
      const tx: TxContext = { db: this, client, movedCaches: false };
      const out = await currentTransaction.run(tx, fn);
      await client.query({ text: 'COMMIT', query_timeout: timeout } as pg.QueryConfig & Timed);
      if (tx.movedCaches) this.localWrites++;
      return out;
    } catch (e) {
      try {
        await client.query({ text: 'ROLLBACK', query_timeout: timeout } as pg.QueryConfig & Timed);
      } catch {
        broken = true;
      }
      throw this.mapError(e);
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: close it rather than reuse it.
      client.release(broken);
    }
  }

  mapError(e: unknown): unknown {
    if (e instanceof StoreUnavailableError) return e;
    if (isConnectionError(e)) {
      const message = /Query read timeout/.test((e as Error).message ?? '')
        ? `no answer within ${this.queryTimeoutMs} ms (TIDINGS_DATABASE_TIMEOUT_MS)`
        : (e as Error).message || (e as { code?: string }).code;
      return new StoreUnavailableError(
        `the database is unreachable (TIDINGS_DATABASE_URL=${redactUrl(this.url)}): ${message}`,
        { cause: e },
      );
    }
    return e;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
