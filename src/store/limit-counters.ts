// Where rate limits and login throttles count (TIDINGS_LIMITS_STORE): this process's memory, the
// database (shared by every process on it) or Redis (TIDINGS_REDIS_URL). `auto` picks the cheapest
// one that is still exact: memory when this process is the only server of a SQLite file, the
// database when other processes may serve it too (`serve --workers N`, or PostgreSQL, which other
// machines may share), Redis whenever a URL is given.
import type { Store } from './open-store.ts';
import type { LimitCounters } from './repositories.ts';
import { MemoryLimitCounters } from './memory/limit-counters.ts';

export type LimitsStore = 'auto' | 'memory' | 'database' | 'redis';

export interface LimitCountersOptions {
  choice: LimitsStore;
  redisUrl: string;
  /** Time limit of one Redis operation (TIDINGS_REDIS_TIMEOUT_MS). */
  redisTimeoutMs?: number;
  store: Store;
  /** Whether other server processes share this database (a worker of `serve --workers N`). */
  sharedByProcesses: boolean;
  onRedisError: (err: Error) => void;
}

export async function openLimitCounters(o: LimitCountersOptions): Promise<LimitCounters> {
  const choice = o.choice === 'auto' ? autoChoice(o) : o.choice;
  if (choice === 'memory') return new MemoryLimitCounters();
  if (choice === 'database') return o.store.limitCounters;
  // Loaded only when used: most installs never talk to Redis.
  const { RedisLimitCounters } = await import('./redis/limit-counters.ts');
  return new RedisLimitCounters(o.redisUrl.trim(), o.onRedisError, o.redisTimeoutMs);
}

function autoChoice(o: LimitCountersOptions): Exclude<LimitsStore, 'auto'> {
  if (o.redisUrl.trim()) return 'redis';
  if (o.store.backend === 'postgres' || o.sharedByProcesses) return 'database';
  return 'memory';
}
