// Raw SQL for tests (set up a corner case or check a row the repositories do not expose) and for
// the store's own tools (db copy), on whichever backend the App runs; and the driver hooks tests
// of the PostgreSQL caches use (statements sent, notifications held back). Domain code never
// imports this (test/import-boundaries).
// Placeholders are `?` on both backends (numbered for PostgreSQL here); write portable SQL.
import type { App } from '../app.ts';
import type { Store } from './open-store.ts';

export interface TestStatement {
  run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number }>;
  get<T = Record<string, unknown>>(...params: unknown[]): Promise<T | undefined>;
  all<T = Record<string, unknown>>(...params: unknown[]): Promise<T[]>;
}

export interface TestSql {
  prepare(sql: string): TestStatement;
  exec(sql: string): Promise<void>;
}

interface RawCapable {
  raw(): TestSql;
}

/** Raw SQL on the App's store. */
export function testSql(appOrStore: App | Store): TestSql {
  const store = 'store' in appOrStore ? appOrStore.store : appOrStore;
  return (store as unknown as RawCapable).raw();
}

/**
 * How many statements matching `pattern` this process sends to PostgreSQL (every connection, the
 * change listener's included) while `run` runs; 0 on SQLite. Tests of what a process keeps.
 */
export async function statementsSent(pattern: RegExp, run: () => Promise<void>): Promise<number> {
  // Loaded here only: a SQLite test never loads the driver.
  const { default: pg } = await import('pg');
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  let sent = 0;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string } | undefined;
    if (pattern.test(typeof q === 'string' ? q : (q?.text ?? ''))) sent++;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  }
  return sent;
}

interface Emitter {
  emit(event: string | symbol, ...args: unknown[]): boolean;
}

/**
 * Runs `run` with the PostgreSQL change listener's notifications held back (as if slow to arrive),
 * then delivers them: what `run` sees of this process's own writes is what its repositories
 * forgot themselves, not what the notification of the commit dropped. On SQLite (no listener),
 * or while the listener is not connected, just runs it (`listening` says which).
 */
export async function notificationsHeldBack(
  appOrStore: App | Store,
  run: (listening: boolean) => Promise<void>,
): Promise<void> {
  const store = 'store' in appOrStore ? appOrStore.store : appOrStore;
  const client = (store.changes as unknown as { client?: Emitter }).client;
  if (!client) return run(false);
  const emit = client.emit;
  const held: unknown[][] = [];
  client.emit = function (this: Emitter, event: string | symbol, ...args: unknown[]) {
    if (event !== 'notification') return emit.call(this, event, ...args);
    held.push(args);
    return true;
  };
  try {
    await run(true);
  } finally {
    client.emit = emit;
    for (const args of held) client.emit('notification', ...args);
  }
}
