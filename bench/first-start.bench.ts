// The idle memory of a server's first start from a checkout, against its next start (issue 26.4,
// "an idle server ≤120 MB"): `tidings serve --workers 1` on a data folder, started with an empty
// Node compile cache (as after a clone, a `git pull` or a cleared temp folder), then again on the
// cache that start wrote; each idles --idle ms and is measured: RSS with its anonymous and
// file-backed parts (/proc/PID/status), the JS heap and `external` (process.memoryUsage, read in
// the server by a preloaded module on SIGUSR2), the CPU the process used until it answered, and
// whether Node's TypeScript stripper is loaded in it (src/runtime/type-stripper.ts). With
// --compare DIR the other checkout runs the same, alternating, --rounds times.
//
//   node bench/first-start.bench.ts --data DIR [--rounds 2] [--idle 2000] [--compare /work/main]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from './backend.ts';
import { memOf } from './process-memory.ts';
import { startServeProcess } from './serve-process.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const DATA = flagValue(process.argv, 'data');
const ROUNDS = Number(flagValue(process.argv, 'rounds') ?? 2);
const IDLE = Number(flagValue(process.argv, 'idle') ?? 2000);
const COMPARE = flagValue(process.argv, 'compare');
if (!DATA || process.argv.includes('--help')) {
  console.log('node bench/first-start.bench.ts --data DIR [--rounds 2] [--idle 2000] [--compare DIR]');
  process.exit(DATA ? 0 : 2);
}
const checkouts = [ROOT, ...(COMPARE ? [resolve(COMPARE)] : [])];
const dir = mkdtempSync(join(tmpdir(), 'tidings-first-start-'));
const probe = join(dir, 'probe.mjs');
writeFileSync(
  probe,
  `process.on('SIGUSR2', () => process.getBuiltinModule('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ ...process.memoryUsage(), stripper: process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index')) })));`,
);
const MB = (b: number) => (b / 1048576).toFixed(1);
const lines = [
  `node bench/first-start.bench.ts --data ${DATA} --rounds ${ROUNDS} --idle ${IDLE}${COMPARE ? ` --compare ${COMPARE}` : ''} — ${new Date().toISOString().slice(0, 16)}, Node ${process.version}, load average before ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
  '',
  '| round | checkout | start | idle RSS MB (anon / file) | heap used | external | CPU ms to ready | stripper loaded | load |',
  '|---|---|---|---|---|---|---|---|---|',
];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const root of round % 2 ? checkouts : [...checkouts].reverse()) {
      const cache = join(dir, `cache-${round}-${checkouts.indexOf(root)}`);
      for (const start of ['first', 'next']) {
        const out = join(dir, 'out.json');
        rmSync(out, { force: true });
        const s = await startServeProcess(
          DATA,
          1,
          {
            TIDINGS_LOG_LEVEL: 'warn',
            TIDINGS_SCHEDULER: 'false',
            TIDINGS_LLM_BASE_URL: '',
            NODE_COMPILE_CACHE: cache,
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${probe}`,
            PROBE_OUT: out,
          },
          root,
        );
        try {
          const cpu = s.cpuMs();
          await new Promise((r) => setTimeout(r, IDLE));
          const m = memOf(s.pid);
          process.kill(s.pid, 'SIGUSR2');
          let j: { heapUsed: number; external: number; stripper: boolean } | undefined;
          for (let i = 0; i < 100 && !j; i++) {
            await new Promise((r) => setTimeout(r, 20));
            try {
              j = JSON.parse(readFileSync(out, 'utf8'));
            } catch {
              /* not written yet */
            }
          }
          if (!j) throw new Error('the server did not answer the memory probe');
          lines.push(
            `| ${round} | ${root === ROOT ? 'this' : root} | ${start} | ${m.rss.toFixed(0)} (${m.anon.toFixed(0)} / ${m.file.toFixed(0)}) | ${MB(j.heapUsed)} | ${MB(j.external)} | ${cpu.toFixed(0)} | ${j.stripper ? 'yes' : 'no'} | ${loadavg()[0]!.toFixed(2)} |`,
          );
          console.error(lines.at(-1));
        } finally {
          await s.stop();
        }
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(lines.join('\n'));
