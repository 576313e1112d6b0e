// The portable statement interface (../sql.ts) on PostgreSQL: each text translated once from the
// portable dialect (./sqlite-dialect.ts), then run as a named prepared statement over the pool
// (or the connection of the caller's transaction).
import type { Sql, SqlStatement } from '../sql.ts';
import type { PgDatabase } from './client.ts';
import { translate } from './sqlite-dialect.ts';

/** node:sqlite hands BLOBs back as Uint8Array and callers pass them so; pg sends Buffers as bytea. */
const toParam = (v: unknown) =>
  v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;

export class PgSql implements Sql {
  readonly dialect = 'postgres' as const;
  private readonly db: PgDatabase;
  private readonly cache = new Map<string, SqlStatement>();

  constructor(db: PgDatabase) {
    this.db = db;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  prepare(sql: string): SqlStatement {
    let s = this.cache.get(sql);
    if (!s) {
      const text = translate(sql);
      const db = this.db;
      s = {
        get: async (...params) => (await db.query(text, params.map(toParam))).rows[0],
        all: async (...params) => (await db.query(text, params.map(toParam))).rows,
        run: async (...params) => ({ changes: (await db.query(text, params.map(toParam))).rowCount ?? 0 }),
      };
      this.cache.set(sql, s);
    }
    return s;
  }
}
