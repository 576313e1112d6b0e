// CPU per sonar answer of this checkout against another, both in one process, question by question
// (issue 26.4): on a shared 2-core machine the load moves by several ms of CPU per answer between
// two server runs a minute apart, which hides a 5 % change; asking each question of both trees in
// turn (the order flipped every question) pairs them within milliseconds. Each tree has its own
// modules and its own App on the same data folder (read only: nothing is indexed or written but
// the chat answers' logs, if any). The garbage collector is shared, so each tree's collections may
// fall in the other's time: this pairing is for changes of the JavaScript, and
// bench/chat-memory.bench.ts stays the figure of a served answer. Answers (text, citations, usage)
// are compared too, and every difference is printed.
//
//   node --max-semi-space-size=8 bench/answer-cpu-pair.bench.ts --baseline /path/to/main-checkout \
//        --data <a copy of a chat-memory.bench.ts data folder> [--from 0] [--answers 680] [--warm 30] \
//        [--baseline-data <another copy>] [--usage]
//
// --baseline-data: the baseline answers from its own copy, so a migration of this checkout (an
// index) does not reach it. --usage: after each answer its tree records a usage row, as a served
// answer does (src/chat-api/usage.ts); give each tree its own copy then, or each one's write would
// move the other's change signal (another connection's commit), which a lone server never sees.
//
// The questions are the news corpus's (../shared/corpus/news), asked by the bench user (the data
// folder's, see bench/chat-memory.bench.ts); --from/--answers pick them (modulo 680), so 680 from 0
// asks each once.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerTree } from './answer-tree.ts';
import { flagValue } from './backend.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const BASELINE = flagValue(process.argv, 'baseline');
const DATA = flagValue(process.argv, 'data');
const FROM = Number(flagValue(process.argv, 'from') ?? 0);
const ANSWERS = Number(flagValue(process.argv, 'answers') ?? 680);
const WARM = Number(flagValue(process.argv, 'warm') ?? 30);
const BASELINE_DATA = flagValue(process.argv, 'baseline-data') ?? DATA;
const USAGE = process.argv.includes('--usage');
if (!BASELINE || !DATA) {
  console.error('usage: node bench/answer-cpu-pair.bench.ts --baseline CHECKOUT --data DIR (see the header)');
  process.exit(2);
}

const trees = [await answerTree(ROOT, DATA, USAGE), await answerTree(resolve(BASELINE), BASELINE_DATA ?? DATA, USAGE)];
for (let i = 0; i < WARM; i++) for (const t of trees) await t.ask(i);
const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const spent = [0, 0];
let differ = 0;
const load0 = loadavg()[0]!;
for (let i = FROM; i < FROM + ANSWERS; i++) {
  const answers: string[] = [];
  for (const k of i % 2 ? [0, 1] : [1, 0]) {
    const c0 = cpuUs();
    answers[k] = await trees[k]!.ask(i);
    spent[k]! += cpuUs() - c0;
  }
  if (answers[0] !== answers[1]) {
    differ++;
    console.error(`question ${i % 680}: answers differ\n  this: ${answers[0]}\n  base: ${answers[1]}`);
  }
}
const ms = (k: number) => (spent[k]! / 1000 / ANSWERS).toFixed(2);
console.log(
  `node bench/answer-cpu-pair.bench.ts --baseline ${BASELINE} --data ${DATA}${BASELINE_DATA === DATA ? '' : ` --baseline-data ${BASELINE_DATA}`}${USAGE ? ' --usage' : ''} --from ${FROM} --answers ${ANSWERS} --warm ${WARM}: ` +
    `CPU per answer this ${ms(0)} ms, baseline ${ms(1)} ms, this/baseline ${(spent[0]! / spent[1]!).toFixed(3)}; ` +
    `${differ} of ${ANSWERS} answers differ; load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`,
);
for (const t of trees) await t.close();
