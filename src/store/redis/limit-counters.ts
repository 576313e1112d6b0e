// Limit counters in Redis (TIDINGS_REDIS_URL), shared by every process and machine that points
// at it, with no write on the database per request. Each operation is one Lua script, which
// Redis runs atomically: two processes pouring into one bucket at once take turns.
// Client: @redis/client (the core of node-redis, the client Redis itself maintains), without the
// module packages (search, JSON, …) the `redis` meta-package pulls in.
// Keys expire on their own (PEXPIRE), so prune() has nothing to do. While Redis is unreachable
// a call fails at once (no offline queue) with StoreUnavailableError, which the APIs answer 503.
import { createClient } from '@redis/client';
import { randomUUID } from 'node:crypto';
import { StoreUnavailableError, redactUrl } from '../errors.ts';
import type { BucketPour, LimitCounters } from '../repositories.ts';

const PREFIX = 'tidings:limits:';
const IDLE_BUCKET_MS = 3600_000;

const POUR = `
local b = redis.call('HMGET', KEYS[1], 'level', 'at')
local cap, drain, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local level = tonumber(b[1]) or 0
local at = tonumber(b[2]) or now
level = math.max(0, level - math.max(0, now - at) * drain)
local allowed = 0
if level + 1 <= cap + 1e-9 then
  level = level + 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'level', string.format('%.17g', level), 'at', string.format('%.17g', math.max(at, now)))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, string.format('%.17g', level)}`;

const ADD_EVENT = `
local at = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local keep = tonumber(ARGV[i + 2])
  redis.call('ZADD', key, at, ARGV[2] .. ':' .. i)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', at - keep)
  redis.call('PEXPIRE', key, keep)
end
return 1`;

const NEWEST_EVENTS = `
local r = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 2, #r, 2 do out[#out + 1] = r[i] end
return out`;

const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local ttl = tonumber(ARGV[3]) - tonumber(ARGV[4])
if ttl > redis.call('PTTL', KEYS[1]) then redis.call('PEXPIRE', KEYS[1], math.max(1, ttl)) end
return 1`;

type Client = ReturnType<typeof createClient>;

export class RedisLimitCounters implements LimitCounters {
  readonly kind = 'redis' as const;
  private readonly client: Client;
  private readonly url: string;
  private connecting: Promise<unknown> | undefined;

  /** Connects on first use, so a CLI command that never counts never opens a connection. */
  constructor(url: string, onError: (err: Error) => void) {
    this.url = url;
    this.client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
    });
    let reported = false;
    this.client.on('error', (err: Error) => {
      // The client reconnects on its own; log the first error of each outage, not every retry.
      if (!reported) onError(err);
      reported = true;
    });
    this.client.on('ready', () => {
      reported = false;
    });
  }

  private connected(): Promise<unknown> {
    this.connecting ??= this.client.connect().catch((e: unknown) => {
      this.connecting = undefined;
      throw e;
    });
    return this.connecting;
  }

  private async run(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      await this.connected();
      return await this.client.eval(script, { keys: keys.map((k) => PREFIX + k), arguments: args.map(String) });
    } catch (e) {
      throw new StoreUnavailableError(
        `Redis did not answer (TIDINGS_REDIS_URL=${redactUrl(this.url)}): ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  async pour(key: string, capacity: number, drainPerMs: number, nowMs: number): Promise<BucketPour> {
    const [allowed, level] = (await this.run(POUR, [`b:${key}`], [capacity, drainPerMs, nowMs, IDLE_BUCKET_MS])) as [
      number,
      string,
    ];
    return { allowed: allowed === 1, level: Number(level) };
  }

  async addEvent(keys: readonly { key: string; keepMs: number }[], atMs: number): Promise<void> {
    if (!keys.length) return;
    await this.run(
      ADD_EVENT,
      keys.map((k) => `e:${k.key}`),
      [atMs, randomUUID(), ...keys.map((k) => Math.max(1, Math.round(k.keepMs)))],
    );
  }

  async newestEvents(key: string, sinceMs: number, max: number): Promise<number[]> {
    const r = (await this.run(NEWEST_EVENTS, [`e:${key}`], [sinceMs, max])) as string[];
    return r.map(Number);
  }

  async clearEvents(key: string): Promise<void> {
    await this.command(() => this.client.del(PREFIX + `e:${key}`));
  }

  async setMark(key: string, atMs: number, keepMs: number): Promise<void> {
    await this.command(() =>
      this.client.set(PREFIX + `m:${key}`, String(atMs), { expiration: { type: 'PX', value: Math.max(1, keepMs) } }),
    );
  }

  async markOf(key: string, _nowMs: number): Promise<number | undefined> {
    const v = await this.command(() => this.client.get(PREFIX + `m:${key}`));
    return v === null || v === undefined ? undefined : Number(v);
  }

  async takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean> {
    return (await this.run(TAKE_SLOT, [`s:${key}`], [token, max, expiresMs, nowMs])) === 1;
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    await this.command(() => this.client.zRem(PREFIX + `s:${key}`, token));
  }

  async prune(_nowMs: number): Promise<void> {}

  async ping(): Promise<void> {
    await this.command(() => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.client.isOpen) this.client.destroy();
  }

  private async command<T>(fn: () => Promise<T>): Promise<T> {
    try {
      await this.connected();
      return await fn();
    } catch (e) {
      throw new StoreUnavailableError(
        `Redis did not answer (TIDINGS_REDIS_URL=${redactUrl(this.url)}): ${(e as Error).message}`,
        { cause: e },
      );
    }
  }
}
