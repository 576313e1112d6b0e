// The suite runner (test/run-suite.ts) runs the same files `node --test` would, the measured
// slowest first, and refuses options it does not know rather than ignoring them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, globSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.ts';
import { orderedFiles, parseArgs, SLOWEST_FIRST } from './run-suite.ts';

const PATTERNS = ['src/**/*.test.ts', 'test/**/*.test.ts'];

test('every test file runs once, the measured slowest first in their order, then the rest by name', () => {
  const files = orderedFiles(PATTERNS);
  const globbed = PATTERNS.flatMap((p) => globSync(p, { cwd: ROOT }));
  assert.deepEqual([...files].sort(), [...new Set(globbed)].sort());
  const slow = SLOWEST_FIRST.filter((f) => files.includes(f));
  assert.deepEqual(files.slice(0, slow.length), slow);
  const rest = files.slice(slow.length);
  assert.deepEqual(rest, [...rest].sort());
});

test('the slowest-first list names files that exist (a renamed file would silently lose its place)', () => {
  for (const f of SLOWEST_FIRST) assert.ok(existsSync(join(ROOT, f)), `${f} is in SLOWEST_FIRST but does not exist`);
  assert.equal(new Set(SLOWEST_FIRST).size, SLOWEST_FIRST.length);
});

test('options: node --test spellings, defaults of the README command, and a clear error otherwise', () => {
  assert.deepEqual(parseArgs([]), {
    patterns: [],
    reporters: ['spec'],
    destinations: ['stdout'],
    concurrency: 2,
    timeout: 120_000,
  });
  const o = parseArgs([
    '--test-reporter=tap',
    '--test-reporter-destination=out.tap',
    '--test-concurrency=1',
    'test/x.test.ts',
  ]);
  assert.deepEqual(o, {
    patterns: ['test/x.test.ts'],
    reporters: ['tap'],
    destinations: ['out.tap'],
    concurrency: 1,
    timeout: 120_000,
  });
  assert.throws(() => parseArgs(['--only']), /unknown option --only/);
  assert.throws(() => parseArgs(['--test-concurrency=two']), /take a number/);
});
