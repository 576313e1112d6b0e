// The memory settings a SQLite connection opens with follow the process's workload: the server's
// (page cache 32 MB, no memory map: a mapped file stays in the server's RSS) by default, and for
// a one-shot refresh process (`batch`) a 16 MB cache, which kept a 1,000-feed first refresh under its 350 MB budget
// (BENCHMARKS.md, Memory). The CLI side (`tidings refresh` asks for `batch`) is in
// test/workload.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../open-store.ts';
import type { SqliteStore } from './sqlite-store.ts';

const pragmas = (store: SqliteStore) => ({
  cache: (store.db.prepare('PRAGMA cache_size').get() as { cache_size: number }).cache_size,
  mmap: (store.db.prepare('PRAGMA mmap_size').get() as { mmap_size: number }).mmap_size,
  checkpoint: (store.db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number })
    .wal_autocheckpoint,
});

test('SQLite opens with the serving settings by default and a smaller page cache and rarer WAL checkpoints for a batch workload, neither with a memory map', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-workload-'));
  const serve = (await openStore({ databaseUrl: '', dataDir })) as SqliteStore;
  try {
    assert.deepEqual(pragmas(serve), { cache: -32768, mmap: 0, checkpoint: 1000 });
  } finally {
    await serve.close();
  }
  const batch = (await openStore({ databaseUrl: '', dataDir, workload: 'batch' })) as SqliteStore;
  try {
    // Its WAL checkpoints (run by the committing thread, each ending with two fsyncs) 16x as far apart.
    assert.deepEqual(pragmas(batch), { cache: -16384, mmap: 0, checkpoint: 16384 });
    // Back to the serving settings (a server's large pass runs as a batch, then serves again).
    await batch.withWorkload('serve', async () => {
      assert.deepEqual(pragmas(batch), { cache: -32768, mmap: 0, checkpoint: 1000 });
    });
  } finally {
    await batch.close();
  }
});
