// CPU per sonar answer of one checkout in a process of its own (issue 26.4): the served case, one
// heap, for changes of the garbage an answer makes, which bench/answer-cpu-pair.bench.ts (two
// trees in one heap) misattributes. Run it for two checkouts in turn, alternating which goes first,
// and compare the ratios of pairs. Prints the process CPU (with V8's GC and compiler threads), the
// main thread's, and with --threads each thread's (Linux, /proc/self/task).
//
//   node --max-semi-space-size=8 --heap-growing-percent=50 bench/answer-cpu-alone.bench.ts \
//        --tree /path/to/checkout --data <a copy of a chat-memory.bench.ts data folder> \
//        [--answers 680] [--warm 30] [--threads]
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerTree } from './answer-tree.ts';
import { flagValue } from './backend.ts';

const TREE = resolve(flagValue(process.argv, 'tree') ?? resolve(fileURLToPath(import.meta.url), '../..'));
const DATA = flagValue(process.argv, 'data');
const ANSWERS = Number(flagValue(process.argv, 'answers') ?? 680);
const WARM = Number(flagValue(process.argv, 'warm') ?? 30);
if (!DATA) {
  console.error('usage: node bench/answer-cpu-alone.bench.ts --data DIR [--tree CHECKOUT] (see the header)');
  process.exit(2);
}

const tree = await answerTree(TREE, DATA);
const ask = (i: number) => tree.ask(i);

/** CPU ticks (10 ms) of each thread, by name. */
function threads(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    const st = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    m.set(name, (m.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
  }
  return m;
}

for (let i = 0; i < WARM; i++) await ask(i);
const load0 = loadavg()[0]!;
const th0 = process.argv.includes('--threads') ? threads() : undefined;
const c0 = process.cpuUsage();
const t0 = process.threadCpuUsage();
for (let i = 0; i < ANSWERS; i++) await ask(i);
const c = process.cpuUsage(c0);
const t = process.threadCpuUsage(t0);
const ms = (us: number) => (us / 1000 / ANSWERS).toFixed(2);
console.log(
  `${TREE}: ${ANSWERS} answers after ${WARM}, CPU per answer ${ms(c.user + c.system)} ms (main thread ${ms(t.user + t.system)} ms); load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`,
);
if (th0)
  console.log(
    [...threads()].map(([k, v]) => `${k} ${(((v - (th0.get(k) ?? 0)) * 10) / ANSWERS).toFixed(2)} ms`).join(', '),
  );
await tree.close();
