// `npm run bench:search -- --help` printed nothing and started a run of many minutes: the bench's
// options are checked before anything runs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { checkArgs, scaleSizes } from '../bench/search.bench.ts';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['bench/search.bench.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

test('bench:search --help prints the options and runs nothing', () => {
  for (const flag of ['--help', '-h']) {
    const r = run(flag);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /--scale 1m/);
    assert.doesNotMatch(r.stdout, /## (Quality|Scale)/);
  }
});

test('bench:search refuses an unknown option or a bad value, saying which', () => {
  const r = run('--no-quality', '--sclae', '1m');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown option "--sclae"/);
  assert.equal(checkArgs(['--scale', '2x']), '--scale takes sizes such as 1m or 200k,2m,4m, got "2x"');
  assert.equal(checkArgs(['--scale', '1m,0k']), '--scale takes sizes such as 1m or 200k,2m,4m, got "1m,0k"');
  assert.deepEqual(scaleSizes('200k,2m,4M,2.5m'), [200_000, 2_000_000, 4_000_000, 2_500_000]);
  assert.equal(checkArgs(['--data']), '--data needs a value');
  assert.equal(checkArgs(['--no-quality', '--scale', '1m', '--backend', 'both', '--data', '/tmp/x']), null);
});
