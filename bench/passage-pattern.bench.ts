// The passage scorer of a checkout (its src/search/passage-score.ts) on the news corpus's 680
// questions, 700 passages of the data folder's index each, in a process of its own (issue 26.4,
// branch answer-cpu4): the first round compiles each question's pattern, as a server does for every
// new question; the next rounds reuse them (V8 caches a pattern by its source). Run it for two
// checkouts in turn and compare; the score sums must be equal.
//
//   node bench/passage-pattern.bench.ts --tree /path/to/checkout --data <a copy of a chat-memory.bench.ts data folder>
import { DatabaseSync } from 'node:sqlite';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { flagValue } from './backend.ts';

const TREE = resolve(flagValue(process.argv, 'tree') ?? '.');
const DATA = flagValue(process.argv, 'data');
if (!DATA) {
  console.error('usage: node bench/passage-pattern.bench.ts --tree CHECKOUT --data DIR');
  process.exit(2);
}
type Score = (passages: string[], terms: string[], lengths?: number[]) => number[];
const { scorePassages } = (await import(join(TREE, 'src/search/passage-score.ts'))) as { scorePassages: Score };
const { queryTerms } = (await import(join(TREE, 'src/search/query.ts'))) as { queryTerms: (t: string) => string[] };
const { readQuestions } = (await import(join(TREE, 'src/answer/testing/news-corpus.ts'))) as {
  readQuestions: () => { question: string }[];
};
const db = new DatabaseSync(join(DATA, 'tidings.db'), { readOnly: true });
const rows = db.prepare('SELECT text, words FROM search_passages WHERE item_id % 7 = 0 LIMIT 40000').all() as {
  text: string;
  words: number;
}[];
db.close();
const cases = readQuestions().map((q, i) => {
  const start = (i * 997) % (rows.length - 700);
  const window = rows.slice(start, start + 700);
  return { terms: queryTerms(q.question), passages: window.map((r) => r.text), lengths: window.map((r) => r.words) };
});
const load = loadavg()[0]!.toFixed(1);
const ms: string[] = [];
let sum = 0;
for (let round = 0; round < 3; round++) {
  const t0 = process.cpuUsage();
  for (const c of cases) for (const s of scorePassages(c.passages, c.terms, c.lengths)) sum += s;
  const t = process.cpuUsage(t0);
  ms.push(((t.user + t.system) / 1000 / cases.length).toFixed(3));
}
console.log(
  `${TREE}: first use ${ms[0]} ms, reused ${ms.slice(1).join(' / ')} ms per search (${cases.length} questions); score sum ${sum}; load ${load} -> ${loadavg()[0]!.toFixed(1)}`,
);
