// Extractive answer latency, end to end (search + sentence selection + composition), on the news
// corpus. Exported for bench/search.bench.ts (which already has the corpus loaded) and runnable on
// its own: `node bench/answer.bench-part.ts [articles=2000] [questions=150]`.
// Baseline measured in the same run: the search alone (one SearchService.search with the same
// query), so the figure to watch is the answer's overhead over its search.
import type { App } from '../src/runtime/app.ts';
import { answerService } from '../src/answer/service.ts';
import { searchService } from '../src/search/service.ts';
import type { SonarModel } from '../src/answer/types.ts';
import type { NewsQuestion } from '../src/answer/testing/news-corpus.ts';
import { terms } from '../src/answer/text/terms.ts';

export interface AnswerBenchResult {
  model: SonarModel;
  questions: number;
  searchP50: number;
  searchP99: number;
  answerP50: number;
  answerP99: number;
  /** answer p50 / search p50 */
  ratio: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

export async function benchAnswers(
  app: App,
  questions: string[],
  model: SonarModel = 'sonar',
): Promise<AnswerBenchResult> {
  const svc = answerService(app);
  const search = searchService(app);
  const req = (q: string) => ({
    model,
    messages: [{ role: 'user' as const, content: q }],
    scope: { kind: 'instance' as const },
    filters: {},
    searchContextSize: 'low' as const,
  });
  // Warm-up: tokenizer tables, prepared statements, page cache.
  for (const q of questions.slice(0, 5)) await svc.complete(req(q));
  const searchMs: number[] = [];
  const answerMs: number[] = [];
  for (const q of questions) {
    let t = performance.now();
    await search.search({ text: q, scope: { kind: 'instance' }, filters: {}, limit: 20 });
    searchMs.push(performance.now() - t);
    t = performance.now();
    await svc.complete(req(q));
    answerMs.push(performance.now() - t);
  }
  const r = {
    model,
    questions: questions.length,
    searchP50: pct(searchMs, 0.5),
    searchP99: pct(searchMs, 0.99),
    answerP50: pct(answerMs, 0.5),
    answerP99: pct(answerMs, 0.99),
    ratio: 0,
  };
  r.ratio = r.answerP50 / r.searchP50;
  return r;
}

export function formatAnswerBench(r: AnswerBenchResult): string {
  const f = (x: number) => x.toFixed(1);
  return `${r.model}: ${r.questions} questions — answer p50 ${f(r.answerP50)} ms, p99 ${f(r.answerP99)} ms; search alone p50 ${f(r.searchP50)} ms, p99 ${f(r.searchP99)} ms; answer/search p50 ratio ${r.ratio.toFixed(2)}`;
}

export interface AnswerQualityResult {
  model: SonarModel;
  questions: number;
  /** Share of questions whose answer supports the correct multiple-choice option best (alone). */
  support: number;
  /** Share of cited URLs that are among the question's relevant articles. */
  citationPrecision: number;
  /** Share of questions answered "I found no articles". */
  nothingFound: number;
}

/**
 * A rough, deterministic quality figure for the extractive engine: the corpus questions come with
 * answer choices, and an answer "supports" the correct one when it contains more of that choice's
 * words (beyond the question's) than of any other choice. Random choice would score about 0.25.
 */
export async function answerQuality(
  app: App,
  questions: NewsQuestion[],
  model: SonarModel = 'sonar',
): Promise<AnswerQualityResult> {
  const svc = answerService(app);
  let support = 0,
    cited = 0,
    citedRelevant = 0,
    nothing = 0;
  for (const q of questions) {
    const r = await svc.complete({
      model,
      messages: [{ role: 'user', content: q.question }],
      scope: { kind: 'instance' },
      filters: {},
      searchContextSize: 'low',
    });
    if (!r.citations.length) {
      nothing++;
      continue;
    }
    cited += r.citations.length;
    citedRelevant += r.citations.filter((u) => q.relevant_urls.includes(u)).length;
    const answerTerms = new Set(terms(r.content));
    const asked = new Set(terms(q.question));
    const scores = q.choices.map((c) => {
      const t = [...new Set(terms(c))].filter((x) => !asked.has(x));
      return t.length ? t.filter((x) => answerTerms.has(x)).length / t.length : 0;
    });
    const correct = scores[Number(q.answer[0])];
    if (correct > 0 && scores.filter((s) => s >= correct).length === 1) support++;
  }
  return {
    model,
    questions: questions.length,
    support: support / questions.length,
    citationPrecision: cited ? citedRelevant / cited : 0,
    nothingFound: nothing / questions.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { testApp } = await import('../src/search/testing/fixtures.ts');
  const { readArticles, loadArticles, readQuestions, hasNews } = await import('../src/answer/testing/news-corpus.ts');
  if (!hasNews) {
    console.log('skipped: ../shared/corpus/news is not present');
    process.exit(0);
  }
  const articles = Number(process.argv[2] ?? 2000);
  const count = Number(process.argv[3] ?? 150);
  const app = await testApp();
  const t = performance.now();
  await loadArticles(app, readArticles(articles));
  console.log(`loaded and indexed ${articles} articles in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const questions = readQuestions().map((q) => q.question);
  // Questions spread over the corpus (the file is in corpus order).
  const picked = Array.from(
    { length: Math.min(count, questions.length) },
    (_, i) => questions[Math.floor((i * questions.length) / Math.min(count, questions.length))],
  );
  for (const model of ['sonar', 'sonar-pro'] as const)
    console.log(formatAnswerBench(await benchAnswers(app, picked, model)));
  // Quality on the questions whose relevant articles are loaded (at least half of them).
  const loaded = new Set(readArticles(articles).map((a) => a.url));
  const answerable = readQuestions()
    .filter((q) => q.relevant_urls.filter((u) => loaded.has(u)).length >= 5)
    .slice(0, count);
  for (const model of ['sonar', 'sonar-pro'] as const) {
    const q = await answerQuality(app, answerable, model);
    console.log(
      `${model} quality on ${q.questions} questions: supports the right choice ${q.support.toFixed(3)}, citation precision ${q.citationPrecision.toFixed(3)}, nothing found ${q.nothingFound.toFixed(3)}`,
    );
  }
  await app.close();
}
