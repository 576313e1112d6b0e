// `node bench/refresh-scaling.bench.ts --help` started a full run (minutes of refreshes) instead of
// printing the options.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('refresh-scaling bench --help prints the options and runs nothing', () => {
  for (const flag of ['--help', '-h']) {
    const r = spawnSync(process.execPath, ['bench/refresh-scaling.bench.ts', flag], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /--sizes 250,500,1000/);
    assert.match(r.stdout, /--baseline DIR/);
    assert.doesNotMatch(r.stdout, /^refresh scaling, /m);
  }
});
