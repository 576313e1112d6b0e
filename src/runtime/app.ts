// What every domain gets: an App (configuration, logging, the store with every repository, the
// limit counters, this process's role). Domains keep their own services with perApp
// (./per-app.ts). The App is made by createApp (src/server/create-app.ts), the composition root;
// this file holds only its type, so a domain that takes an App depends on nothing above the store.
import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { Store, StoreWorkload } from '../store/open-store.ts';
import type { LimitCounters, UserRepository } from '../store/repositories.ts';
import type { ItemChanges } from '../model/item.ts';

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
