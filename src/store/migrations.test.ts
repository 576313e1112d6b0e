import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations.ts';
import { migrate, openConnection } from './sqlite/db.ts';
import { tempDataDir } from '../../test/helpers.ts';

const DIR = join(import.meta.dirname, 'migrations');

test('migrations: one file each, listed in increasing id order, ids unique', () => {
  const ids = MIGRATIONS.map((m) => m.id);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} must come before ${ids[i]}`);
  assert.equal(new Set(ids.map((id) => id.slice(0, 3))).size, ids.length, 'no two migrations share a number');
  const files = readdirSync(DIR)
    .filter((f) => /^\d{3}_.*\.ts$/.test(f) && !f.endsWith('.test.ts'))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  assert.deepEqual(files, ids, 'every file in src/store/migrations/ is in the list, named by its id');
  for (const m of MIGRATIONS) assert.ok(m.sqlite.trim() && m.postgres.trim(), `${m.id} has SQL for both backends`);
});

test('a failed migration leaves the SQLite database as it was, and says which one', () => {
  const db = openConnection(join(tempDataDir('tidings-migrate-'), 'x.db'));
  try {
    migrate(db);
    const broken = [
      ...MIGRATIONS,
      {
        id: '999_broken',
        sqlite: 'CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);',
        postgres: '-',
      },
    ];
    assert.throws(() => migrate(db, broken), /migration 999_broken failed and was rolled back.*no such table/);
    assert.equal(
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()!.n,
      0,
      'its first statement was undone',
    );
    assert.equal(db.prepare("SELECT count(*) AS n FROM schema_migrations WHERE id = '999_broken'").get()!.n, 0);
    assert.deepEqual(migrate(db), [], 'the good ones stay applied');
  } finally {
    db.close();
  }
});

test('a database that recorded 030-033 before 025-027 (the old list order) is left as it is', () => {
  const db = openConnection(join(tempDataDir('tidings-migrate-'), 'old.db'));
  try {
    const byId = new Map(MIGRATIONS.map((m) => [m.id, m]));
    const oldOrder = [
      '001_core',
      '010_feeds_fetch_state',
      '020_auth_tokens_oauth',
      '030_search_passages',
      '031_search_articles',
      '032_search_drop_passage_fts',
      '033_search_postings',
      '025_reader_stream_indexes',
      '026_reader_catalog_version',
      '027_reader_items_version',
      '040_chat_api',
    ];
    assert.deepEqual(
      migrate(
        db,
        oldOrder.map((id) => byId.get(id)!),
      ),
      oldOrder,
    );
    // Only the migrations added after that order are applied, nothing twice.
    const newer = MIGRATIONS.map((m) => m.id).filter((id) => !oldOrder.includes(id));
    assert.deepEqual(migrate(db), newer, 'nothing applied twice');
    // A database stopped half way through the old order gets the rest.
    const half = openConnection(join(tempDataDir('tidings-migrate-'), 'half.db'));
    migrate(
      half,
      oldOrder.slice(0, 7).map((id) => byId.get(id)!),
    );
    assert.deepEqual(migrate(half), [
      '025_reader_stream_indexes',
      '026_reader_catalog_version',
      '027_reader_items_version',
      '040_chat_api',
      ...newer,
    ]);
    half.close();
  } finally {
    db.close();
  }
});
