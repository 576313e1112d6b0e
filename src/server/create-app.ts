// Composition root: the one place that wires configuration, logging, storage and the domains
// together. Domains get what they need from an App (its store gives every repository) and keep
// their own services with perApp (src/runtime/per-app.ts), so adding a domain does not grow this
// file much.
import type { Config } from '../config/config.ts';
import { createLogger, type Logger, type LogFormat } from '../log/logger.ts';
import { openStore } from '../store/open-store.ts';
import { openLimitCounters, type LimitsStore } from '../store/limit-counters.ts';
import { SINGLE_PROCESS, type App, type ItemChangeListener, type ProcessRole } from '../runtime/app.ts';

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
    const [{ installSearchIndexing }, { installFilterRules }, { installWebhooks }] = await appDomainModules();
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

/**
 * The domain modules every App installs, loaded by the first createApp rather than with this
 * module (see there); `tidings serve` also loads them before it starts over without the type
 * stripper (src/runtime/type-stripper.ts).
 */
export function appDomainModules() {
  return Promise.all([import('../search/indexing.ts'), import('../rules/rules.ts'), import('../webhooks/webhooks.ts')]);
}
