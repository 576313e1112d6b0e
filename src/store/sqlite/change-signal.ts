// SQLite's change signal (see ../change-signal.ts): data_version and total_changes(), read when asked.
import type { StatementSync } from 'node:sqlite';
import type { Db } from './db.ts';
import type { ChangeSignal } from '../change-signal.ts';

export class SqliteChangeSignal implements ChangeSignal {
  private readonly db: Db;
  private stmt: StatementSync | undefined;
  private lastVersion = -1;
  private lastChanges = -1;
  private gen = 0;

  constructor(db: Db) {
    this.db = db;
  }

  generation(): number {
    if (!this.db.isOpen) return ++this.gen;
    this.stmt ??= this.db.prepare('SELECT data_version AS v, total_changes() AS c FROM pragma_data_version');
    const row = this.stmt.get() as { v: number; c: number };
    if (row.v !== this.lastVersion || row.c !== this.lastChanges) {
      this.lastVersion = row.v;
      this.lastChanges = row.c;
      this.gen++;
    }
    return this.gen;
  }

  async close(): Promise<void> {}
}
