// CPU an idle `tidings serve` uses: each server started on its own data folder (SQLite), left to
// settle (start-up, its one memory-reducing collection), then read in the same windows side by
// side: CPU ms a second (schedstat of every thread, ns) and how often its threads ran (wake-ups a
// second). Several checkouts at once, so a branch and main are measured under the same load.
//
//   node bench/idle-cpu.ts --tidings this=DATA --tidings main=/work/main:DATA2 [--settle 20] [--seconds 10] [--rounds 3]
//
// A data folder is opened read-write (migrations apply at start): give each side a copy.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from './backend.ts';
import { checkoutSpecs, serveCheckout } from './server-log.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  console.log(
    'usage: node bench/idle-cpu.ts --tidings LABEL=[CHECKOUT:]DATA … [--settle 20] [--seconds 10] [--rounds 3]',
  );
  process.exit(0);
}
const sides = checkoutSpecs(argv, ROOT);
if (!sides.length || sides.some((s) => !s.label || !s.data)) {
  console.error('usage: node bench/idle-cpu.ts --tidings LABEL=[CHECKOUT:]DATA … (see --help)');
  process.exit(2);
}
const SETTLE_S = Number(flagValue(argv, 'settle') ?? 20);
const SECONDS = Number(flagValue(argv, 'seconds') ?? 10);
const ROUNDS = Number(flagValue(argv, 'rounds') ?? 3);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** [ns on the CPU, times run] summed over the threads of pid (schedstat fields 1 and 3). */
function threads(pid: number): [number, number] {
  let ns = 0;
  let runs = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ');
      ns += Number(f[0]);
      runs += Number(f[2]);
    } catch {} // the thread ended while we read
  }
  return [ns, runs];
}

const children: ChildProcess[] = [];
try {
  const running = [];
  for (const s of sides) {
    const { child } = await serveCheckout(s.root, s.data, children);
    running.push({ ...s, pid: child.pid! });
  }
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  console.log(`idle CPU, ${ROUNDS} windows of ${SECONDS} s after ${SETTLE_S} s of settling; load ${load()}`);
  const per = new Map(running.map((s) => [s.label, [] as string[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const before = running.map((s) => threads(s.pid));
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    running.forEach((s, k) => {
      const [ns, runs] = threads(s.pid);
      per
        .get(s.label)!
        .push(
          `${((ns - before[k]![0]) / 1e6 / SECONDS).toFixed(2)} ms/s (${((runs - before[k]![1]) / SECONDS).toFixed(1)} runs/s)`,
        );
    });
  }
  for (const [label, windows] of per) console.log(`  ${label.padEnd(8)} ${windows.join(', ')}`);
  console.log(`load ${load()}`);
} finally {
  for (const c of children) c.kill('SIGTERM');
}
