// bench/chat-memory.bench.ts: the first server of a run idled ~20 MB higher and spent more CPU
// per answer, and it was always the same checkout (the first in round 1). Every checkout now serves a discarded warm-up before any measured round.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chatMemoryRuns } from '../bench/chat-memory-order.ts';

test('every checkout is warmed, unmeasured, before the first measured server', () => {
  const runs = chatMemoryRuns(['this', 'main'], 4, 200);
  const firstMeasured = runs.findIndex((r) => r.measured);
  assert.deepEqual(
    runs
      .slice(0, firstMeasured)
      .map((r) => r.checkout)
      .sort(),
    ['main', 'this'],
    'both checkouts warm the folder before round 1',
  );
  assert.ok(runs.slice(0, firstMeasured).every((r) => r.round === 0));
  assert.deepEqual(
    runs.filter((r) => r.measured).map((r) => `${r.round}:${r.checkout}`),
    ['1:this', '1:main', '2:main', '2:this', '3:this', '3:main', '4:main', '4:this'],
    'measured rounds still alternate which checkout goes first',
  );
});

test('--warm 0 measures from the first server on; bad counts are refused with the flag named', () => {
  assert.ok(chatMemoryRuns(['this'], 2, 0).every((r) => r.measured));
  assert.throws(() => chatMemoryRuns(['this'], 0, 200), /--rounds 0/);
  assert.throws(() => chatMemoryRuns(['this'], 2, Number.NaN), /--warm NaN/);
  assert.throws(() => chatMemoryRuns(['this'], 2, -1), /--warm -1/);
});

test('chat-memory bench --help prints the options and builds nothing', () => {
  const r = spawnSync(process.execPath, ['bench/chat-memory.bench.ts', '--help'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /--warm N/);
  assert.doesNotMatch(r.stderr, /building/);
});
