// The server's JSON log destination: lines written in place, one write per turn of the event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { linesPerTurn } from './logger.ts';
import { ROOT } from '../../test/helpers.ts';

const nextTurn = () => new Promise((r) => setImmediate(r));

test('the lines of one turn of the event loop are written in one write, at the end of that turn', async () => {
  const writes: string[] = [];
  const dest = linesPerTurn((text) => writes.push(text));
  dest.write('a\n');
  dest.write('b\n');
  dest.write('c\n');
  assert.deepEqual(writes, [], 'nothing is written while the turn goes on');
  await nextTurn();
  assert.deepEqual(writes, ['a\nb\nc\n']);
  dest.write('d\n');
  await nextTurn();
  assert.deepEqual(writes, ['a\nb\nc\n', 'd\n']);
});

test("a server's JSON lines are on stderr by the next turn: none lost when the process is then killed", () => {
  // 200 lines, then SIGKILL one turn later. Through libuv's thread pool (pino.destination(2)),
  // all but the first would still be queued in the process and lost.
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/log/logger.ts'))});
    const log = createLogger('info', 'json', false);
    for (let i = 0; i < 200; i++) log.info({ i }, 'request');
    setImmediate(() => process.kill(process.pid, 'SIGKILL'));`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.includes('"msg":"request"'));
  assert.equal(lines.length, 200, r.stderr.slice(0, 500));
});

test('pending lines are written when the process exits', () => {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/log/logger.ts'))});
    createLogger('info', 'json', false).info('last words');
    process.exit(3);`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /"msg":"last words"/);
});
