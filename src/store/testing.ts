// Raw SQL for tests (set up a corner case or check a row the repositories do not expose) and for
// the store's own tools (db copy),
// on whichever backend the App runs. Domain code never imports this (test/import-boundaries).
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
