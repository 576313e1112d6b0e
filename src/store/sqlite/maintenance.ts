// Operator maintenance of the SQLite database: consistent backups while the server runs (SQLite's
// online backup API through node:sqlite, which copies a snapshot under a read lock and does not
// block writers in WAL mode) and restore from such a copy.
import { DatabaseSync, backup } from 'node:sqlite';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from './db.ts';
import { BackupFileError } from '../backup-error.ts';

const ALL_PAGES = 2 ** 31 - 1;

/** Copies the whole database to `file` (written under a temporary name, then renamed: never half a file). */
export async function backupDatabase(db: Db, file: string): Promise<{ pages: number }> {
  const partial = `${file}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  try {
    // Every page in one step (node:sqlite wants a positive rate; SQLite's -1 means the same), so the
    // copy is one snapshot even while the server writes.
    const pages = await backup(db, partial, { rate: ALL_PAGES });
    selfContained(partial);
    renameSync(partial, file);
    return { pages };
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}

/** A backup is one file: the copy inherits WAL mode, whose side files would appear on every open. */
function selfContained(file: string): void {
  const copy = new DatabaseSync(file);
  try {
    copy.exec('PRAGMA journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Checks that `file` is a readable, intact Tidings database; returns its applied migrations. */
export function checkBackupFile(file: string): { migrations: string[] } {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (e) {
    throw new BackupFileError(`${file} cannot be opened as SQLite: ${(e as Error).message}`);
  }
  try {
    let ok: string;
    try {
      ok = (db.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check;
    } catch (e) {
      throw new BackupFileError(`${file} is not a SQLite database (${(e as Error).message})`);
    }
    if (ok !== 'ok') throw new BackupFileError(`${file} is damaged: ${ok}`);
    const hasMigrations = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (!hasMigrations)
      throw new BackupFileError(`${file} is a SQLite database but not a Tidings one (no schema_migrations table)`);
    return {
      migrations: (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: string }[]).map(
        (r) => r.id,
      ),
    };
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `liveFile` with the backup `file`. The current database, if any, is
 * first kept as `<liveFile>.before-restore-<time>`, so a restore of the wrong file can be undone.
 */
export async function restoreDatabase(file: string, liveFile: string): Promise<{ keptAs: string | null }> {
  checkBackupFile(file);
  mkdirSync(dirname(liveFile), { recursive: true });
  let keptAs: string | null = null;
  if (existsSync(liveFile)) {
    keptAs = `${liveFile}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const current = new DatabaseSync(liveFile);
    try {
      await backupDatabase(current, keptAs);
    } finally {
      current.close();
    }
  }
  const source = new DatabaseSync(file, { readOnly: true });
  try {
    const staging = `${liveFile}.restoring-${process.pid}`;
    rmSync(staging, { force: true });
    await backup(source, staging, { rate: ALL_PAGES });
    // The old WAL and shared-memory index belong to the replaced file: stale frames must not be
    // replayed over the restored one.
    for (const suffix of ['-wal', '-shm']) rmSync(liveFile + suffix, { force: true });
    renameSync(staging, liveFile);
  } finally {
    source.close();
  }
  return { keptAs };
}
