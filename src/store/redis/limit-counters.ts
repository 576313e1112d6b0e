// Limit counters in Redis (TIDINGS_REDIS_URL), shared by every process and machine that points
// at it, with no write on the database per request. Each operation is one Lua script, which
// Redis runs atomically: two processes pouring into one bucket at once take turns.
// Client: @redis/client (the core of node-redis, the client Redis itself maintains), without the
// module packages (search, JSON, …) the `redis` meta-package pulls in.
// Keys expire on their own (PEXPIRE), so prune() has nothing to do. While Redis is unreachable
// a call fails at once (no offline queue) with StoreUnavailableError, which the APIs answer 503.
// While it accepts connections but does not answer (paused by SIGSTOP, overloaded, a half-open
// connection), each operation fails after TIDINGS_REDIS_TIMEOUT_MS the same way, and the
// connection is thrown away: a paused Redis held logins, chat and /readyz for over 90 s (issue 25),
// as neither the client's connect timeout (TCP only) nor its command timeout covered that case.
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

const newClient = (url: string, timeoutMs: number) =>
  createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: Math.min(5000, timeoutMs),
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000),
    },
  });
type Client = ReturnType<typeof newClient>;

export class RedisLimitCounters implements LimitCounters {
  readonly kind = 'redis' as const;
  private client: Client | undefined;
  private readonly url: string;
  private readonly onError: (err: Error) => void;
  private readonly timeoutMs: number;
  private connecting: Promise<unknown> | undefined;
  private reported = false;

  /** Connects on first use, so a CLI command that never counts never opens a connection. */
  constructor(url: string, onError: (err: Error) => void, timeoutMs = 2000) {
    this.url = url;
    this.onError = onError;
    this.timeoutMs = timeoutMs;
  }

  private current(): Client {
    if (this.client) return this.client;
    const client = newClient(this.url, this.timeoutMs);
    client.on('error', (err: Error) => {
      // The client reconnects on its own; log the first error of each outage, not every retry.
      if (!this.reported) this.onError(err);
      this.reported = true;
    });
    client.on('ready', () => {
      this.reported = false;
    });
    this.client = client;
    this.connecting = client.connect().catch((e: unknown) => {
      if (this.client === client) this.connecting = undefined;
      throw e;
    });
    this.connecting.catch(() => {}); // awaited by the operation that asked; no unhandled rejection
    return client;
  }

  /** Drops a client that stopped answering: its queued commands fail, the next operation connects anew. */
  private discard(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.connecting = undefined;
    client.destroy();
  }

  /** One operation under the time limit, its failures as StoreUnavailableError (503). */
  private async command<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let client: Client | undefined;
    try {
      client = this.current();
      const connecting = this.connecting ?? client.connect();
      const op = (async () => {
        if (!client!.isReady) await connecting;
        return await fn(client!);
      })();
      op.catch(() => {}); // its failure after the time limit matters to no one
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${this.timeoutMs} ms (TIDINGS_REDIS_TIMEOUT_MS)`)),
          this.timeoutMs,
        );
      });
      try {
        return await Promise.race([op, timedOut]);
      } catch (e) {
        if (/^no answer within/.test((e as Error).message)) this.discard(client);
        throw e;
      }
    } catch (e) {
      throw new StoreUnavailableError(
        `Redis did not answer (TIDINGS_REDIS_URL=${redactUrl(this.url)}): ${(e as Error).message}`,
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private run(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.command((c) => c.eval(script, { keys: keys.map((k) => PREFIX + k), arguments: args.map(String) }));
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
    await this.command((c) => c.del(PREFIX + `e:${key}`));
  }

  async setMark(key: string, atMs: number, keepMs: number): Promise<void> {
    await this.command((c) =>
      c.set(PREFIX + `m:${key}`, String(atMs), { expiration: { type: 'PX', value: Math.max(1, keepMs) } }),
    );
  }

  async markOf(key: string, _nowMs: number): Promise<number | undefined> {
    const v = await this.command((c) => c.get(PREFIX + `m:${key}`));
    return v === null || v === undefined ? undefined : Number(v);
  }

  async takeSlot(key: string, token: string, max: number, expiresMs: number, nowMs: number): Promise<boolean> {
    return (await this.run(TAKE_SLOT, [`s:${key}`], [token, max, expiresMs, nowMs])) === 1;
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    await this.command((c) => c.zRem(PREFIX + `s:${key}`, token));
  }

  async prune(_nowMs: number): Promise<void> {}

  async ping(): Promise<void> {
    await this.command((c) => c.ping());
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    if (client?.isOpen) client.destroy();
  }
}
