// How long `tidings --version` and `tidings --help` take as whole processes, against `node -e 0`
// (the floor: Node's own start) measured in the same run, in turn (baseline, --version, --help,
// …) so a machine that slows down mid-run slows all alike. Figures are medians of wall time.
//
//   node bench/cli-start.bench.ts [runs=30] [--before <checkout>]
//
// --before names another checkout (an older commit, with node_modules) whose bin/tidings.js is
// timed in the same rounds, for a before/after ratio.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../test/helpers.ts';

const args = process.argv.slice(2);
const beforeAt = args.indexOf('--before');
const before = beforeAt >= 0 ? args.splice(beforeAt, 2)[1] : undefined;
const runs = Number(args[0] ?? 30);

const cases: { name: string; argv: string[] }[] = [
  { name: 'node -e 0 (baseline)', argv: ['-e', '0'] },
  { name: 'tidings --version', argv: [join(ROOT, 'bin/tidings.js'), '--version'] },
  { name: 'tidings --help', argv: [join(ROOT, 'bin/tidings.js'), '--help'] },
];
if (before) {
  cases.push({ name: 'before: tidings --version', argv: [join(before, 'bin/tidings.js'), '--version'] });
  cases.push({ name: 'before: tidings --help', argv: [join(before, 'bin/tidings.js'), '--help'] });
}

const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
const once = (c: (typeof cases)[number]) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, c.argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${c.name} exited with ${r.status}: ${r.stderr}`);
  return ms;
};
for (const c of cases) once(c); // warm-up: the compile cache (scripts/process-setup.js) is written
for (let i = 0; i < runs; i++) for (const c of cases) times.get(c.name)!.push(once(c));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const base = median(times.get(cases[0]!.name)!);
console.log(`${runs} runs each, in turn; median wall time of the whole process`);
for (const c of cases) {
  const m = median(times.get(c.name)!);
  const xs = times.get(c.name)!;
  console.log(
    `${c.name.padEnd(28)} ${m.toFixed(1).padStart(7)} ms  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})  ${(m / base).toFixed(2)}x baseline`,
  );
}
if (before) {
  for (const what of ['--version', '--help'])
    console.log(
      `after/before ${what}: ${(median(times.get(`tidings ${what}`)!) / median(times.get(`before: tidings ${what}`)!)).toFixed(2)}x`,
    );
}
