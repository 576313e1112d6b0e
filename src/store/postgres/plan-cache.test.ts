// Prepared statements on PostgreSQL are planned once per connection (src/store/postgres/client.ts):
// the pool's connections run with plan_cache_mode = force_generic_plan, which a URL's own options
// override. Runs with TIDINGS_TEST_DATABASE_URL (.ci/run's second pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_DATABASE_URL, freshPostgresDatabase } from '../../../test/helpers.ts';
import { PgDatabase } from './client.ts';

const skip = TEST_DATABASE_URL ? false : 'skipped on SQLite: a PostgreSQL setting (set TIDINGS_TEST_DATABASE_URL)';

test('a repeated statement with a LIMIT parameter is planned once, not at every execution', { skip }, async (t) => {
  const db = new PgDatabase(freshPostgresDatabase(), { max: 1 });
  t.after(() => db.close());
  await db.arrays('CREATE TABLE pages (id bigint PRIMARY KEY, at bigint NOT NULL)', []);
  await db.arrays('INSERT INTO pages SELECT g, g * 10 FROM generate_series(1, 5000) g', []);
  await db.arrays('ANALYZE pages', []);
  const page = 'SELECT id FROM pages WHERE at < $1 ORDER BY at DESC LIMIT $2';
  for (let i = 0; i < 12; i++) assert.equal((await db.arrays(page, [40_000 - i, 20])).length, 20);
  // One connection (max: 1): the statement's counters are this session's.
  const [row] = await db.arrays<[string, number, number]>(
    "SELECT current_setting('plan_cache_mode'), generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1",
    [page],
  );
  assert.deepEqual(row, ['force_generic_plan', 12, 0]);
});

test("a connection URL's own plan_cache_mode wins over the default", { skip }, async (t) => {
  const url = freshPostgresDatabase();
  const db = new PgDatabase(`${url}${url.includes('?') ? '&' : '?'}options=-c%20plan_cache_mode%3Dauto`, { max: 1 });
  t.after(() => db.close());
  assert.deepEqual(await db.arrays("SELECT current_setting('plan_cache_mode')", []), [['auto']]);
});
