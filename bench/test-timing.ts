// The suite's slowest files and tests, from logs of bench/test-timing-reporter.ts, and a second run
// against the first: tests run, passed, failed and skipped, the sum of the files' times, the time
// one of the two lanes idled, and the slowest files of the first run with their time in the second.
//
//   node bench/test-timing.ts before.jsonl [after.jsonl] [--top N]
import { readFileSync } from 'node:fs';

interface Row {
  t: number;
  type: string;
  file?: string;
  name?: string;
  nesting?: number;
  ms?: number;
  skip?: unknown;
  todo?: unknown;
  err?: string;
}
interface Run {
  files: Map<string, { ms: number; start?: number; tests: Row[] }>;
  pass: number;
  fail: number;
  skip: number;
  fails: string[];
  wall: number;
}

const rel = (p: string | undefined) => (p ?? '').replace(/^.*?\/((?:src|test)\/.*)$/, '$1');

function load(path: string): Run {
  const rows = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
  const run: Run = { files: new Map(), pass: 0, fail: 0, skip: 0, fails: [], wall: 0 };
  const t0 = Math.min(...rows.map((r) => r.t));
  run.wall = (Math.max(...rows.map((r) => r.t)) - t0) / 1000;
  for (const r of rows) {
    if (!r.file) continue;
    const file = rel(r.file);
    const own = rel(r.name) === file;
    const f = run.files.get(file) ?? { ms: 0, tests: [] };
    run.files.set(file, f);
    if (r.type === 'test:dequeue' && own && f.start === undefined) f.start = r.t - t0;
    if (r.type === 'test:complete' && r.nesting === 0) {
      if (own) f.ms = r.ms ?? 0;
      else f.tests.push(r);
    }
    if ((r.type === 'test:pass' || r.type === 'test:fail') && !own) {
      if (r.skip || r.todo) run.skip++;
      else if (r.type === 'test:pass') run.pass++;
      else {
        run.fail++;
        run.fails.push(`${file}: ${r.name}: ${(r.err ?? '').split('\n')[0]}`);
      }
    }
  }
  return run;
}

/** Seconds during which only one file ran (the other lane idle) while files remained to finish. */
function oneLaneIdle(run: Run): number {
  const edges = [...run.files.values()]
    .filter((f) => f.start !== undefined)
    .flatMap((f) => [
      [f.start!, 1],
      [f.start! + f.ms, -1],
    ])
    .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let running = 0,
    last = 0,
    idle = 0;
  for (const [t, d] of edges) {
    if (running === 1) idle += t! - last;
    running += d!;
    last = t!;
  }
  return idle / 1000;
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
if (!args.length) {
  console.error('usage: node bench/test-timing.ts before.jsonl [after.jsonl] [--top N]');
  process.exit(2);
}
const runs = args.map((p) => [p, load(p)] as const);
for (const [path, r] of runs) {
  const sum = [...r.files.values()].reduce((s, f) => s + f.ms, 0) / 1000;
  console.log(
    `${path}: ${r.files.size} files, ${r.pass + r.fail + r.skip} tests (${r.pass} pass, ${r.fail} fail, ${r.skip} skipped); ` +
      `${r.wall.toFixed(0)} s from first to last event, files ${sum.toFixed(0)} s in all, one lane idle ${oneLaneIdle(r).toFixed(0)} s`,
  );
  for (const f of r.fails) console.log(`  failed: ${f.slice(0, 200)}`);
}
const [first, second] = [runs[0]![1], runs[1]?.[1]];
console.log(`\n| file | ${second ? 'first s | second s | second / first' : 'time s'} | slowest tests (first run) |`);
console.log(`|---|${second ? '---|---|---|' : '---|'}---|`);
for (const [file, f] of [...first.files].sort((a, b) => b[1].ms - a[1].ms).slice(0, top)) {
  const g = second?.files.get(file);
  const slowest = f.tests
    .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))
    .slice(0, 2)
    .map((t) => `${(t.name ?? '').slice(0, 50)} (${((t.ms ?? 0) / 1000).toFixed(1)} s)`)
    .join('; ');
  const times = second
    ? `${(f.ms / 1000).toFixed(1)} | ${g ? (g.ms / 1000).toFixed(1) : '-'} | ${g ? (g.ms / f.ms).toFixed(2) : '-'}`
    : (f.ms / 1000).toFixed(1);
  console.log(`| ${file} | ${times} | ${slowest} |`);
}
