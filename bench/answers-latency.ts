// Latency of a `sonar` answer at 100k passages (issue 9: p50 ≤ 30 ms), against the search alone in
// the same run: the generated corpus of bench/search/scale.ts (news sentences, 100 feeds), then
// every news question asked both ways, alternating, through the App's own services
// (`answerService(app).complete()` — search, grounding, the extractive engine — and
// `searchService(app).search()` with the pipeline's limit).
//
//   node bench/answers-latency.ts [--data DIR] [--passages 100000] [--questions 300]
//
// With --data the generated index is kept and reused (its build is not what is measured here).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { answerService } from '../src/answer/service.ts';
import { searchService } from '../src/search/service.ts';
import { SHARED, tempDataDir } from '../test/helpers.ts';
import { loadNews, newsCorpusDir } from './search/news-corpus.ts';
import { percentile } from './search/metrics.ts';
import { runScale } from './search/scale.ts';
import { loadavg } from 'node:os';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const dir = newsCorpusDir(SHARED);
if (!dir) {
  console.log('skipped: ../shared/corpus/news is not present');
  process.exit(0);
}
const { articles, questions } = loadNews(dir);
const target = Number(opt('--passages') ?? 100_000);
const asked = questions.slice(0, Number(opt('--questions') ?? 300));
const dataDir = opt('--data') ?? tempDataDir('tidings-answers-latency-');
const reuse = existsSync(join(dataDir, 'tidings.db'));
const scale = await runScale(target, articles, questions.slice(0, 20), (s) => console.log(s), dataDir);
console.log(`${scale.passages} passages${reuse ? ' (reused)' : `, built in ${scale.buildSeconds.toFixed(0)} s`}`);

const app = await createApp(
  loadConfig({
    env: {},
    overrides: { dataDir, logLevel: 'silent', schedulerEnabled: false },
  }),
);
const userId = (await app.users.findByName('bench'))!.id;
const scope = { kind: 'subscriptions' as const, userId };
const answers = answerService(app);
const search = searchService(app);
const answer = (text: string) =>
  answers.complete({
    model: 'sonar',
    messages: [{ role: 'user', content: text }],
    scope,
    filters: {},
    searchContextSize: 'low',
  });
for (const q of asked.slice(0, 10)) await answer(q.question); // warm-up
const answerMs: number[] = [];
const searchMs: number[] = [];
for (const q of asked) {
  let t = performance.now();
  await search.search({ text: q.question, scope, filters: {}, limit: 20 });
  searchMs.push(performance.now() - t);
  t = performance.now();
  await answer(q.question);
  answerMs.push(performance.now() - t);
}
answerMs.sort((a, b) => a - b);
searchMs.sort((a, b) => a - b);
const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
console.log(
  `sonar answer p50 ${p(answerMs, 0.5)} ms p99 ${p(answerMs, 0.99)} ms | search alone p50 ${p(searchMs, 0.5)} ms p99 ${p(searchMs, 0.99)} ms | answer/search p50 ${(percentile(answerMs, 0.5) / percentile(searchMs, 0.5)).toFixed(2)} | ${asked.length} questions, load average ${loadavg()[0]!.toFixed(1)}`,
);
await app.close();
