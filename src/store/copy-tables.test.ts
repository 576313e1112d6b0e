// `tidings db copy` moves the tables it lists: a table a migration adds and nobody lists would be
// left behind silently. Every table of a freshly migrated database (SQLite, or PostgreSQL on the
// suite's PostgreSQL pass) must be copied or left out for a stated reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../server/create-app.ts';
import { loadConfig } from '../config/config.ts';
import { TEST_DATABASE_URL, tempDataDir } from '../../test/helpers.ts';
import { testSql } from './testing.ts';
import { COPY_TABLES, NOT_COPIED, STATE_TABLES } from './copy.ts';

test('every table of a migrated database is copied by `db copy` or left out for a stated reason', async (t) => {
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-copy-tables-'), logLevel: 'silent' } }),
  );
  t.after(async () => app.close());
  const tables = (
    await testSql(app)
      .prepare(
        TEST_DATABASE_URL
          ? 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()'
          : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      )
      .all<{ name: string }>()
  ).map((r) => r.name);
  assert.ok(tables.includes('items') && tables.length > 30, tables.join(', '));
  const accounted = new Set([...COPY_TABLES.map((c) => c.table), ...STATE_TABLES, ...Object.keys(NOT_COPIED)]);
  assert.deepEqual(
    tables.filter((name) => !accounted.has(name)).sort(),
    [],
    'tables neither copied nor listed in NOT_COPIED (src/store/copy.ts)',
  );
});
