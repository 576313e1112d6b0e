// Raw SQL for tests (set up a corner case or check a row the repositories do not expose) and for
// the store's own tools (db copy), on whichever backend the App runs; and the driver hooks tests
// of the PostgreSQL caches use (statements sent, notifications held back). Domain code never
// imports this (test/import-boundaries).
// Placeholders are `?` on both backends (numbered for PostgreSQL here); write portable SQL.
import type { Store } from './open-store.ts';
import type { UsageRecord } from '../model/chat.ts';

export interface TestStatement {
  run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number }>;
  get<T = Record<string, unknown>>(...params: unknown[]): Promise<T | undefined>;
  all<T = Record<string, unknown>>(...params: unknown[]): Promise<T[]>;
}

export interface TestSql {
  prepare(sql: string): TestStatement;
  exec(sql: string): Promise<void>;
}

/** What these helpers need of an App (its store), without the store depending on the App's type. */
interface App {
  readonly store: Store;
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
 * Calls `seen` with the text of every statement this process sends to PostgreSQL (every
 * connection, the change listener's included) until the returned function is called; on SQLite
 * nothing is sent, so it is never called.
 */
export async function watchStatements(seen: (text: string) => void): Promise<() => void> {
  // Loaded here only: a SQLite test never loads the driver.
  const { default: pg } = await import('pg');
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string } | undefined;
    seen(typeof q === 'string' ? q : (q?.text ?? ''));
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  return () => {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  };
}

/**
 * How many statements matching `pattern` this process sends to PostgreSQL while `run` runs; 0 on
 * SQLite. Tests of what a process keeps.
 */
export async function statementsSent(pattern: RegExp, run: () => Promise<void>): Promise<number> {
  let sent = 0;
  const stop = await watchStatements((text) => {
    if (pattern.test(text)) sent++;
  });
  try {
    await run();
  } finally {
    stop();
  }
  return sent;
}

/**
 * Waits until `read` (a change number: the change signal's generation, or PostgreSQL's
 * authGeneration) gave the same value ten times 10 ms apart: the change listener is up and nothing
 * is in flight. Returns that value.
 */
export async function steadyChangeNumber<T>(read: () => T): Promise<T> {
  let last = read();
  for (let still = 0; still < 10; ) {
    await new Promise((r) => setTimeout(r, 10));
    const now = read();
    if (now === last) still++;
    else [last, still] = [now, 0];
  }
  return last;
}

/**
 * Waits until `read` gives something other than `from` (another process's notification arrives
 * asynchronously, at its commit), looking every 5 ms for `withinMs`; returns the new value, or
 * throws `failure`.
 */
export async function changeNumberMoved<T>(read: () => T, from: T, failure: string, withinMs = 2000): Promise<T> {
  for (let waited = 0; waited < withinMs; waited += 5) {
    const now = read();
    if (now !== from) return now;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(failure);
}

/**
 * What another process (the CLI, a second server, a second App on the same data) committed, as
 * this process sees it: on SQLite from the next event-loop turn (data_version is read once a turn;
 * a request from the network always starts one), on PostgreSQL once that commit's notification
 * has arrived, which on a loaded machine can be read after the next request. Calls `read` in a new
 * turn until `seen(value)`: once on SQLite, every 10 ms for up to `withinMs` on PostgreSQL (never
 * a plain sleep). Returns the last value: the caller asserts on it, so a change that never
 * arrives still fails.
 */
export async function seenAfterOtherCommit<T>(
  appOrStore: App | Store,
  read: () => Promise<T>,
  seen: (value: T) => boolean,
  withinMs = 2000,
): Promise<T> {
  const store = 'store' in appOrStore ? appOrStore.store : appOrStore;
  await new Promise((r) => setImmediate(r));
  let value = await read();
  for (const t0 = Date.now(); store.backend === 'postgres' && !seen(value) && Date.now() - t0 < withinMs; ) {
    await new Promise((r) => setTimeout(r, 10));
    value = await read();
  }
  return value;
}

const generationOf = (app: App) => () => app.store.changes.generation();

/** Waits until the app's change signal has been steady for a moment (the listener is up, nothing in flight). */
export const signalSteady = (app: App): Promise<number> => steadyChangeNumber(generationOf(app));

/** Waits until another process's notification has moved the app's change signal past `from`. */
export const signalMovedPast = (app: App, from: number, what: string): Promise<number> =>
  changeNumberMoved(generationOf(app), from, `the change signal did not move: ${what}`);

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

/** A sonar answer's usage row for `userId` (what every served answer records), for tests and benches. */
export function testUsageRecord(userId: number, status = 200): UsageRecord {
  return {
    createdAt: 1,
    keyId: 'k',
    userId,
    endpoint: 'chat',
    model: 'sonar',
    status,
    errorType: null,
    stream: false,
    promptTokens: 1,
    completionTokens: 1,
    reasoningTokens: 0,
    citationTokens: 0,
    searchQueries: 1,
    cost: { input: 0, output: 0, reasoning: 0, citation: 0, searchQueries: 0, request: 0, total: 0 },
    latencyMs: 1,
  };
}
