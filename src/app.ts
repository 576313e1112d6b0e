// Composition root: the one place that wires configuration, logging, storage and the domains
// together. Domains get what they need from an App (its store gives every repository) and keep
// their own services with perApp (./per-app.ts), so adding a domain does not grow this file much.
import type { Config } from './config/config.ts';
import { createLogger, type Logger, type LogFormat } from './log/logger.ts';
import { openStore, type Store, type StoreWorkload } from './store/open-store.ts';
import type { LimitCounters, UserRepository } from './store/repositories.ts';
import { openLimitCounters, type LimitsStore } from './store/limit-counters.ts';
import type { ItemChanges } from './model/item.ts';

export type ItemChangeListener = (changes: ItemChanges) => void;

/** Which part of a `tidings serve --workers N` this process is (src/cli/README.md, "Workers"). */
export interface ProcessRole {
  /** 1..N in a worker of `serve --workers N`; null in a single process (CLI, tests, --workers 1). */
  readonly worker: number | null;
  /**
   * Whether this process runs the background work that one process does for all: the feed
   * scheduler (refresh, retention, webhooks, WebSub renewals), resuming async jobs left by an
   * earlier process, the hourly purge of old jobs, and a search-index rebuild a migration asked for.
   */
  readonly background: boolean;
  /**
   * How it uses the database (store/open-store.ts, StoreWorkload): `batch` for a one-shot process
   * that mostly writes (`tidings refresh`: SQLite opens without its memory map); default `serve`.
   */
  readonly workload?: StoreWorkload;
}

export const SINGLE_PROCESS: ProcessRole = { worker: null, background: true };

export interface App {
  readonly config: Config;
  readonly log: Logger;
  /** Every repository and transaction(fn), on the backend TIDINGS_DATABASE_URL chose. */
  readonly store: Store;
  readonly users: UserRepository;
  /** Where rate limits and login throttles count (memory, database or Redis: store/limit-counters.ts). */
  readonly limits: LimitCounters;
  readonly role: ProcessRole;
  /** Called by the feed engine after every ingest transaction commits (new, changed, deleted items). */
  readonly itemChangeListeners: ItemChangeListener[];
  notifyItemChanges(changes: ItemChanges): void;
  /** Registers cleanup run by close(), last registered first. */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export { perApp } from './per-app.ts';

/** Opens the store (applying pending migrations) and wires the domains every App needs. */
export async function createApp(
  config: Config,
  log: Logger = createLogger(config.logLevel, config.logFormat as LogFormat),
  role: ProcessRole = SINGLE_PROCESS,
): Promise<App> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    workload: role.workload,
    queryTimeoutMs: config.databaseTimeoutMs,
  });
  const limits = await openLimitCounters({
    choice: config.limitsStore as LimitsStore,
    redisUrl: config.redisUrl,
    redisTimeoutMs: config.redisTimeoutMs,
    store,
    sharedByProcesses: role.worker !== null,
    onRedisError: (err) =>
      log.error({ err }, 'Redis (TIDINGS_REDIS_URL) connection error; rate limits answer 503 until it is back'),
  });
  const closers: (() => void | Promise<void>)[] = [];
  const listeners: ItemChangeListener[] = [];
  let closed: Promise<void> | undefined;
  const app: App = {
    config,
    log,
    store,
    users: store.users,
    limits,
    role,
    itemChangeListeners: listeners,
    notifyItemChanges(changes) {
      if (!changes.added.length && !changes.updated.length && !changes.deleted.length) return;
      for (const l of listeners) {
        try {
          l(changes);
        } catch (e) {
          log.error({ err: e }, 'item change listener failed');
        }
      }
    },
    onClose(fn) {
      closers.push(fn);
    },
    close() {
      closed ??= (async () => {
        for (const fn of closers.reverse()) await fn();
        await limits.close();
        await store.close();
      })();
      return closed;
    },
  };
  if (role.background && limits.kind !== 'memory') {
    // Expired limit rows (idle buckets, old failed logins) go every 10 minutes, by one process for all.
    const prune = setInterval(() => {
      limits.prune(Date.now()).catch((err: unknown) => log.warn({ err }, 'could not prune expired limit counters'));
    }, 10 * 60_000);
    prune.unref();
    closers.push(() => clearInterval(prune));
  }
  // Domain wiring that must exist for every App (server, CLI and tests alike) goes here. Loaded
  // here rather than at the top: the supervisor of `serve --workers N` imports this module but
  // opens no App, and should not hold the search indexer, rules and webhooks in memory.
  try {
    const [{ installSearchIndexing }, { installFilterRules }, { installWebhooks }] = await Promise.all([
      import('./search/indexing.ts'),
      import('./rules/rules.ts'),
      import('./webhooks/webhooks.ts'),
    ]);
    await installSearchIndexing(app);
    // After a feed's new items are stored: each user's filter rules, then their webhooks.
    installFilterRules(app);
    installWebhooks(app);
  } catch (e) {
    await limits.close();
    await store.close();
    throw e;
  }
  return app;
}
