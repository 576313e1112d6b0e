// Ranking variants measured on the sources sonar cites (issue 9): success@5 and MRR of the first 8
// hits after near-duplicates are dropped (what `citations` lists, in order), on
// ../shared/corpus/news, all / even / odd questions (tune on even, report odd), and ms per search.
// Each variant is a JSON object of RankingOptions (src/search/ranking.ts) over the defaults.
//
//   node bench/search/sweep.ts DIR '[{}, {"k1": 1.6}, {"passageWeight": 0.15}]'
//
// DIR: a news index built by `node bench/search/retrieval-ideas.ts --data DIR`.
import { createApp } from '../../src/server/create-app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { searchIndexRepository } from '../../src/search/indexing.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { withoutNearDuplicates } from '../../src/search/fusion.ts';
import { loadNews, newsCorpusDir } from './news-corpus.ts';
import { SHARED } from '../../test/helpers.ts';
import { normUrl } from '../answer-eval.ts';

const [data, variantsJson] = process.argv.slice(2);
const { questions } = loadNews(newsCorpusDir(SHARED)!);
const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data!, logLevel: 'warn' } }));
const repo = searchIndexRepository(app);
for (const v of JSON.parse(variantsJson!) as object[]) {
  const provider = new LocalIndexProvider(repo, { ranking: v });
  const acc = [0, 1].map(() => ({ n: 0, s5: 0, rr: 0 }));
  const t0 = performance.now();
  for (const [i, q] of questions.entries()) {
    const hits = withoutNearDuplicates(
      await provider.search({ text: q.question, scope: { kind: 'instance' }, filters: {}, limit: 20 }),
    ).slice(0, 8);
    const rel = new Set(q.relevant_urls.map(normUrl));
    const a = acc[i % 2]!;
    a.n++;
    const first = hits.findIndex((h) => rel.has(normUrl(h.url)));
    if (first >= 0 && first < 5) a.s5++;
    if (first >= 0) a.rr += 1 / (first + 1);
  }
  const f = (a: { n: number; s5: number; rr: number }) => `${(a.s5 / a.n).toFixed(3)}/${(a.rr / a.n).toFixed(3)}`;
  const all = { n: acc[0]!.n + acc[1]!.n, s5: acc[0]!.s5 + acc[1]!.s5, rr: acc[0]!.rr + acc[1]!.rr };
  console.log(
    `${JSON.stringify(v).padEnd(60)} all ${f(all)}  even ${f(acc[0]!)}  odd ${f(acc[1]!)}  ${((performance.now() - t0) / questions.length).toFixed(1)} ms/q`,
  );
}
await app.close();
