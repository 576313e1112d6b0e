// The memory of a process with parse threads on a cold compile cache (a checkout's first run after
// a clone, a `git pull`, a new Node, a cleared temp folder), as `tidings serve` starts them. "cold":
// the process and each parse thread strip their modules' types themselves, and every one of them
// keeps Node's TypeScript stripper loaded (a `tidings refresh`). "started over": a first process
// loads the main thread's modules (ed6faa4's server), or those and the threads' bodies (this
// branch: src/cli/thread-modules.ts), writes the cache and exits; a second one on that cache
// measures, as the image a server's first start starts over into (src/runtime/type-stripper.ts).
// Each measured process parses a feed on each parse thread, then reports its RSS, its peak and
// how many threads (main included) loaded the stripper. The cases alternate, the order reversed
// each round.
//
//   node bench/thread-stripper.bench.ts [--rounds 3] [--threads 1]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { flagValue } from './backend.ts';

const ROUNDS = Number(flagValue(process.argv, 'rounds') ?? 3);
const THREADS = Number(flagValue(process.argv, 'threads') ?? 1);
const dir = mkdtempSync(join(tmpdir(), 'tidings-thread-stripper-'));
const probe = join(dir, 'probe.mjs');
writeFileSync(
  probe,
  "export const runInWorker = () => process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index'));",
);
const src = new URL('../src/', import.meta.url).href;
const items = Array.from(
  { length: 50 },
  (_, i) =>
    `<item><title>Item ${i}</title><link>https://example.com/${i}</link><guid>g${i}</guid><description>&lt;p&gt;Paragraph ${i} of the feed.&lt;/p&gt;</description></item>`,
).join('');
const feed = `<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title><link>https://example.com/</link>${items}</channel></rss>`;
const script = join(dir, 'run.mjs');
writeFileSync(
  script,
  `const { loadWorkerThreadModules } = await import('${src}cli/thread-modules.ts');
const { ParsePool } = await import('${src}feeds/parse-pool/parse-pool.ts');
if (process.env.PRIME) {
  if (process.env.PRIME === 'threads') await loadWorkerThreadModules();
  (await import('node:module')).flushCompileCache();
  process.exit(0);
}
const pool = new ParsePool(${THREADS});
const body = ${JSON.stringify(feed)};
await Promise.all(Array.from({ length: ${THREADS} * 4 }, (_, i) => pool.parse(Buffer.from(body), { url: 'https://example.com/feed' }, i)));
let stripper = process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index')) ? 1 : 0;
for (let i = 0; i < ${THREADS}; i++) stripper += (await pool.runModule(new URL('file://${probe}'), null, 60_000, 'probe')) ? 1 : 0;
await new Promise((r) => setTimeout(r, 500));
const status = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8');
const kb = (k) => Number(new RegExp(k + ':\\\\s+(\\\\d+)').exec(status)[1]);
console.log(JSON.stringify({ rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024, stripper }));
process.exit(0);`,
);
type Case = 'cold' | 'main' | 'threads';
const run = (c: Case, round: number) => {
  const cache = join(dir, `cache-${round}-${c}`);
  const node = (prime: string) => {
    const r = spawnSync(process.execPath, [script], {
      env: { ...process.env, NODE_COMPILE_CACHE: cache, PRIME: prime },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout;
  };
  if (c !== 'cold') node(c);
  return JSON.parse(node('').trim().split('\n').at(-1)!) as { rss: number; peak: number; stripper: number };
};
console.log(
  `node bench/thread-stripper.bench.ts --rounds ${ROUNDS} --threads ${THREADS} (load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})\n`,
);
const label: Record<Case, string> = {
  cold: 'cold',
  main: "started over, the main thread's modules only (ed6faa4's serve)",
  threads: "started over, the threads' bodies too (this branch)",
};
console.log('| round | case | RSS MB | peak RSS MB | threads with the stripper (main included) | RSS / cold |');
console.log('|---|---|---|---|---|---|');
const cases: Case[] = ['cold', 'main', 'threads'];
for (let round = 1; round <= ROUNDS; round++) {
  const out = new Map<Case, ReturnType<typeof run>>();
  for (const c of round % 2 ? cases : [...cases].reverse()) out.set(c, run(c, round));
  for (const c of cases) {
    const o = out.get(c)!;
    console.log(
      `| ${round} | ${label[c]} | ${o.rss.toFixed(1)} | ${o.peak.toFixed(1)} | ${o.stripper} of ${THREADS + 1} | ${(o.rss / out.get('cold')!.rss).toFixed(2)} |`,
    );
  }
}
rmSync(dir, { recursive: true, force: true });
