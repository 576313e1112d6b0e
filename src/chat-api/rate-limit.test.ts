import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeakyBucketLimiter, rateLimitTable, formatReset } from './rate-limit.ts';
import { MemoryLimitCounters } from '../store/memory/limit-counters.ts';

test('a bucket takes a burst up to the limit, then refills continuously at limit per minute', async () => {
  let now = 1_000_000;
  const l = new LeakyBucketLimiter(new MemoryLimitCounters(), () => now);
  for (let i = 0; i < 60; i++) assert.equal((await l.take('k', 60)).allowed, true, `request ${i}`);
  const refused = await l.take('k', 60);
  assert.equal(refused.allowed, false);
  assert.equal(refused.remaining, 0);
  assert.ok(Math.abs(refused.retryAfterSeconds - 1) < 1e-6, 'one request drains per second at 60/min');
  assert.ok(Math.abs(refused.resetSeconds - 60) < 1e-6);
  now += 500;
  assert.equal((await l.take('k', 60)).allowed, false, 'half a slot is not enough');
  now += 500;
  assert.equal((await l.take('k', 60)).allowed, true);
  now += 30_000;
  const d = await l.take('k', 60);
  assert.equal(d.allowed, true);
  assert.equal(d.remaining, 29, '30 slots drained, this request took one');
  assert.equal((await l.take('other', 60)).remaining, 59, 'buckets are independent');
});

test('a higher limit applies to the same bucket at once', async () => {
  const l = new LeakyBucketLimiter(new MemoryLimitCounters(), () => 0);
  for (let i = 0; i < 5; i++) await l.take('k', 5);
  assert.equal((await l.take('k', 5)).allowed, false);
  const d = await l.take('k', 10);
  assert.equal(d.allowed, true);
  assert.equal(d.remaining, 4);
});

test('rate limit table overrides are checked', () => {
  assert.deepEqual(rateLimitTable().sonar, [50, 150, 500, 1000, 4000, 4000]);
  assert.deepEqual(rateLimitTable()['deep-research'], [5, 10, 20, 40, 60, 100]);
  assert.deepEqual(rateLimitTable({ sonar: [1, 2, 3, 4, 5, 6] }).sonar, [1, 2, 3, 4, 5, 6]);
  assert.throws(() => rateLimitTable({ gpt: [1, 2, 3, 4, 5, 6] }), /unknown family "gpt"/);
  assert.throws(() => rateLimitTable({ sonar: [1, 2] }), /must be 6 positive integers/);
});

test('reset durations are formatted like OpenAI headers', () => {
  assert.equal(formatReset(0), '0s');
  assert.equal(formatReset(1.234), '1.2s');
  assert.equal(formatReset(360), '6m0s');
});
