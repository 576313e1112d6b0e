import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postingIntervalSeconds, scheduleAfterFailure, scheduleAfterSuccess } from './next-fetch.ts';

const policy = { minIntervalMinutes: 15, maxIntervalMinutes: 1440 };
const now = 1_800_000_000;
const mid = () => 0.5; // no jitter

test('the interval follows the posting frequency, clamped to the configured bounds', () => {
  const hourly = Array.from({ length: 10 }, (_, i) => now - 600 - i * 3600);
  assert.equal(postingIntervalSeconds(hourly, now), 3600);
  assert.equal(scheduleAfterSuccess(policy, { now, publishTimes: hourly, random: mid }).intervalSeconds, 3600);
  const busy = Array.from({ length: 10 }, (_, i) => now - i * 60);
  assert.equal(scheduleAfterSuccess(policy, { now, publishTimes: busy, random: mid }).intervalSeconds, 15 * 60);
  const dormant = [now - 400 * 86400, now - 401 * 86400];
  assert.equal(scheduleAfterSuccess(policy, { now, publishTimes: dormant, random: mid }).intervalSeconds, 86400);
  assert.equal(scheduleAfterSuccess(policy, { now, publishTimes: [], random: mid }).intervalSeconds, 3600);
});

test('TTL and Cache-Control max-age raise the interval but never past the maximum', () => {
  const busy = Array.from({ length: 10 }, (_, i) => now - i * 60);
  assert.equal(
    scheduleAfterSuccess(policy, { now, publishTimes: busy, ttlMinutes: 120, random: mid }).intervalSeconds,
    7200,
  );
  assert.equal(
    scheduleAfterSuccess(policy, { now, publishTimes: busy, maxAgeSeconds: 5400, random: mid }).intervalSeconds,
    5400,
  );
  assert.equal(
    scheduleAfterSuccess(policy, { now, publishTimes: busy, ttlMinutes: 100_000, random: mid }).intervalSeconds,
    86400,
  );
});

test('failures back off exponentially with jitter, capped at the maximum, and honour Retry-After', () => {
  const seq = [1, 2, 3, 4].map(
    (n) => scheduleAfterFailure(policy, { now, errorCount: n, random: mid }).intervalSeconds,
  );
  assert.deepEqual(seq, [900, 1800, 3600, 7200]);
  assert.equal(scheduleAfterFailure(policy, { now, errorCount: 50, random: mid }).intervalSeconds, 86400);
  const low = scheduleAfterFailure(policy, { now, errorCount: 1, random: () => 0 }).intervalSeconds;
  const high = scheduleAfterFailure(policy, { now, errorCount: 1, random: () => 0.999 }).intervalSeconds;
  assert.ok(low < 900 && high > 900 && low >= 675 && high <= 1125);
  const r = scheduleAfterFailure(policy, { now, errorCount: 1, retryAfterSeconds: 7200, random: mid });
  assert.equal(r.nextFetchAt, now + 7200);
});
