// Fits the answer score's weights (src/answer/engines/extractive-score.ts, ANSWER_WEIGHTS) on the
// even news questions and checks them on the odd ones: for every question whose correct choice is
// named by one of the scored sentences, a softmax over those sentences, the target being the
// sentences that name the correct choice (and no rival). Reads the engine inputs that
// `node bench/answers-tune.ts capture` stored; prints the weights to paste, and how often the
// top-1 / top-4 sentences name the correct choice alone, before and after, on both halves.
//   node bench/answers-fit.ts --cache /tmp/ans-sonar.json[,/tmp/ans-pro.json] [--l2 0.01] [--drop feature,feature]
import { readFileSync } from 'node:fs';
import type { GroundingSource } from '../src/answer/engines/engine.ts';
import {
  mineCandidates,
  questionTermsOf,
  readSentences,
  scoreSentences,
  type Sentence,
} from '../src/answer/engines/extractive-answer.ts';
import { ANSWER_WEIGHTS, FEATURES, answerFeatures } from '../src/answer/engines/extractive-score.ts';
import { answerTypeOf } from '../src/answer/text/answer-type.ts';
import { readQuestions } from '../src/answer/testing/news-corpus.ts';
import { hasPhrase, paddedWords } from './answer-eval.ts';

const argv = process.argv.slice(2);
const opt = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
const cache = opt('--cache') ?? '/tmp/answers-cache.json';
const l2 = Number(opt('--l2') ?? 0.01);
const drop = new Set((opt('--drop') ?? '').split(',').filter(Boolean));
// Several caches (sonar, sonar-pro: comma-separated) are fitted together.
type Captured = { id: string; withheld: boolean; req: { question: string; sources: GroundingSource[] } };
const captured = cache
  .split(',')
  .flatMap((file) => (JSON.parse(readFileSync(file, 'utf8')) as { captured: Captured[] }).captured);
const questions = readQuestions();
const byId = new Map(questions.map((q) => [q.id, q]));
const index = new Map(questions.map((q, i) => [q.id, i]));

/** One question: its scored sentences' features, which of them name the correct choice alone, which a rival. */
interface Group {
  x: number[][];
  good: boolean[];
  rival: boolean[];
}

function groupsOf(parity: number): Group[] {
  const out: Group[] = [];
  for (const c of captured) {
    if (c.withheld || index.get(c.id)! % 2 !== parity) continue;
    const q = byId.get(c.id)!;
    const correct = q.choices[Number(q.answer[0])]!;
    const question = c.req.question;
    const type = answerTypeOf(question);
    const qTerms = questionTermsOf(question);
    const sentences = readSentences(c.req.sources, 80);
    if (!sentences.length || !qTerms.length) continue;
    scoreSentences(sentences, c.req.sources, qTerms, type);
    const ranked = [...sentences].sort((a, b) => b.relevance - a.relevance);
    const best = Math.max(...sentences.map((s) => s.coverage));
    const candidates = mineCandidates(
      question,
      ranked.filter((s) => s.coverage >= 0.4 * best),
      type,
      sentences,
    );
    const features = answerFeatures(question, sentences, c.req.sources, qTerms, type, candidates);
    const rows = [...features] as [Sentence, number[]][];
    const names = (s: Sentence, choice: string) => hasPhrase(paddedWords(s.text), choice);
    const rivals = q.choices.filter((x) => x !== correct);
    const good = rows.map(([s]) => names(s, correct) && !rivals.some((r) => names(s, r)));
    if (!good.some(Boolean)) continue;
    out.push({
      x: rows.map(([, f]) => f.map((v, i) => (drop.has(FEATURES[i]!) ? 0 : v))),
      good,
      rival: rows.map(([s]) => rivals.some((r) => names(s, r))),
    });
  }
  return out;
}

function probabilities(g: Group, w: number[]): number[] {
  const z = g.x.map((f) => f.reduce((a, v, i) => a + v * w[i]!, 0));
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

function fit(groups: Group[], w0: number[]): number[] {
  const w = [...w0];
  const m = w.map(() => 0);
  const v = w.map(() => 0);
  for (let step = 1; step <= 1500; step++) {
    const grad = w.map((x) => l2 * x);
    for (const g of groups) {
      const p = probabilities(g, w);
      const pGood = p.reduce((a, x, i) => a + (g.good[i] ? x : 0), 0);
      // d(-log sum_good p)/dw = E_p[f] - E_{p|good}[f]
      for (let i = 0; i < g.x.length; i++) {
        const coef = p[i]! - (g.good[i] ? p[i]! / pGood : 0);
        for (let k = 0; k < w.length; k++) grad[k]! += (coef * g.x[i]![k]!) / groups.length;
      }
    }
    for (let k = 0; k < w.length; k++) {
      m[k] = 0.9 * m[k]! + 0.1 * grad[k]!;
      v[k] = 0.999 * v[k]! + 0.001 * grad[k]! ** 2;
      const mh = m[k]! / (1 - 0.9 ** step);
      const vh = v[k]! / (1 - 0.999 ** step);
      w[k]! -= (0.05 * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return w;
}

function report(groups: Group[], w: number[]): string {
  let top1 = 0;
  let top4 = 0;
  let loss = 0;
  for (const g of groups) {
    const order = g.x.map((_, i) => i).sort((a, b) => dot(g.x[b]!, w) - dot(g.x[a]!, w));
    if (g.good[order[0]!]) top1++;
    const four = order.slice(0, 4);
    if (four.some((i) => g.good[i]) && !four.some((i) => g.rival[i])) top4++;
    const p = probabilities(g, w);
    loss -= Math.log(p.reduce((a, x, i) => a + (g.good[i] ? x : 0), 0) + 1e-12);
  }
  return `n ${groups.length}  top-1 ${top1}  top-4 alone ${top4}  loss ${(loss / groups.length).toFixed(3)}`;
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const even = groupsOf(0);
const odd = groupsOf(1);
const before = FEATURES.map((k) => ANSWER_WEIGHTS[k]);
const after = fit(even, before);
console.log(`before  even ${report(even, before)}\n        odd  ${report(odd, before)}`);
console.log(`after   even ${report(even, after)}\n        odd  ${report(odd, after)}`);
console.log(`weights {\n${FEATURES.map((k, i) => `  ${k}: ${after[i]!.toFixed(2)},`).join('\n')}\n}`);
