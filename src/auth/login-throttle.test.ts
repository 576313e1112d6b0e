import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginThrottle } from './login-throttle.ts';
import { MemoryLimitCounters } from '../store/memory/limit-counters.ts';

const throttle = (perMinute: number, now: () => number) =>
  new LoginThrottle(new MemoryLimitCounters(), perMinute, 'login', now);

test('failures are limited per account and address over a sliding minute', async () => {
  let now = 1_000_000;
  const t = throttle(3, () => now);
  for (let i = 0; i < 3; i++) {
    assert.equal(await t.retryAfterMs('Alice', '10.0.0.1'), 0);
    await t.recordFailure('Alice', '10.0.0.1');
    now += 1000;
  }
  const wait = await t.retryAfterMs('alice', '10.0.0.1');
  assert.equal(
    wait,
    60_000 - 3000,
    'usernames compare case-insensitively; the wait ends when the oldest failure leaves the window',
  );
  assert.equal(await t.retryAfterMs('alice', '10.0.0.2'), 0, 'another address is not blocked');
  assert.equal(await t.retryAfterMs('bob', '10.0.0.1'), 0, 'another account from the same address is not blocked');
  now += wait;
  assert.equal(await t.retryAfterMs('alice', '10.0.0.1'), 0);
});

test('one address spraying many usernames is limited too (five times the per-account limit)', async () => {
  let now = 0;
  const t = throttle(2, () => now);
  for (let i = 0; i < 10; i++) {
    assert.equal(await t.retryAfterMs(`user${i}`, '10.0.0.9'), 0, `attempt ${i}`);
    await t.recordFailure(`user${i}`, '10.0.0.9');
    now += 10;
  }
  assert.ok((await t.retryAfterMs('someone-new', '10.0.0.9')) > 0);
  assert.equal(await t.retryAfterMs('someone-new', '10.0.0.8'), 0);
});

test('a success clears the account counter', async () => {
  const t = throttle(2, () => 0);
  await t.recordFailure('alice', 'ip');
  await t.recordSuccess('alice', 'ip');
  await t.recordFailure('alice', 'ip');
  assert.equal(await t.retryAfterMs('alice', 'ip'), 0);
});

test('failures of one username from many addresses bring doubling delays, capped, skipped by known addresses', async () => {
  let now = 0;
  const t = throttle(2, () => now);
  await t.recordSuccess('alice', 'home');
  const delays: number[] = [];
  for (let i = 0; i < 10; i++) {
    const s = await t.slowDown('Alice', `10.0.0.${i}`);
    assert.ok('delayMs' in s);
    delays.push(s.delayMs);
    if ('slot' in s) await t.release('alice', s.slot);
    await t.recordFailure('alice', `10.0.0.${i}`);
    now += 10;
  }
  assert.deepEqual(delays, [0, 0, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.deepEqual(
    await t.slowDown('alice', 'home'),
    { delayMs: 0 },
    'the address the user logged in from is not slowed',
  );
  assert.deepEqual(await t.slowDown('bob', '10.0.0.1'), { delayMs: 0 }, 'other usernames are not slowed');
  const first = await t.slowDown('alice', '10.0.0.97');
  const second = await t.slowDown('alice', '10.0.0.98');
  assert.ok('slot' in first && 'slot' in second, 'a delayed attempt holds a slot');
  assert.deepEqual(
    await t.slowDown('alice', '10.0.0.99'),
    { busyRetryAfterMs: 30000 },
    'two delayed attempts wait at most',
  );
  await t.release('alice', first.slot);
  const third = await t.slowDown('alice', '10.0.0.99');
  assert.ok('slot' in third, 'a released slot is free again');
  now += 30_000 + 60_000 + 1;
  assert.ok('slot' in (await t.slowDown('alice', '10.0.0.96')), 'slots of attempts that never released them expire');
  now += 15 * 60_000;
  assert.deepEqual(await t.slowDown('alice', '10.0.0.99'), { delayMs: 0 }, 'failures leave the 15-minute window');
});
