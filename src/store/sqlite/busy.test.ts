// Another process holding SQLite's write lock past busy_timeout (5 s) turns into a 503-able
// StoreUnavailableError (retry later), not an internal error; writers wait for it until then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from './sqlite-store.ts';
import { openConnection } from './db.ts';
import { StoreUnavailableError } from '../errors.ts';

test('a write lock held by another connection past busy_timeout gives StoreUnavailableError (503)', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'tidings-busy-')), 'tidings.db');
  const store = await openSqliteStore(file);
  const other = openConnection(file);
  try {
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    await assert.rejects(
      store.transaction(async () => {}),
      (e: unknown) => e instanceof StoreUnavailableError && e.statusCode === 503 && /locked/.test(e.message),
    );
    assert.ok(Date.now() - started >= 4000, 'it waited for the lock first');
    other.exec('ROLLBACK');
    await store.transaction(async () => {});
  } finally {
    other.close();
    await store.close();
  }
});
