// How long each hostile input of issue 25 holds a real `tidings serve`: the slowest /healthz
// answer (polled every 20 ms) while the request runs, for one or more checkouts in the same run
// (a baseline built with `git archive <commit> | tar -x -C DIR` and `ln -s $PWD/node_modules DIR/`).
// An attack that holds the server past --timeout is abandoned and the server restarted.
//
//   node bench/freeze.bench.ts                               this checkout
//   node bench/freeze.bench.ts --root /tmp/base --root .     baseline, then this checkout
//   node bench/freeze.bench.ts --only quickadd --skip "1 MiB" --timeout 60
//   node bench/freeze.bench.ts --profile /tmp/prof           --cpu-prof of each server process
// Ordinary requests of the same kinds (an ordinary question, an ordinary feed) are measured first,
// in the same run: on a loaded machine they hold /healthz for a while too.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { tempDataDir } from '../test/helpers.ts';
import { ATTACKS, ORDINARY, seedData, startHostileOrigin, underAttack, type Attack } from '../test/freeze-attacks.ts';
import { startServeProcess, type ServeProcess } from './serve-process.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true },
    only: { type: 'string', multiple: true },
    skip: { type: 'string', multiple: true },
    timeout: { type: 'string', default: '60' },
    profile: { type: 'string' },
  },
});
const roots = (values.root ?? ['.']).map((r) => resolve(r));
const timeoutMs = Number(values.timeout) * 1000;
// Ordinary requests of the same kinds first (after one warm-up each): on a loaded machine they
// hold /healthz too, which is the figure to compare the attacks with.
const chosen = [...ORDINARY, ...ATTACKS].filter(
  (a) =>
    (!values.only || values.only.some((o) => a.name.includes(o))) &&
    !(values.skip ?? []).some((o) => a.name.includes(o)),
);

const origin = await startHostileOrigin();
const results = new Map<string, Map<string, string>>();
try {
  for (const root of roots) {
    const dataDir = tempDataDir('tidings-freeze-bench-');
    const { key, manyFeedsKey } = await seedData(dataDir, origin.base);
    const env: Record<string, string> = {
      TIDINGS_SCHEDULER: 'false',
      TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
      TIDINGS_LOG_LEVEL: 'warn',
    };
    if (values.profile) env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${values.profile}`;
    let server: ServeProcess = await startServeProcess(dataDir, 1, env, root);
    for (const warm of ORDINARY)
      await underAttack({ url: server.url, base: origin.base, key, manyFeedsKey }, warm, timeoutMs);
    const row = new Map<string, string>();
    results.set(root, row);
    for (const attack of chosen) {
      const m = await underAttack(
        { url: server.url, base: origin.base, key, manyFeedsKey },
        attack as Attack,
        timeoutMs,
      );
      const held = Number.isFinite(m.worstHealthzMs)
        ? `${m.worstHealthzMs.toFixed(0)} ms`
        : `> ${timeoutMs / 1000} s (restarted)`;
      row.set(attack.name, held);
      console.log(
        `${root}  ${attack.name}: /healthz held ${held}; request ${m.requestMs.toFixed(0)} ms; ${m.outcome.slice(0, 60)}`,
      );
      if (!Number.isFinite(m.worstHealthzMs)) {
        await server.kill();
        server = await startServeProcess(dataDir, 1, env, root);
      }
    }
    await server.stop();
  }
} finally {
  await origin.close();
}

console.log(`\n| attack | ${roots.join(' | ')} |\n|---|${roots.map(() => '---').join('|')}|`);
for (const a of chosen)
  console.log(`| ${a.name} | ${roots.map((r) => results.get(r)?.get(a.name) ?? '').join(' | ')} |`);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
