// The limit counters (src/store/limit-counters.ts) behind rate limits and login throttles, on
// every place they can live: memory, SQLite, PostgreSQL (when the suite runs on it:
// TIDINGS_TEST_DATABASE_URL) and Redis (a throwaway redis-server). The shared ones are checked
// with two independent openings, as two processes would have: their counts add up exactly, also
// when both pour at once.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../src/store/open-store.ts';
import type { LimitCounters } from '../src/store/repositories.ts';
import { MemoryLimitCounters } from '../src/store/memory/limit-counters.ts';
import { RedisLimitCounters } from '../src/store/redis/limit-counters.ts';
import { LoginThrottle } from '../src/auth/login-throttle.ts';
import { LeakyBucketLimiter } from '../src/chat-api/rate-limit.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from './helpers.ts';
import { redisUnavailable, startRedis, type RedisServer } from './redis-server.ts';

interface Opened {
  /** Two openings of the same counters (one per "process"); memory has one only. */
  a: LimitCounters;
  b: LimitCounters | undefined;
  close(): Promise<void>;
}

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
});

async function twoStores(databaseUrl: string): Promise<Opened> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-limits-'));
  const stores: Store[] = [];
  for (let i = 0; i < 2; i++) stores.push(await openStore({ databaseUrl, dataDir }));
  return {
    a: stores[0]!.limitCounters,
    b: stores[1]!.limitCounters,
    close: async () => {
      for (const s of stores) await s.close();
    },
  };
}

const BACKENDS: { name: string; skip: string | false; open(): Promise<Opened> }[] = [
  {
    name: 'memory',
    skip: false,
    open: async () => ({ a: new MemoryLimitCounters(), b: undefined, close: async () => {} }),
  },
  { name: 'SQLite', skip: false, open: () => twoStores('') },
  {
    name: 'PostgreSQL',
    skip: TEST_DATABASE_URL ? false : 'skipped: runs on the PostgreSQL pass (TIDINGS_TEST_DATABASE_URL)',
    open: () => twoStores(freshPostgresDatabase()),
  },
  {
    name: 'Redis',
    skip: redisUnavailable() ?? false,
    open: async () => {
      redis ??= await startRedis();
      const prefix = `t${Math.random().toString(36).slice(2)}`;
      const a = new RedisLimitCounters(redis.url, (e) => assert.fail(e));
      const b = new RedisLimitCounters(redis.url, (e) => assert.fail(e));
      // Each test its own key space on the one server.
      const scoped = (c: RedisLimitCounters): LimitCounters =>
        new Proxy(c, {
          get(target, prop) {
            const v = Reflect.get(target, prop);
            if (typeof v !== 'function' || ['close', 'ping', 'prune'].includes(String(prop)))
              return v?.bind?.(target) ?? v;
            return (first: unknown, ...rest: unknown[]) =>
              v.call(
                target,
                Array.isArray(first) ? first.map((k) => ({ ...k, key: prefix + k.key })) : prefix + String(first),
                ...rest,
              );
          },
        }) as LimitCounters;
      return {
        a: scoped(a),
        b: scoped(b),
        close: async () => {
          await a.close();
          await b.close();
        },
      };
    },
  },
];

const MIN = 60_000;

for (const backend of BACKENDS) {
  describe(`limit counters on ${backend.name}`, { skip: backend.skip }, () => {
    test('a leaky bucket takes its capacity at once, then refills at its rate', async () => {
      const o = await backend.open();
      try {
        const drain = 3 / MIN;
        const t0 = 1_700_000_000_000;
        const pours = [];
        for (let i = 0; i < 4; i++) pours.push(await o.a.pour('k', 3, drain, t0));
        assert.deepEqual(
          pours.map((p) => p.allowed),
          [true, true, true, false],
        );
        assert.ok(Math.abs(pours[3]!.level - 3) < 1e-9);
        assert.equal((await o.a.pour('k', 3, drain, t0 + MIN / 3 - 10)).allowed, false, 'not yet one unit drained');
        const later = await (o.b ?? o.a).pour('k', 3, drain, t0 + MIN / 3 + 10);
        assert.equal(later.allowed, true, 'one unit drained after a third of a minute, seen by every opening');
        assert.equal((await o.a.pour('other', 3, drain, t0)).level, 1, 'buckets are independent');
      } finally {
        await o.close();
      }
    });

    test('pours from two openings at once add up exactly', {
      skip:
        backend.name === 'memory' &&
        'in-memory counters live in one process: there is no second opening (SQLite and PostgreSQL run it)',
    }, async () => {
      const o = await backend.open();
      try {
        const t0 = Date.now();
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 ? o.a : o.b!).pour('burst', 10, 10 / MIN, t0)),
        );
        assert.equal(results.filter((r) => r.allowed).length, 10);
      } finally {
        await o.close();
      }
    });

    test('events over a window, marks and leased slots', async () => {
      const o = await backend.open();
      const other = o.b ?? o.a;
      try {
        const t0 = 1_700_000_000_000;
        await o.a.addEvent(
          [
            { key: 'x', keepMs: MIN },
            { key: 'y', keepMs: 15 * MIN },
          ],
          t0,
        );
        await other.addEvent([{ key: 'x', keepMs: MIN }], t0 + 1000);
        await o.a.addEvent([{ key: 'x', keepMs: MIN }], t0 + 2000);
        assert.deepEqual(await other.newestEvents('x', t0 - 1, 10), [t0 + 2000, t0 + 1000, t0]);
        assert.deepEqual(await o.a.newestEvents('x', t0 - 1, 2), [t0 + 2000, t0 + 1000], 'newest first, at most max');
        assert.deepEqual(await o.a.newestEvents('x', t0, 10), [t0 + 2000, t0 + 1000], 'only after sinceMs');
        await other.clearEvents('x');
        assert.deepEqual(await o.a.newestEvents('x', 0, 10), []);
        assert.deepEqual(await o.a.newestEvents('y', 0, 10), [t0]);

        const now = Date.now();
        await o.a.setMark('m', now, MIN);
        assert.equal(await other.markOf('m', now + 1), now);
        assert.equal(await other.markOf('none', now), undefined);

        // Slots: at most 2 held at once, from either opening, also when asked at the same moment.
        const taken = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? o.a : other).takeSlot('s', `t${i}`, 2, now + MIN, now)),
        );
        assert.equal(taken.filter(Boolean).length, 2);
        const holder = `t${taken.indexOf(true)}`;
        await other.releaseSlot('s', holder);
        assert.equal(await o.a.takeSlot('s', 'again', 2, now + MIN, now), true, 'a released slot is free');
        assert.equal(await o.a.takeSlot('s', 'more', 2, now + MIN, now), false);
        assert.equal(await o.a.takeSlot('s', 'after', 2, now + 2 * MIN, now + MIN + 1), true, 'leases expire');
        await o.a.prune(now + 16 * MIN);
        assert.deepEqual(await o.a.newestEvents('y', 0, 10), backend.name === 'Redis' ? [t0] : []);
      } finally {
        await o.close();
      }
    });

    test('the rate limiter and the login throttle count every opening', async () => {
      const o = await backend.open();
      const other = o.b ?? o.a;
      try {
        const limiters = [new LeakyBucketLimiter(o.a), new LeakyBucketLimiter(other)];
        const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => limiters[i % 2]!.take('key', 5)));
        assert.equal(decisions.filter((d) => d.allowed).length, 5);
        const refused = decisions.find((d) => !d.allowed)!;
        assert.equal(refused.remaining, 0);
        assert.ok(refused.retryAfterSeconds > 0 && refused.retryAfterSeconds <= 12);

        const throttles = [new LoginThrottle(o.a, 3), new LoginThrottle(other, 3)];
        for (let i = 0; i < 3; i++) {
          assert.equal(await throttles[i % 2]!.retryAfterMs('carol', '10.0.0.1'), 0);
          await throttles[i % 2]!.recordFailure('carol', '10.0.0.1');
        }
        assert.ok((await throttles[0]!.retryAfterMs('carol', '10.0.0.1')) > 0);
        assert.ok((await throttles[1]!.retryAfterMs('Carol', '10.0.0.1')) > 0);
        assert.equal(await throttles[1]!.retryAfterMs('carol', '10.0.0.2'), 0);
        assert.equal(
          await new LoginThrottle(o.a, 3, 'fever').retryAfterMs('carol', '10.0.0.1'),
          0,
          'throttles of another namespace count apart',
        );
        await throttles[1]!.recordSuccess('carol', '10.0.0.1');
        assert.equal(await throttles[0]!.retryAfterMs('carol', '10.0.0.1'), 0, 'a success clears it everywhere');
      } finally {
        await o.close();
      }
    });
  });
}
