import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginThrottle } from './login-throttle.ts';

test('failures are limited per account and address over a sliding minute', () => {
  let now = 1_000_000;
  const t = new LoginThrottle(3, () => now);
  for (let i = 0; i < 3; i++) {
    assert.equal(t.retryAfterMs('Alice', '10.0.0.1'), 0);
    t.recordFailure('Alice', '10.0.0.1');
    now += 1000;
  }
  const wait = t.retryAfterMs('alice', '10.0.0.1');
  assert.equal(
    wait,
    60_000 - 3000,
    'usernames compare case-insensitively; the wait ends when the oldest failure leaves the window',
  );
  assert.equal(t.retryAfterMs('alice', '10.0.0.2'), 0, 'another address is not blocked');
  assert.equal(t.retryAfterMs('bob', '10.0.0.1'), 0, 'another account from the same address is not blocked');
  now += wait;
  assert.equal(t.retryAfterMs('alice', '10.0.0.1'), 0);
});

test('one address spraying many usernames is limited too (five times the per-account limit)', () => {
  let now = 0;
  const t = new LoginThrottle(2, () => now);
  for (let i = 0; i < 10; i++) {
    assert.equal(t.retryAfterMs(`user${i}`, '10.0.0.9'), 0, `attempt ${i}`);
    t.recordFailure(`user${i}`, '10.0.0.9');
    now += 10;
  }
  assert.ok(t.retryAfterMs('someone-new', '10.0.0.9') > 0);
  assert.equal(t.retryAfterMs('someone-new', '10.0.0.8'), 0);
});

test('a success clears the account counter', () => {
  const t = new LoginThrottle(2, () => 0);
  t.recordFailure('alice', 'ip');
  t.recordSuccess('alice', 'ip');
  t.recordFailure('alice', 'ip');
  assert.equal(t.retryAfterMs('alice', 'ip'), 0);
});

test('failures of one username from many addresses bring doubling delays, capped, skipped by known addresses', () => {
  let now = 0;
  const t = new LoginThrottle(2, () => now);
  t.recordSuccess('alice', 'home');
  const delays: number[] = [];
  for (let i = 0; i < 10; i++) {
    const s = t.slowDown('Alice', `10.0.0.${i}`);
    assert.ok('delayMs' in s);
    delays.push(s.delayMs);
    t.recordFailure('alice', `10.0.0.${i}`);
    now += 10;
  }
  assert.deepEqual(delays, [0, 0, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.deepEqual(t.slowDown('alice', 'home'), { delayMs: 0 }, 'the address the user logged in from is not slowed');
  assert.deepEqual(t.slowDown('bob', '10.0.0.1'), { delayMs: 0 }, 'other usernames are not slowed');
  t.startDelayed('alice');
  t.startDelayed('alice');
  assert.deepEqual(t.slowDown('alice', '10.0.0.99'), { busyRetryAfterMs: 30000 }, 'two delayed attempts wait at most');
  t.endDelayed('alice');
  assert.ok('delayMs' in t.slowDown('alice', '10.0.0.99'));
  now += 15 * 60_000;
  assert.deepEqual(t.slowDown('alice', '10.0.0.99'), { delayMs: 0 }, 'failures leave the 15-minute window');
});
