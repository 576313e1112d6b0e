// One Reader call at a time with a pause before each, as a client syncing now and then makes it
// (and as bench/reader-peer-rounds.ts does, between FreshRSS's long calls): each server's CPU in
// the call's window and in the 10 ms after its last byte, from every thread's schedstat, split
// into the main (JavaScript) thread and the others (V8's GC helpers, libuv's pool). Several
// checkouts side by side, calls alternating, so a branch and main see the same load.
//
//   node bench/reader-cold-call.ts --tidings this=DATA --tidings main=/work/main:DATA2 [--gap 30] [--calls 200]
//        [--call 'items/contents 150 ids'] (a name from bench/greader-calls.ts)
//
// DATA: a folder of `node bench/freshrss-peer.bench.ts --keep` (user bench / bench-password), one copy a side.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from './backend.ts';
import { readerCalls, sendLean } from './greader-calls.ts';
import { checkoutSpecs, serveCheckout } from './server-log.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const argv = process.argv.slice(2);
const USAGE =
  "usage: node bench/reader-cold-call.ts --tidings LABEL=[CHECKOUT:]DATA … [--gap 30] [--calls 200] [--call 'items/contents 150 ids']";
if (argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
const specs = checkoutSpecs(argv, ROOT);
if (!specs.length || specs.some((s) => !s.label || !s.data)) {
  console.error(USAGE);
  process.exit(2);
}
const GAP_MS = Number(flagValue(argv, 'gap') ?? 30);
const CALLS = Number(flagValue(argv, 'calls') ?? 200);
const CALL = flagValue(argv, 'call') ?? 'items/contents 150 ids';
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** [main thread, other threads] ms on the CPU so far. */
function cpu(pid: number): [number, number] {
  let main = 0;
  let other = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      if (Number(t) === pid) main += ns;
      else other += ns;
    } catch {} // the thread ended while we read
  }
  return [main / 1e6, other / 1e6];
}

const children: ChildProcess[] = [];
try {
  const sides = [];
  for (const s of specs) {
    const { child, url: base } = await serveCheckout(s.root, s.data, children);
    const call = (await readerCalls(base, 'bench', 'bench-password')).calls.get(CALL);
    if (!call) throw new Error(`no call named ${CALL} in bench/greader-calls.ts`);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 10; i++) await sendLean(agent, call);
    sides.push({
      ...s,
      pid: child.pid!,
      call,
      agent,
      wall: [] as number[],
      inMain: [] as number[],
      inOther: [] as number[],
      after: [] as number[],
    });
  }
  const loadBefore = load();
  for (let i = 0; i < CALLS; i++)
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(i + k) % sides.length]!;
      await sleep(GAP_MS);
      const a = cpu(s.pid);
      const t0 = performance.now();
      const [status] = await sendLean(s.agent, s.call);
      s.wall.push(performance.now() - t0);
      if (status !== 200) throw new Error(`${s.label}: ${CALL} answered ${status}`);
      const b = cpu(s.pid);
      await sleep(10);
      const c = cpu(s.pid);
      s.inMain.push(b[0] - a[0]);
      s.inOther.push(b[1] - a[1]);
      s.after.push(c[0] + c[1] - b[0] - b[1]);
    }
  const q = (x: number[], p: number) => [...x].sort((m, n) => m - n)[Math.min(x.length - 1, Math.floor(x.length * p))]!;
  const mean = (x: number[]) => x.reduce((m, n) => m + n, 0) / x.length;
  console.log(
    `${CALL}, ${CALLS} calls a side, ${GAP_MS} ms apart, node:http keep-alive; load ${loadBefore} -> ${load()}`,
  );
  for (const s of sides)
    console.log(
      `  ${s.label.padEnd(8)} wall p50 ${q(s.wall, 0.5).toFixed(2)} p90 ${q(s.wall, 0.9).toFixed(2)} ms | CPU in the call ${mean(s.inMain).toFixed(2)} main + ${mean(s.inOther).toFixed(2)} other = ${(mean(s.inMain) + mean(s.inOther)).toFixed(2)} ms | 10 ms after ${mean(s.after).toFixed(2)} ms | total ${(mean(s.inMain) + mean(s.inOther) + mean(s.after)).toFixed(2)} ms`,
    );
} finally {
  for (const c of children) c.kill('SIGTERM');
}
