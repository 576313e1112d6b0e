// SQLite's change signal (see ../change-signal.ts). `total_changes()` (this connection's writes,
// about a microsecond) is read on every call, so a write of this process is seen by the very next
// call. `PRAGMA data_version` (another connection committed: a few microseconds) is read at most
// once per event-loop turn: a commit by another process during the turn is seen on the next one,
// exactly as if the request had arrived a moment earlier. Measured per Reader request
// (bench/durable-index.bench.ts): reading the pragma on every call made the gated check slower
// than the version reads it replaces.
// The pragma moves on any commit, whatever it wrote; when it moved, the row of migration 195
// (`change_counter`, bumped by triggers on what the caches read) says whether the commits wrote
// anything that matters, so another process's quiet writes (a chat answer's usage row and
// rate-limit pour) move nothing here either.
import type { StatementSync } from 'node:sqlite';
import type { Db } from './db.ts';
import type { ChangeSignal } from '../change-signal.ts';

interface CounterRow {
  changes: number;
  auth: number;
  origin: string;
}

export class SqliteChangeSignal implements ChangeSignal {
  private readonly db: Db;
  private changesStmt: StatementSync | undefined;
  private versionStmt: StatementSync | undefined;
  private versionReadThisTurn = false;
  private readonly nextTurn = () => {
    this.versionReadThisTurn = false;
  };
  private counterStmt: StatementSync | undefined;
  private lastVersion = -1;
  private lastCounter: CounterRow | undefined;
  private lastChanges = -1;
  private gen = 0;
  private othersGen = 0;

  constructor(db: Db) {
    this.db = db;
  }

  generation(): number {
    if (!this.db.isOpen) return ++this.gen;
    this.changesStmt ??= this.db.prepare('SELECT total_changes() AS c');
    const changes = (this.changesStmt.get() as { c: number }).c;
    if (changes !== this.lastChanges) {
      this.lastChanges = changes;
      this.gen++;
    }
    this.readVersion();
    return this.gen;
  }

  /**
   * Runs `write`, which writes through this connection, synchronously, only tables nothing caches a
   * read of (chat_usage, the rate-limit counters: TABLES_NO_CACHE_READS, and no trigger fires on
   * them), so that generation() does not move for it: when the connection wrote nothing since
   * generation() last looked, the count after the write is taken as seen. Else the signal moves as
   * before (what was written before it must still be seen). Every served chat answer writes a usage
   * row; counted, it made the next answer read the user's subscriptions (1,898 rows for the chat
   * bench's user) and the index counters again. Another process's such writes move nothing
   * either: they bump no counter of migration 195.
   */
  quietWrite<T>(write: () => T): T {
    if (!this.db.isOpen) return write();
    this.changesStmt ??= this.db.prepare('SELECT total_changes() AS c');
    const before = (this.changesStmt.get() as { c: number }).c;
    const out = write();
    if (before === this.lastChanges) this.lastChanges = (this.changesStmt.get() as { c: number }).c;
    return out;
  }

  /**
   * Moves only when another connection committed a write that may revoke authentication rows
   * (migration 195's `auth` counter: tokens revoked or deleted, users deleted, API keys changed, as
   * PostgreSQL's `auth` notifications), read at most once per event-loop turn like generation().
   * For the authentication rows a process keeps (portable/auth-row-cache.ts), which its own
   * revocations forget themselves: one statement a turn where generation() is two (0.02 ms each in
   * a Reader call that comes alone, BENCHMARKS.md, "The lone Reader call").
   */
  authGeneration(): number {
    if (!this.db.isOpen) return ++this.othersGen;
    this.readVersion();
    return this.othersGen;
  }

  private readVersion(): void {
    if (this.versionReadThisTurn) return;
    this.versionReadThisTurn = true;
    setImmediate(this.nextTurn).unref();
    this.versionStmt ??= this.db.prepare('PRAGMA data_version');
    const version = (this.versionStmt.get() as { data_version: number }).data_version;
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    // Read after the pragma: a commit after this read moves the pragma again.
    const now = this.readCounter();
    const was = this.lastCounter;
    this.lastCounter = now;
    const sameOrigin = now && was && now.origin === was.origin;
    if (!sameOrigin || now.changes !== was.changes) this.gen++;
    if (!sameOrigin || now.auth !== was.auth) this.othersGen++;
  }

  /** Migration 195's counters; undefined before it ran (then every commit counts, as before it). */
  private readCounter(): CounterRow | undefined {
    try {
      this.counterStmt ??= this.db.prepare('SELECT changes, auth, origin FROM change_counter WHERE id = 1');
      const row = this.counterStmt.get() as CounterRow | undefined;
      return row && { changes: row.changes, auth: row.auth, origin: row.origin };
    } catch {
      this.counterStmt = undefined;
      return undefined;
    }
  }

  async close(): Promise<void> {}
}
