// Token counting (src/answer/tokens.ts) against gpt-tokenizer 4.0.0, measured in the same run:
// - exactness: ids of every news article (title + text) and of adversarial strings, ours == theirs;
// - speed on the news corpus (the normal case) and on unbroken runs (the freeze of issue 25.1);
// - load time and heap of each vocabulary (each in a fresh child process).
// `node bench/token-count.bench.ts [rounds]`
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { countTokens, encodeTokens } from '../src/answer/tokens.ts';
import { SHARED } from '../test/helpers.ts';

const rounds = Number(process.argv[2] ?? 3);
const require = createRequire(import.meta.url);

if (process.argv[2] === '--load') {
  // Child: load one vocabulary and report its cost.
  const which = process.argv[3];
  const t0 = performance.now();
  if (which === 'ours') countTokens('warm');
  else require('gpt-tokenizer/cjs/encoding/o200k_base').countTokens('warm');
  const ms = performance.now() - t0;
  globalThis.gc?.();
  console.log(
    // Typed arrays (our vocabulary's tables) live outside the JS heap: counted with it.
    JSON.stringify({
      ms,
      heapMB: (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers) / 1e6,
      rssMB: process.memoryUsage().rss / 1e6,
    }),
  );
  process.exit(0);
}

type Lib = { encode(t: string, o?: object): number[]; countTokens(t: string, o?: object): number };
const lib = require('gpt-tokenizer/cjs/encoding/o200k_base') as Lib;
const noSpecial = { disallowedSpecial: new Set<string>() };

function load(which: string): { ms: number; heapMB: number; rssMB: number } {
  const out = execFileSync(process.execPath, ['--expose-gc', import.meta.filename, '--load', which], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as { ms: number; heapMB: number; rssMB: number };
}
const baseline = load('none-just-node');
for (const which of ['gpt-tokenizer', 'ours']) {
  const l = load(which === 'ours' ? 'ours' : 'lib');
  console.log(
    `load ${which.padEnd(14)} ${l.ms.toFixed(0)} ms, heap + array buffers ${l.heapMB.toFixed(1)} MB, rss ${l.rssMB.toFixed(0)} MB`,
  );
}
void baseline;

const texts = gunzipSync(readFileSync(join(SHARED, 'corpus/news/articles.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => {
    const a = JSON.parse(l) as { title: string; text: string };
    return `${a.title}\n${a.text}`;
  });

let mismatches = 0;
let tokens = 0;
for (const t of texts) {
  const a = lib.encode(t, noSpecial);
  const b = encodeTokens(t);
  tokens += a.length;
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) mismatches++;
}
console.log(`news corpus: ${texts.length} articles, ${tokens} tokens, ${mismatches} articles whose ids differ`);

function best(fn: () => void): number {
  let b = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    fn();
    b = Math.min(b, performance.now() - t0);
  }
  return b;
}
const theirs = best(() => {
  for (const t of texts) lib.countTokens(t, noSpecial);
});
const ours = best(() => {
  for (const t of texts) countTokens(t);
});
console.log(
  `corpus countTokens: gpt-tokenizer ${theirs.toFixed(0)} ms, ours ${ours.toFixed(0)} ms (best of ${rounds}); ours/theirs ${(ours / theirs).toFixed(2)}x`,
);

// Unbroken runs: one regex piece each. gpt-tokenizer is only timed up to 40,000 characters (it
// is quadratic: 80,000 'M' took 44 s on the attacked server).
const runs: [string, (n: number) => string][] = [
  ['M (letters)', (n) => 'M'.repeat(n)],
  ['( (punctuation)', (n) => '('.repeat(n)],
  ['random a-z', (n) => Array.from({ length: n }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(i * 7919) % 26]).join('')],
  ['spaces', (n) => `${' '.repeat(n)}x`],
];
for (const [name, make] of runs) {
  for (const n of [10_000, 40_000, 120_000, 262_144, 1_048_576]) {
    const s = make(n);
    // A different text each round: counts of long texts are remembered (tokens.ts).
    const variants = Array.from({ length: rounds }, (_, r) => `${s}\n${r}`);
    let round = 0;
    const o = best(() => countTokens(variants[round++]!));
    let line = `${name.padEnd(16)} ${String(n).padStart(9)} chars: ours ${o.toFixed(1)} ms`;
    if (n <= 40_000) {
      const t0 = performance.now();
      const c = lib.countTokens(s, noSpecial);
      const th = performance.now() - t0;
      if (c !== countTokens(s)) line += ' COUNT DIFFERS';
      line += `, gpt-tokenizer ${th.toFixed(0)} ms (${(th / o).toFixed(0)}x)`;
    }
    console.log(line);
  }
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
