// Statements written in SQLite's dialect, run on PostgreSQL: the repositories that came with the
// reader features (Fever, icons, full text, WebSub, rules, webhooks, web app) reuse their SQLite
// SQL through this translation rather than a second hand-written copy. It covers what those
// statements use: `?`/`?N` parameters, json_each over a bound JSON array or a JSON column,
// group_concat, INSERT OR IGNORE, camelCase aliases (PostgreSQL folds unquoted names).
import type { PgDatabase } from './client.ts';

export function translate(sql: string): string {
  let out = sql;
  // json_each over a JSON array: its `value` as text (callers cast where they compare with ids).
  out = out.replace(
    /SELECT value FROM json_each\(([^()]*)\)/g,
    'SELECT value::bigint FROM json_array_elements_text(($1)::json) AS j(value)',
  );
  out = out.replace(/FROM json_each\(([^()]*)\)/g, 'FROM json_array_elements_text(($1)::json) AS j(value)');
  out = out.replace(/group_concat\(([^,()]+), *','\)/g, "string_agg(($1)::text, ',')");
  if (/INSERT OR IGNORE INTO/.test(out)) {
    out = out.replace(/INSERT OR IGNORE INTO/, 'INSERT INTO');
    out = /\bRETURNING\b/.test(out)
      ? out.replace(/\bRETURNING\b/, 'ON CONFLICT DO NOTHING RETURNING')
      : `${out} ON CONFLICT DO NOTHING`;
  }
  out = out.replace(/\bAS ([a-z]+[A-Z][A-Za-z0-9]*)\b/g, 'AS "$1"');
  if (/\?\d/.test(out)) out = out.replace(/\?(\d+)/g, '$$$1');
  else {
    let n = 0;
    out = out.replace(/\?/g, () => `$${++n}`);
  }
  return out;
}

const toParam = (v: unknown) =>
  v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;

/** node:sqlite's statement cache shape, asynchronous, over a PostgreSQL pool. */
export class PgStatements {
  private readonly db: PgDatabase;
  private readonly cache = new Map<string, string>();
  constructor(db: PgDatabase) {
    this.db = db;
  }

  get(sql: string) {
    let text = this.cache.get(sql);
    if (text === undefined) {
      text = translate(sql);
      this.cache.set(sql, text);
    }
    const db = this.db,
      q = text;
    return {
      async get(...params: unknown[]): Promise<unknown> {
        return (await db.query(q, params.map(toParam))).rows[0];
      },
      async all(...params: unknown[]): Promise<unknown[]> {
        return (await db.query(q, params.map(toParam))).rows;
      },
      async run(...params: unknown[]): Promise<{ changes: number }> {
        return { changes: (await db.query(q, params.map(toParam))).rowCount ?? 0 };
      },
    };
  }
}
