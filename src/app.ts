// Composition root: the one place that wires configuration, logging, storage and the domains
// together. Domains get what they need from an App and keep their own services in WeakMaps keyed
// by the App (see e.g. feeds/engine.ts), so adding a domain does not grow this file much.
import { join } from 'node:path';
import type { Config } from './config/config.ts';
import { createLogger, type Logger, type LogFormat } from './log/logger.ts';
import { openDatabase, type Db } from './store/db.ts';
import type { UserRepository } from './store/repositories.ts';
import { SqliteUserRepository } from './store/sqlite/users.ts';
import type { ItemChanges } from './model/item.ts';
import { installSearchIndexing } from './search/indexing.ts';

export type ItemChangeListener = (changes: ItemChanges) => void;

export interface App {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Db;
  readonly users: UserRepository;
  /** Called by the feed engine after every ingest transaction commits (new, changed, deleted items). */
  readonly itemChangeListeners: ItemChangeListener[];
  notifyItemChanges(changes: ItemChanges): void;
  /** Registers cleanup run by close(), last registered first. */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Memoizes a domain's services per App: `export const fooStore = perApp((app) => ({ … }))`.
 * Keeps domain state out of this file while the server, CLI and tests share one set per App.
 */
export function perApp<T>(create: (app: App) => T): (app: App) => T {
  const cache = new WeakMap<App, T>();
  return (app) => {
    let value = cache.get(app);
    if (value === undefined) { value = create(app); cache.set(app, value); }
    return value;
  };
}

export function createApp(config: Config, log: Logger = createLogger(config.logLevel, config.logFormat as LogFormat)): App {
  const db = openDatabase(join(config.dataDir, 'tidings.db'));
  const closers: (() => void | Promise<void>)[] = [];
  const listeners: ItemChangeListener[] = [];
  const app: App = {
    config,
    log,
    db,
    users: new SqliteUserRepository(db),
    itemChangeListeners: listeners,
    notifyItemChanges(changes) {
      if (!changes.added.length && !changes.updated.length && !changes.deleted.length) return;
      for (const l of listeners) {
        try { l(changes); } catch (e) { log.error({ err: e }, 'item change listener failed'); }
      }
    },
    onClose(fn) { closers.push(fn); },
    async close() {
      for (const fn of closers.reverse()) await fn();
      db.close();
    },
  };
  // Domain wiring that must exist for every App (server, CLI and tests alike) goes here.
  installSearchIndexing(app);
  return app;
}
