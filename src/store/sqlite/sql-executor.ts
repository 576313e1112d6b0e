// The portable statement interface (../sql.ts) on node:sqlite: prepared statements cached by text,
// run synchronously, results handed back as settled promises; and the store's async transactions.
//
// A transaction whose callback awaits only storage calls runs start to end within one event-loop
// turn (the statements answer at once): no other request's statements can slip into it.
// Transactions are still queued (a second one waits for the first to commit) in case a callback
// does wait on something else.
import { StoreUnavailableError } from '../errors.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql, SqlStatement } from '../sql.ts';
import type { Db } from './db.ts';

/** Which connection a transaction callback runs on (so nested calls join it). */
const currentTransaction = new AsyncLocalStorage<Db>();

/**
 * Another process (a worker of `serve --workers N`, the CLI) held the write lock longer than
 * busy_timeout (5 s): the request is answered 503 with Retry-After, to be retried, not 500.
 */
function busyAsUnavailable(e: unknown): unknown {
  const code = (e as { errcode?: number }).errcode;
  if (code === undefined || (code & 0xff) !== 5) return e; // SQLITE_BUSY and its extended codes
  return new StoreUnavailableError('the database stayed locked by another process for 5 s; retry in a few seconds', {
    cause: e,
  });
}

export class SqliteSql implements Sql {
  readonly dialect = 'sqlite' as const;
  private readonly db: Db;
  private readonly cache = new Map<string, SqlStatement>();
  /** Settles when the last transaction started has finished. */
  private current: Promise<unknown> = Promise.resolve();

  constructor(db: Db) {
    this.db = db;
  }

  prepare(sql: string): SqlStatement {
    let s = this.cache.get(sql);
    if (!s) {
      const st = this.db.prepare(sql);
      s = {
        get: async (...params) => st.get(...(params as never[])),
        all: async (...params) => st.all(...(params as never[])),
        run: async (...params) => ({ changes: Number(st.run(...(params as never[])).changes) }),
      };
      this.cache.set(sql, s);
    }
    return s;
  }

  get inTransaction(): boolean {
    return currentTransaction.getStore() === this.db;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn();
    // Uncontended (the usual case): start at once, so the body runs in this event-loop turn.
    return this.db.isTransaction ? this.startAfterCurrent(fn) : this.start(fn);
  }

  /** Waits for the transaction in progress, if any (before closing). */
  async idle(): Promise<void> {
    while (this.db.isOpen && this.db.isTransaction) await this.current;
  }

  private start<T>(fn: () => Promise<T>): Promise<T> {
    const result = currentTransaction.run(this.db, async () => {
      try {
        this.db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        throw busyAsUnavailable(e);
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
}
