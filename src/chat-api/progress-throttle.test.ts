import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressThrottle } from './async-jobs.ts';

test('the first progress report is always stored, even in a process younger than the interval', () => {
  let now = 5; // ms since the process started
  const shouldWrite = progressThrottle(1000, () => now);
  assert.equal(shouldWrite(false), true, 'first report');
  now = 400;
  assert.equal(shouldWrite(false), false, 'within the interval');
  assert.equal(shouldWrite(true), true, 'the final report always');
  now = 1500;
  assert.equal(shouldWrite(false), true, 'an interval after the last write');
});
