// Writes, per news question, the 20 hits (URLs) and the first N BM25 candidates with the scores the
// ranking combines (article BM25+, the best 5 passage scores), for analysis outside the repository
// (re-ranking features fitted on the even questions and checked on the odd ones; BENCHMARKS.md).
//
//   node bench/search/dump-candidates.ts DIR OUT.json [N=100]   DIR: a news index (retrieval-ideas.ts --data DIR)
import { writeFileSync } from 'node:fs';
import { createApp } from '../../src/server/create-app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { searchService } from '../../src/search/service.ts';
import { searchIndexRepository } from '../../src/search/indexing.ts';
import { articleIndexOf, queryStems } from '../../src/search/article-index.ts';
import { queryTerms } from '../../src/search/query.ts';
import { scorePassages } from '../../src/search/passage-score.ts';
import { DEFAULT_RANKING, articleScoring } from '../../src/search/ranking.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { loadNews, newsCorpusDir } from './news-corpus.ts';
import { SHARED } from '../../test/helpers.ts';

const [data, out, nStr] = process.argv.slice(2);
const N = Number(nStr ?? 100);
const { questions } = loadNews(newsCorpusDir(SHARED)!);
const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data!, logLevel: 'warn' } }));
const search = searchService(app);
const repo = searchIndexRepository(app);
const r = DEFAULT_RANKING;
const scoring = articleScoring(r);
const provider = new LocalIndexProvider(repo);
const rows = [];
for (const q of questions) {
  const query = { text: q.question, scope: { kind: 'instance' as const }, filters: {}, limit: 20 };
  const hits = await search.search(query);
  const filter = await provider.compile(query);
  const terms = queryTerms(q.question);
  const cands = await articleIndexOf(repo).search(queryStems(terms), filter, N, scoring);
  const meta = new Map((await repo.articles(cands.map((d) => d.itemId))).map((m) => [m.id, m]));
  const passages = await repo.passageTexts(cands.map((c) => c.itemId));
  const ps = scorePassages(
    passages.map((p) => p.text),
    terms,
    passages.map((p) => p.words),
  );
  const best = new Map<number, number[]>();
  passages.forEach((p, i) => {
    const l = best.get(p.itemId) ?? [];
    l.push(ps[i]!);
    best.set(p.itemId, l);
  });
  rows.push({
    id: q.id,
    terms,
    hits: hits.map((h) => h.url),
    cands: cands.map((c) => {
      const m = meta.get(c.itemId)!;
      const l = (best.get(c.itemId) ?? [0]).sort((a, b) => b - a);
      return { url: m.url, title: m.title, pub: m.publishedAt, bm25: c.score, p: l.slice(0, 5), np: l.length };
    }),
  });
}
writeFileSync(out!, JSON.stringify(rows));
await app.close();
