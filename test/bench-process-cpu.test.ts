// The peer bench's server CPU per call comes from each thread's /proc/…/schedstat: it must count
// every thread of the process (Node's work runs on more than its main thread), and agree with the
// process's own getrusage, where the 10 ms ticks of /proc/…/stat could not tell 1 ms from 3.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { processCpuS, processTreeRunMs, reapedChildrenCpuS } from '../bench/process-cpu.ts';

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

// Busy for 150 ms on a worker thread that then ends and 150 ms on the main thread, reports its own
// CPU, and exits when its stdin closes.
const ENDED_WORKER_CHILD = `
const { Worker } = require('node:worker_threads');
const spin = "const c = () => { const u = process.threadCpuUsage(); return u.user + u.system; }; const t = c(); while (c() - t < 150000);";
const w = new Worker(spin, { eval: true });
w.once('exit', () => {
  eval(spin);
  const u = process.cpuUsage();
  process.stdout.write((u.user + u.system) / 1000 + '\\n');
  process.stdin.resume();
  process.stdin.once('end', () => process.exit(0));
});
`;

test('processCpuS counts threads that ended, and reapedChildrenCpuS a child up to its exit', {
  skip: !existsSync('/proc/self/stat'),
}, async () => {
  const reaped0 = reapedChildrenCpuS();
  const child = spawn(process.execPath, ['-e', ENDED_WORKER_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const own = Number(line.toString().trim()) / 1000;
  const sampled = processCpuS(child.pid!);
  const liveThreads = processTreeRunMs(child.pid!) / 1000;
  child.stdin.end();
  await once(child, 'exit');
  const reaped = reapedChildrenCpuS() - reaped0;
  assert.ok(own >= 0.3, `the child used ${own} s of CPU`);
  // The ended worker's 150 ms is gone from the live threads' schedstat but not from the process's
  // count (ticks of 10 ms, charged to whoever holds the core at each one).
  assert.ok(liveThreads < own - 0.1, `live threads ${liveThreads} s, getrusage ${own} s`);
  assert.ok(sampled >= own - 0.05 && sampled <= own + 0.05, `/proc/PID/stat ${sampled} s, getrusage ${own} s`);
  assert.ok(reaped >= own - 0.03, `reaped ${reaped} s, getrusage ${own} s before exit`);
});
