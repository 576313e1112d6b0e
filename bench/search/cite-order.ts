// Orders of the citations list measured on captured answers (`node bench/answers-tune.ts capture
// … --cache FILE`): search order (what the pipeline lists), the sources the answer quotes first (in
// the order of their first [n] or in search order), the lead sentence's source first. success@5 /
// MRR as the judge computes them (first 5 / first 10 of the list), even / odd questions.
//
//   node bench/search/cite-order.ts FILE
import { readFileSync } from 'node:fs';
import { ExtractiveEngine } from '../../src/answer/engines/extractive.ts';
import type { EngineRequest } from '../../src/answer/engines/engine.ts';
import { readQuestions } from '../../src/answer/testing/news-corpus.ts';
import { normUrl } from '../answer-eval.ts';

const { captured } = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  captured: { id: string; withheld: boolean; req: EngineRequest }[];
};
const qs = readQuestions();
const byId = new Map(qs.map((q, i) => [q.id, { q, i }]));
const orders: Record<string, { n: number; s5: number; rr: number }[]> = {};
const add = (name: string, i: number, urls: string[], rel: Set<string>) => {
  const acc = (orders[name] ??= [0, 1].map(() => ({ n: 0, s5: 0, rr: 0 })))[i % 2]!;
  acc.n++;
  const f = urls.slice(0, 10).findIndex((u) => rel.has(normUrl(u)));
  if (f >= 0 && f < 5) acc.s5++;
  if (f >= 0) acc.rr += 1 / (f + 1);
};
for (const c of captured) {
  if (c.withheld) continue;
  const { q, i } = byId.get(c.id)!;
  let text = '';
  for await (const ch of new ExtractiveEngine().answer({ ...c.req, signal: undefined }))
    if (ch.type === 'text') text += ch.text;
  const urls = c.req.sources.map((s) => s.hit.url);
  const marks = [...new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))];
  const rel = new Set(q.relevant_urls.map(normUrl));
  add('search order', i, urls, rel);
  const quoteOrder = [...marks.map((n) => urls[n - 1]!), ...urls.filter((_, k) => !marks.includes(k + 1))];
  add('quoted first, quote order', i, quoteOrder, rel);
  const quotedSearch = [
    ...urls.filter((_, k) => marks.includes(k + 1)),
    ...urls.filter((_, k) => !marks.includes(k + 1)),
  ];
  add('quoted first, search order', i, quotedSearch, rel);
  const firstQuoted = marks.length ? [urls[marks[0]! - 1]!, ...urls.filter((_, k) => k + 1 !== marks[0])] : urls;
  add('lead sentence source first', i, firstQuoted, rel);
}
for (const [name, [e, o]] of Object.entries(orders))
  console.log(
    `${name.padEnd(30)} even ${(e!.s5 / e!.n).toFixed(3)}/${(e!.rr / e!.n).toFixed(3)}  odd ${(o!.s5 / o!.n).toFixed(3)}/${(o!.rr / o!.n).toFixed(3)}`,
  );
