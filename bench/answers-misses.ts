// Where the answer loses the correct choice when the sources have it, by category (issue 9):
// replays the captured engine inputs (bench/answers-tune.ts capture) through planAnswer and, for
// every question whose correct choice is in a source sentence but not named alone by the answer,
// says where it was: in the winning candidate, a lower candidate, a sentence ranked k-th, only in
// a title; by answer type and by the choice's length.
//   node bench/answers-misses.ts --cache /tmp/ans-sonar.json [--parity 0|1] [--show N]
import { readFileSync } from 'node:fs';
import type { EngineRequest } from '../src/answer/engines/engine.ts';
import { ExtractiveEngine } from '../src/answer/engines/extractive.ts';
import { planAnswer } from '../src/answer/engines/extractive-answer.ts';
import { answerTypeOf } from '../src/answer/text/answer-type.ts';
import { readQuestions } from '../src/answer/testing/news-corpus.ts';
import { hasPhrase, paddedWords, verdictOf } from './answer-eval.ts';

const argv = process.argv.slice(2);
const opt = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
const cache = opt('--cache') ?? '/tmp/answers-cache.json';
const parity = opt('--parity') === undefined ? undefined : Number(opt('--parity'));
const show = Number(opt('--show') ?? 0);
const { captured } = JSON.parse(readFileSync(cache, 'utf8')) as {
  captured: { id: string; withheld: boolean; req: Omit<EngineRequest, 'signal'> }[];
};
const questions = readQuestions();
const byId = new Map(questions.map((q) => [q.id, q]));
const index = new Map(questions.map((q, i) => [q.id, i]));
const tally = new Map<string, number>();
const bump = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
let shown = 0;
for (const c of captured) {
  if (c.withheld) continue;
  const i = index.get(c.id)!;
  if (parity !== undefined && i % 2 !== parity) continue;
  const q = byId.get(c.id)!;
  const correct = q.choices[Number(q.answer[0])]!;
  let text = '';
  for await (const chunk of new ExtractiveEngine().answer({ ...c.req, signal: undefined }))
    if (chunk.type === 'text') text += chunk.text;
  const verdict = verdictOf(text, q);
  const type = answerTypeOf(c.req.question);
  const plan = planAnswer(c.req.question, c.req.sources as EngineRequest['sources'], {
    maxSentences: 4,
    poolPerSource: 80,
  });
  const sentences = (plan as unknown as { sentences: unknown[] }).sentences;
  void sentences;
  const all = paddedWords(c.req.sources.map((s) => s.texts.join(' ')).join(' '));
  const titles = paddedWords(c.req.sources.map((s) => s.hit.title).join(' '));
  const inText = hasPhrase(all, correct);
  if (!inText && !hasPhrase(titles, correct)) continue;
  bump(`in sources (${verdict})`);
  if (verdict === 'correct_only') continue;
  const where = !inText
    ? 'title only'
    : plan.kind === 'decline'
      ? 'declined'
      : plan.winner && hasPhrase(paddedWords(plan.winner.text), correct)
        ? 'winner names it'
        : plan.candidates.some((k) => hasPhrase(paddedWords(k.text), correct))
          ? 'a lower candidate'
          : plan.candidates.some((k) => hasPhrase(paddedWords(correct), k.text))
            ? 'candidate inside the choice'
            : plan.kind === 'passages'
              ? `passages (${type})`
              : 'no candidate';
  const key = `${verdict} · ${where} · ${type} · choice ${Math.min(4, correct.split(/\s+/).length)}w`;
  bump(key);
  bump(`${verdict} · ${where}`);
  if (shown < show) {
    shown++;
    console.log(
      `\n[${key}] ${q.question}\n  choices: ${q.choices.map((x) => (x === correct ? `*${x}*` : x)).join(' | ')}\n  winner ${plan.winner?.text} candidates ${plan.candidates.map((k) => `${k.text} ${k.score.toFixed(3)}`).join('; ')}\n  ${text.replace(/\n+/g, '\n  ')}`,
    );
  }
}
for (const [k, v] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`${String(v).padStart(4)}  ${k}`);
