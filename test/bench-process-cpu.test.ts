// The peer bench's server CPU per call comes from each thread's /proc/…/schedstat: it must count
// every thread of the process (Node's work runs on more than its main thread), and agree with the
// process's own getrusage, where the 10 ms ticks of /proc/…/stat could not tell 1 ms from 3.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { processTreeRunMs } from '../bench/process-cpu.ts';

// Busy for 150 ms of CPU on the main thread and on a worker thread at once, then reports the
// process's own CPU and waits, alive (the worker too: an ended thread's schedstat is gone), to be
// read.
const CHILD = `
const { Worker } = require('node:worker_threads');
const spin = "const c = () => { const u = process.threadCpuUsage(); return u.user + u.system; }; const t = c(); while (c() - t < 150000);";
const w = new Worker(spin + "require('node:worker_threads').parentPort.postMessage(1); setInterval(() => {}, 1000);", { eval: true });
let done = 0;
const report = () => { if (++done === 2) { const u = process.cpuUsage(); process.stdout.write((u.user + u.system) / 1000 + '\\n'); } };
w.once('message', report);
eval(spin); report();
setInterval(() => {}, 1000);
`;

test('processTreeRunMs counts all threads, as getrusage does', {
  skip: !existsSync('/proc/self/schedstat'),
}, async () => {
  const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const own = Number(line.toString().trim());
    const run = processTreeRunMs(child.pid!);
    // Both threads' 150 ms: reading the main thread alone would give about half.
    assert.ok(own >= 300, `the child used ${own} ms of CPU`);
    assert.ok(run >= 0.8 * own && run <= own + 20, `schedstat ${run} ms, getrusage ${own} ms`);
  } finally {
    child.kill();
  }
});
