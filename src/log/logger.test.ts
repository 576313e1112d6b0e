// The server's JSON log destination: lines written in place, one write per turn of the event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
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

test('a stderr reader that falls behind never holds the event loop, and no line is lost or reordered', async () => {
  // The child logs 4,000 lines (~800 KB, far past a pipe's 64 KB) while this process does not read
  // its stderr, measuring the longest gap of a 5 ms timer; reading starts once it has reported.
  // Waiting for the reader in place held every request for up to a second, then lost the lines.
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/log/logger.ts'))});
    const log = createLogger('info', 'json', false);
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    let i = 0;
    const burst = () => {
      for (let k = 0; k < 200; k++) log.info({ i: i++, pad: 'x'.repeat(120) }, 'request');
      if (i < 4000) return setTimeout(burst, 5);
      setTimeout(() => {
        clearInterval(timer);
        process.stdout.write(JSON.stringify({ worst }) + '\\n');
        setTimeout(() => {}, 3000);
      }, 200);
    };
    burst();`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const reported = new Promise<{ worst: number }>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as { worst: number });
    });
    child.once('exit', () => reject(new Error(`child exited before reporting: ${out}`)));
  });
  const { worst } = await reported;
  let err = '';
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString();
  });
  await once(child, 'close');
  const numbers = err
    .split('\n')
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => (JSON.parse(l) as { i: number }).i);
  assert.equal(numbers.length, 4000, 'every line reaches the reader');
  assert.ok(
    numbers.every((n, k) => n === k),
    'in the order logged',
  );
  assert.ok(worst < 500, `the event loop was held ${worst.toFixed(0)} ms while stderr's reader was behind`);
});
