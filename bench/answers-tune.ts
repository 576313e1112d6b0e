// A fast tuning loop for the extractive engine on the news judge. `capture` runs every question of
// bench/answers.bench.ts through the real API code path once and stores what the engine was given
// (the question, the searched query, the numbered sources with their text); `replay` then runs only
// the engine (`ExtractiveEngine.answer`, the same code the API runs) over the stored inputs and
// judges the answers with the answer-eval.py port, in seconds instead of minutes. Figures from a
// replay equal a full bench run's as long as retrieval is unchanged; re-capture after retrieval
// changes, and confirm the final figures with `npm run bench:answers`.
//
//   node bench/answers-tune.ts capture --model sonar --data /tmp/answers-idx --cache /tmp/ans-sonar.json
//   node bench/answers-tune.ts replay --cache /tmp/ans-sonar.json [--show 20] [--why]
//
// `--why` prints, per half, where the correct choice was lost: not in any source sentence (the
// retrieval ceiling), in the sources but not quoted, quoted with a rival choice.
import { readFileSync, writeFileSync } from 'node:fs';
import { ExtractiveEngine } from '../src/answer/engines/extractive.ts';
import type { EngineRequest, GroundingSource } from '../src/answer/engines/engine.ts';
import { hasNews, readArticles, readQuestions, type NewsQuestion } from '../src/answer/testing/news-corpus.ts';
import { splitSentences } from '../src/text/sentences.ts';
import {
  answerText,
  hasDebris,
  hasPhrase,
  judge,
  normUrl,
  paddedWords,
  verdictOf,
  type AnswerRow,
  type Verdict,
} from './answer-eval.ts';
import { buildSetup, formatJudgement, runModel, type JudgeSetup } from './answers.bench.ts';
import type { SonarModel } from '../src/answer/types.ts';

const WITHHELD = 100;

interface Captured {
  id: string;
  withheld: boolean;
  req: Omit<EngineRequest, 'signal'>;
}

async function capture(
  model: SonarModel,
  dataDir: string | undefined,
  cache: string,
  contextSize?: JudgeSetup['contextSize'],
): Promise<void> {
  const captured: Captured[] = [];
  let current: { id: string; withheld: boolean } | undefined;
  const original = ExtractiveEngine.prototype.answer;
  ExtractiveEngine.prototype.answer = function (req: EngineRequest) {
    if (current) {
      const { signal: _, ...rest } = req;
      captured.push({ ...current, req: structuredClone(rest) });
    }
    return original.call(this, req);
  };
  const setup = await buildSetup(dataDir);
  setup.contextSize = contextSize;
  // runModel asks in a fixed order: 5 warm-ups, every question, then the first 100 withheld.
  const order = [
    ...setup.questions.slice(0, 5).map(() => undefined),
    ...setup.questions.map((q) => ({ id: q.id, withheld: false })),
    ...setup.questions.slice(0, WITHHELD).map((q) => ({ id: q.id, withheld: true })),
  ];
  let i = 0;
  const next = ExtractiveEngine.prototype.answer;
  ExtractiveEngine.prototype.answer = function (req: EngineRequest) {
    current = order[i++];
    return next.call(this, req);
  };
  const run = await runModel(setup, model);
  console.log(`captured ${captured.length} engine requests; the same run judged:`);
  console.log(`even ${formatJudgement(run.even)}\nodd  ${formatJudgement(run.odd)}`);
  writeFileSync(cache, JSON.stringify({ model, captured }));
  await setup.app.close();
}

function remainingTextOf(questions: NewsQuestion[]): string {
  const held = new Set(questions.slice(0, WITHHELD).flatMap((q) => q.relevant_urls.map(normUrl)));
  return paddedWords(
    readArticles()
      .filter((a) => !held.has(normUrl(a.url)))
      .map((a) => a.title + ' ' + a.text)
      .join(' '),
  );
}

async function answerOf(req: EngineRequest): Promise<{ text: string; citations: string[]; ms: number }> {
  const t = performance.now();
  let text = '';
  let order: number[] = [];
  for await (const chunk of new ExtractiveEngine().answer(req)) {
    if (chunk.type === 'cite') order = chunk.order;
    else if (chunk.type === 'text') text += chunk.text;
  }
  const ms = performance.now() - t;
  const bySource = new Map<number, GroundingSource>(req.sources.map((s) => [s.n, s]));
  return { text, citations: order.map((n) => bySource.get(n)!.hit.url), ms };
}

async function replay(cache: string, argv: string[]): Promise<void> {
  const { model, captured } = JSON.parse(readFileSync(cache, 'utf8')) as { model: string; captured: Captured[] };
  const questions = readQuestions();
  const byId = new Map(questions.map((q) => [q.id, q]));
  const index = new Map(questions.map((q, i) => [q.id, i]));
  const remaining = remainingTextOf(questions);
  const rows: AnswerRow[] = [];
  for (const c of captured) {
    const a = await answerOf({ ...c.req, signal: undefined });
    rows.push({
      id: c.id,
      status: 200,
      ms: a.ms,
      withheld: c.withheld,
      resp: { choices: [{ message: { content: a.text } }], citations: a.citations },
    });
  }
  const half = (p: number) =>
    judge(
      rows.filter((r) => index.get(r.id)! % 2 === p),
      byId,
      remaining,
    );
  console.log(`## ${model} (engine only, replayed from ${cache})`);
  console.log(`even ${formatJudgement(half(0))}\nodd  ${formatJudgement(half(1))}`);
  if (argv.includes('--why')) why(captured, rows, byId, index);
  if (argv.includes('--debris'))
    for (const r of rows.filter((r) => !r.withheld && hasDebris(answerText(r))))
      console.log(`debris in ${r.id}: ${answerText(r)}`);
  const show = Number(argv.includes('--show') ? argv[argv.indexOf('--show') + 1] : 0);
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  let shown = 0;
  for (const r of rows) {
    if (shown >= show) break;
    const q = byId.get(r.id)!;
    if (r.withheld || index.get(r.id)! % 2 !== 0) continue;
    const v = verdictOf(answerText(r), q);
    if (only && v !== only) continue;
    shown++;
    console.log(
      `\n[${v}] ${q.question}\n  choices: ${q.choices.map((c, i) => (String(i) === q.answer[0] ? `*${c}*` : c)).join(' | ')}\n  ${answerText(r).replace(/\n+/g, '\n  ')}`,
    );
  }
}

/** Where the correct choice is lost, per half: the retrieval ceiling, the picking, the rivals. */
function why(captured: Captured[], rows: AnswerRow[], byId: Map<string, NewsQuestion>, index: Map<string, number>) {
  for (const parity of [0, 1]) {
    const tally = { n: 0, inSources: 0, inTop5: 0, correctOnly: 0, quotedWithRival: 0, rivalOnlyInSources: 0 };
    const verdicts: Record<Verdict, number> = { correct_only: 0, wrong_only: 0, both: 0, none: 0 };
    captured.forEach((c, i) => {
      if (c.withheld || index.get(c.id)! % 2 !== parity) return;
      const q = byId.get(c.id)!;
      const ci = Number(q.answer[0]);
      tally.n++;
      const pool = (ss: GroundingSource[]) => paddedWords(ss.flatMap((s) => s.texts.flatMap(splitSentences)).join(' '));
      const all = pool(c.req.sources);
      const top5 = pool(c.req.sources.slice(0, 5));
      if (hasPhrase(all, q.choices[ci]!)) tally.inSources++;
      else if (q.choices.some((ch) => hasPhrase(all, ch))) tally.rivalOnlyInSources++;
      if (hasPhrase(top5, q.choices[ci]!)) tally.inTop5++;
      const v = verdictOf(answerText(rows[i]!), q);
      verdicts[v]++;
      if (v === 'both') tally.quotedWithRival++;
    });
    console.log(
      `${parity ? 'odd ' : 'even'} n ${tally.n}: correct choice in the sources ${(tally.inSources / tally.n).toFixed(3)} (top 5: ${(tally.inTop5 / tally.n).toFixed(3)}), only a rival in them ${(tally.rivalOnlyInSources / tally.n).toFixed(3)}; verdicts ${JSON.stringify(verdicts)}`,
    );
  }
}

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
if (!hasNews) console.log('skipped: ../shared/corpus/news is not present');
else if (argv[0] === 'capture')
  await capture(
    (opt('--model') ?? 'sonar') as SonarModel,
    opt('--data'),
    opt('--cache') ?? '/tmp/answers-cache.json',
    opt('--context-size') as JudgeSetup['contextSize'],
  );
else if (argv[0] === 'replay') await replay(opt('--cache') ?? '/tmp/answers-cache.json', argv);
else console.log('usage: node bench/answers-tune.ts capture|replay [--model M] [--data DIR] [--cache FILE]');
