// How sonar-pro's three searches (the question, its keywords, its names: reformulate-query.ts) are
// fused, measured on the sources it cites: success@5 / MRR of the first 8 fused hits after
// near-duplicates are dropped, even / odd questions of ../shared/corpus/news. The pipeline keeps
// the question's own 5 best hits in place and fuses the rest by reciprocal rank
// (src/search/fusion.ts fuseKeepingLead; BENCHMARKS.md, ## Search).
//
//   node bench/search/pro-fusion.ts DIR      DIR: a news index (bench/search/retrieval-ideas.ts --data DIR)
import { createApp } from '../../src/server/create-app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { searchService } from '../../src/search/service.ts';
import { fuseKeepingLead, withoutNearDuplicates } from '../../src/search/fusion.ts';
import { LEAD_KEPT } from '../../src/answer/pipelines/retrieve.ts';
import type { SearchHit } from '../../src/search/types.ts';
import { reformulate } from '../../src/answer/pipelines/reformulate-query.ts';
import { loadNews, newsCorpusDir } from './news-corpus.ts';
import { SHARED } from '../../test/helpers.ts';
import { normUrl } from '../answer-eval.ts';

const { questions } = loadNews(newsCorpusDir(SHARED)!);
const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: process.argv[2]!, logLevel: 'warn' } }));
const search = searchService(app);
function rrf(lists: SearchHit[][], weights: number[], k: number): SearchHit[] {
  const m = new Map<string, { h: SearchHit; s: number }>();
  lists.forEach((l, li) =>
    l.forEach((h, r) => {
      const e = m.get(h.url) ?? { h, s: 0 };
      e.s += weights[li]! / (k + r + 1);
      m.set(h.url, e);
    }),
  );
  return [...m.values()].sort((a, b) => b.s - a.s).map((e) => e.h);
}
const acc: Record<string, { n: number; s5: number; rr: number }[]> = {};
const add = (name: string, i: number, hits: SearchHit[], rel: Set<string>) => {
  const a = (acc[name] ??= [0, 1].map(() => ({ n: 0, s5: 0, rr: 0 })))[i % 2]!;
  a.n++;
  const f = withoutNearDuplicates(hits)
    .slice(0, 8)
    .findIndex((h) => rel.has(normUrl(h.url)));
  if (f >= 0 && f < 5) a.s5++;
  if (f >= 0) a.rr += 1 / (f + 1);
};
let differ = 0;
for (const [i, q] of questions.entries()) {
  const qs = reformulate(q.question);
  const lists = await Promise.all(
    qs.map((text) => search.search({ text, scope: { kind: 'instance' }, filters: {}, limit: 20 })),
  );
  if (qs.length > 1 && qs[1] && lists[1]!.map((h) => h.url).join() !== lists[0]!.map((h) => h.url).join()) differ++;
  const rel = new Set(q.relevant_urls.map(normUrl));
  add('question alone (sonar)', i, lists[0]!, rel);
  add(`the pipeline: fuseKeepingLead(${LEAD_KEPT})`, i, fuseKeepingLead(lists, LEAD_KEPT), rel);
  add('rrf k60 equal (before)', i, rrf(lists, [1, 1, 1], 60), rel);
  add('rrf k60 question x2', i, rrf(lists, [2, 1, 1], 60), rel);
  add('rrf k60 question x3', i, rrf(lists, [3, 1, 1], 60), rel);
  add('rrf k10 question x2', i, rrf(lists, [2, 1, 1], 10), rel);
  add('rrf k60 question+keywords', i, rrf(lists.slice(0, 2), [1, 1], 60), rel);
  add('rrf k60 question+entities', i, rrf([lists[0]!, lists[2] ?? []], [1, 1], 60), rel);
  for (const keep of [3, 5, 8]) {
    const head = lists[0]!.slice(0, keep);
    const fused = rrf(lists, [1, 1, 1], 60).filter((h) => !head.includes(h));
    add(`question's top ${keep} kept, then rrf`, i, [...head, ...fused], rel);
  }
  {
    // every hit keeps its place in the question's list; hits only the reformulations found follow
    const seen = new Set(lists[0]!.map((h) => h.url));
    add(
      'question list, then new hits of the others (rrf)',
      i,
      [...lists[0]!, ...rrf(lists.slice(1), [1, 1], 60).filter((h) => !seen.has(h.url))],
      rel,
    );
  }
}
console.log(`keyword list differs from the question's for ${differ} questions`);
for (const [name, [e, o]] of Object.entries(acc))
  console.log(
    `${name.padEnd(30)} even ${(e!.s5 / e!.n).toFixed(3)}/${(e!.rr / e!.n).toFixed(3)}  odd ${(o!.s5 / o!.n).toFixed(3)}/${(o!.rr / o!.n).toFixed(3)}`,
  );
await app.close();
