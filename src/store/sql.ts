// The statement interface both backends implement, for repositories written once (./portable/):
// SQL in one portable dialect, run by whichever backend the store opened. Repositories on hot
// paths that need a backend's own shapes (keyset pages, postings, statement triggers) stay
// written per backend in ./sqlite and ./postgres.
//
// The portable dialect is SQLite's, restricted to what PostgreSQL also accepts, with the few
// differences carried by the PostgreSQL executor's translation (postgres/sqlite-dialect.ts, the
// one place they are handled):
// - parameters `?` or `?N` (become $N);
// - `INSERT OR IGNORE INTO …` (becomes `… ON CONFLICT DO NOTHING`, before any RETURNING);
// - `json_each(?)` over a bound JSON array, `SELECT value FROM json_each(?)` (ids, as bigint);
// - `group_concat(x, ',')` (becomes string_agg);
// - camelCase aliases `AS feedId` (quoted, as PostgreSQL folds unquoted names; refer to such an
//   alias elsewhere in the statement as "feedId", which SQLite reads the same).
// Write the rest so both read it alike: 0/1 integers for flags (never TRUE/FALSE: the columns are
// integers on both), `CAST(? AS BIGINT)` where a parameter's type is not implied (`? IS NULL`),
// `CASE WHEN … THEN 1 ELSE 0 END` for a computed flag, a name on every derived table,
// `ON CONFLICT (…) DO UPDATE SET x = excluded.x` for upserts, RETURNING, times passed in as
// parameters (no now(), no strftime). Statements are prepared once per text (per connection on
// PostgreSQL) and reused.
//
// The one exception to times as parameters: a time that processes on several machines compare
// (a lease's expiry) is taken from the database's clock, as each machine's clock may be off.
// Write it `unixepoch('subsec')` (seconds, with a fraction; becomes
// `extract(epoch FROM statement_timestamp())`), in milliseconds `CAST(unixepoch('subsec') * 1000 AS BIGINT)`
// (DB_NOW_MS below). It is the same all through one statement on both.

export interface SqlStatement {
  get(...params: unknown[]): Promise<unknown>;
  all(...params: unknown[]): Promise<unknown[]>;
  run(...params: unknown[]): Promise<{ changes: number }>;
}

export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  /** The statement of this portable SQL text (prepared on first use, then reused). */
  prepare(sql: string): SqlStatement;
  /** True inside store.transaction(fn) (a read there must see the row as it is now, never a kept copy). */
  readonly inTransaction: boolean;
  /** store.transaction: statements run inside fn take part in it; nested calls join. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** The database's clock in milliseconds since the epoch, in portable SQL (see above). */
export const DB_NOW_MS = "CAST(unixepoch('subsec') * 1000 AS BIGINT)";
