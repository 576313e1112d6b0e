// SQLite's change signal (see ../change-signal.ts). `total_changes()` (this connection's writes,
// about a microsecond) is read on every call, so a write of this process is seen by the very next
// call. `PRAGMA data_version` (another connection committed: a few microseconds) is read at most
// once per event-loop turn: a commit by another process during the turn is seen on the next one,
// exactly as if the request had arrived a moment earlier. Measured per Reader request
// (bench/durable-index.bench.ts): reading the pragma on every call made the gated check slower
// than the version reads it replaces.
import type { StatementSync } from 'node:sqlite';
import type { Db } from './db.ts';
import type { ChangeSignal } from '../change-signal.ts';

export class SqliteChangeSignal implements ChangeSignal {
  private readonly db: Db;
  private changesStmt: StatementSync | undefined;
  private versionStmt: StatementSync | undefined;
  private versionReadThisTurn = false;
  private readonly nextTurn = () => {
    this.versionReadThisTurn = false;
  };
  private lastVersion = -1;
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
   * Moves only when another connection committed (any write: SQLite cannot tell what it wrote), read
   * at most once per event-loop turn like generation(). For the authentication rows a process keeps
   * (portable/auth-row-cache.ts), which its own revocations forget themselves: one statement a turn
   * where generation() is two (0.02 ms each in a Reader call that comes alone, BENCHMARKS.md,
   * "The lone Reader call").
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
    if (version !== this.lastVersion) {
      this.lastVersion = version;
      this.gen++;
      this.othersGen++;
    }
  }

  async close(): Promise<void> {}
}
