// SQLite through Node's built-in driver (node:sqlite). Chosen over better-sqlite3 because it needs
// no native build (CI and fresh machines cannot download prebuilt binaries), ships SQLite 3.5x
// with FTS5, and has the same synchronous prepared-statement model. The PostgreSQL path later goes
// through the repository interfaces in ../repositories.ts, never through this handle.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration } from '../migrations.ts';
import type { StoreWorkload } from '../open-store.ts';

export type Db = DatabaseSync;

/** Opens (creating) the database file and applies pending migrations. */
export function openDatabase(file: string): Db {
  const db = openConnection(file);
  migrate(db);
  optimizeDatabase(db, 'open');
  return db;
}

/**
 * Keeps the query planner's statistics current, as SQLite recommends for applications
 * (https://sqlite.org/lang_analyze.html#autoanalyze): `PRAGMA optimize=0x10002` on open with an
 * analysis limit (a few ms; analyzes tables never analyzed or grown 25-fold), `PRAGMA optimize`
 * every hour in a long-running process and before closing. Without statistics, joins could pick
 * a plan that scans every item of a user (stream/items/contents took seconds at 100k items).
 * Statistics only speed things up: a busy database (another process writing) skips a round.
 */
export function optimizeDatabase(db: Db, when: 'open' | 'periodic' | 'close'): void {
  try {
    if (when === 'open') db.exec('PRAGMA analysis_limit = 1000; PRAGMA optimize = 0x10002;');
    else if (when === 'close') db.exec('PRAGMA optimize;');
    else {
      // Never wait for another process's write lock on the event loop: skip instead.
      db.exec('PRAGMA busy_timeout = 0;');
      try {
        db.exec('PRAGMA optimize;');
      } finally {
        db.exec('PRAGMA busy_timeout = 5000;');
      }
    }
  } catch {
    /* busy or read-only: the next round will do */
  }
}

/** How often a long-running process refreshes the statistics (see optimizeDatabase). */
export const OPTIMIZE_INTERVAL_MS = 3600_000;

/**
 * SQLite's page cache (KiB) and memory map (bytes) for each workload (StoreWorkload in
 * ../open-store.ts):
 * - `serve` (the default: the server, tests and most commands) reads far more than it writes: a
 *   32 MB page cache and no memory map. With a 256 MB map every page an answer or a Reader page
 *   touched stayed in the process's RSS: 207-227 MB of a 463 MB server after 1,000 chat answers
 *   on 100k items; without it (and with the cache at 16 MB, measured alternating) the same
 *   answers cost the same CPU (26.2 and 25.9 ms against 28.1 and 24.5 ms) and the server held
 *   235-244 MB, the pages read through the OS's file cache (bench/chat-memory.bench.ts,
 *   BENCHMARKS.md, Chat memory).
 * - `batch`: a one-shot process that mostly writes, `tidings refresh`. No memory map and a 16 MB
 *   page cache: the map showed as 60-90 MB of the process's RSS by the end of a 1,000-feed first
 *   refresh (every page the ingest and the search indexing touched stays mapped) and the page
 *   cache took up to 64 MB more; without them the refresh peaked at 297-350 MB instead of
 *   425-465 (273-310 with the collections of feeds/refresh.ts), its pages read through the OS's
 *   file cache instead, in the same wall and CPU time (BENCHMARKS.md, Memory).
 */
export function connectionMemory(workload: StoreWorkload): {
  cacheKib: number;
  mmapBytes: number;
  checkpointPages: number;
} {
  return workload === 'batch'
    ? { cacheKib: 16384, mmapBytes: 0, checkpointPages: BATCH_CHECKPOINT_PAGES }
    : { cacheKib: 32768, mmapBytes: 0, checkpointPages: 1000 };
}

/**
 * The WAL's automatic checkpoint for a batch workload: every 16,384 pages (64 MB) instead of
 * SQLite's 1,000 (4 MB). A checkpoint runs inside the COMMIT that crosses the line, on the thread
 * that commits (the refresh's main thread), and ends with two fsyncs; the pages a first refresh
 * keeps rewriting (the items' and the search postings' B-tree pages) were copied back at every one.
 * A 1,000-feed first refresh made 431 fsyncs (strace), 8-9 ms each on this disk, with the main
 * thread waiting (BENCHMARKS.md, "The first refresh of 2,000 feeds on one host"). The WAL file
 * may grow to about this size while a large pass runs.
 */
export const BATCH_CHECKPOINT_PAGES = 16384;

/** Opens the database file with the connection settings every Tidings process uses. */
export function openConnection(file: string, workload: StoreWorkload = 'serve'): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: 5000 });
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000;
    PRAGMA temp_store = MEMORY;
  `);
  useConnectionMemory(db, workload);
  return db;
}

/**
 * Sets the page cache, memory map and WAL checkpoint interval of an open connection for a workload. Lowering them gives
 * the memory back at once: pages past the new cache size are freed, and the map is dropped (SQLite
 * remaps only between statements; node:sqlite runs each statement to its end, except while an
 * iterate() is open).
 */
export function useConnectionMemory(db: Db, workload: StoreWorkload): void {
  const { cacheKib, mmapBytes, checkpointPages } = connectionMemory(workload);
  db.exec(
    `PRAGMA cache_size = -${cacheKib}; PRAGMA mmap_size = ${mmapBytes}; PRAGMA wal_autocheckpoint = ${checkpointPages};`,
  );
}

/**
 * Applies every migration not yet recorded, in list order, each in its own transaction (SQLite's
 * DDL is transactional: a step that fails leaves the database as it was). Returns the ids applied.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id));
  const ran: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    try {
      transaction(db, () => {
        db.exec(m.sqlite);
        db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)').run(
          m.id,
          Math.floor(Date.now() / 1000),
        );
      });
    } catch (e) {
      throw new Error(
        `migration ${m.id} failed and was rolled back (the database is as it was before it): ${(e as Error).message}`,
        { cause: e },
      );
    }
    ran.push(m.id);
  }
  return ran;
}

/** Runs fn inside BEGIN IMMEDIATE … COMMIT (ROLLBACK on throw). Nested calls join the outer one. */
export function transaction<T>(db: Db, fn: () => T): T {
  if (db.isTransaction) return fn();
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/** Caches prepared statements by SQL text: prepare once, reuse on every call. */
export class StatementCache {
  private readonly cache = new Map<string, StatementSync>();
  readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }
  get(sql: string): StatementSync {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }
}
