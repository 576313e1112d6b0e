// The portable dialect (../sql.ts) made PostgreSQL: the one place the differences between the
// backends' SQL are handled for the repositories written once (../portable/). It covers what
// the portable dialect allows: `?`/`?N` parameters, json_each over a bound JSON array or a JSON
// column, group_concat, INSERT OR IGNORE, camelCase aliases (PostgreSQL folds unquoted names),
// unixepoch('subsec') (the database's clock).

export function translate(sql: string): string {
  let out = sql;
  // json_each over a JSON array: its `value` as text (callers cast where they compare with ids).
  out = out.replace(
    /SELECT value FROM json_each\(([^()]*)\)/g,
    'SELECT value::bigint FROM json_array_elements_text(($1)::json) AS j(value)',
  );
  out = out.replace(/FROM json_each\(([^()]*)\)/g, 'FROM json_array_elements_text(($1)::json) AS j(value)');
  // The database's clock (leases compared by several machines): one value for the whole statement.
  out = out.replace(/unixepoch\('subsec'\)/g, 'extract(epoch FROM statement_timestamp())');
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
