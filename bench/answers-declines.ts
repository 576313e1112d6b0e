// Which signals tell a question the sources do not answer from one they do (issue 9, honest
// refusals): replays the captured engine inputs (bench/answers-tune.ts capture) and writes, per
// question, the evidence the decline rule could look at, labelled by what the judge wants:
//   U  withheld and truly unanswerable (the correct choice is in no remaining article): decline
//   A  withheld, the correct choice is still somewhere in the corpus (not judged)
//   C  answerable (all feeds) and answered correct-only today: a decline costs a right answer
//   W  answerable, answered wrong-only today: a decline helps wrong-only
//   B / N  answerable, answered with both / no choice: a decline costs nothing measured
//   node bench/answers-declines.ts --cache /tmp/ans-sonar.json [--out /tmp/features.jsonl]
import { readFileSync, writeFileSync } from 'node:fs';
import type { EngineRequest, GroundingSource } from '../src/answer/engines/engine.ts';
import { ExtractiveEngine } from '../src/answer/engines/extractive.ts';
import {
  anchoredCoverage,
  joinInitials,
  planAnswer,
  questionNames,
  questionTermsOf,
  readSentences,
  scoreSentences,
} from '../src/answer/engines/extractive-answer.ts';
import { answerTypeOf } from '../src/answer/text/answer-type.ts';
import { entities, terms, words } from '../src/answer/text/terms.ts';
import { readArticles, readQuestions } from '../src/answer/testing/news-corpus.ts';
import { declines, hasPhrase, normUrl, paddedWords, paddedWords as paddedWordsJ, verdictOf } from './answer-eval.ts';
import { splitSentences } from '../src/text/sentences.ts';

const argv = process.argv.slice(2);
const opt = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
const cache = opt('--cache') ?? '/tmp/answers-cache.json';
const out = opt('--out') ?? '/tmp/answers-declines.jsonl';
const { captured } = JSON.parse(readFileSync(cache, 'utf8')) as {
  captured: { id: string; withheld: boolean; req: Omit<EngineRequest, 'signal'> }[];
};
const questions = readQuestions();
const byId = new Map(questions.map((q) => [q.id, q]));
const index = new Map(questions.map((q, i) => [q.id, i]));
const held = new Set(questions.slice(0, 100).flatMap((q) => q.relevant_urls.map(normUrl)));
const remaining = paddedWords(
  readArticles()
    .filter((a) => !held.has(normUrl(a.url)))
    .map((a) => a.title + ' ' + a.text)
    .join(' '),
);

const padded = (t: string) => ` ${words(t).join(' ')} `;
const rows: Record<string, unknown>[] = [];
for (const c of captured) {
  const q = byId.get(c.id)!;
  const correct = q.choices[Number(q.answer[0])]!;
  let text = '';
  for await (const ch of new ExtractiveEngine().answer({ ...c.req, signal: undefined }))
    if (ch.type === 'text') text += ch.text;
  const verdict = verdictOf(text, q);
  let forcedText = '';
  for await (const ch of new ExtractiveEngine({ neverDecline: true }).answer({ ...c.req, signal: undefined }))
    if (ch.type === 'text') forcedText += ch.text;
  const forced = verdictOf(forcedText, q);
  const declined = verdict === 'none' && declines(text, ['x']);
  const label = c.withheld
    ? hasPhrase(remaining, correct)
      ? 'A'
      : 'U'
    : { correct_only: 'C', wrong_only: 'W', both: 'B', none: 'N' }[verdict];
  const sources = c.req.sources as GroundingSource[];
  const question = c.req.question;
  const plan = planAnswer(question, sources, { maxSentences: 4, poolPerSource: 80, neverDecline: true });
  const type = answerTypeOf(question);
  const qTerms = questionTermsOf(question);
  const sentences = readSentences(sources, 80);
  scoreSentences(sentences, sources, qTerms, type);
  const srcText = sources.map((s) => padded(s.hit.title + ' ' + s.texts.join(' ')));
  const all = srcText.join(' ');
  // The question's names (capitalized spans, the opening word dropped when it is the only one).
  const names = entities(question, { strict: true }).map((e) => words(e).join(' '));
  const namesMissing = names.filter((n) => !all.includes(` ${n} `));
  const nums = (question.match(/\d[\d.,]*\d|\d/g) ?? []).filter((n) => !/^(19|20)\d\d$/.test(n));
  const numsMissing = nums.filter((n) => !all.includes(` ${words(n).join(' ')} `));
  // Best coverage of a sentence that also names every question name the sources have.
  const present = names.filter((n) => !namesMissing.includes(n));
  const coocCoverage = Math.max(
    0,
    ...sentences.filter((s) => present.every((n) => padded(s.text).includes(` ${n} `))).map((s) => s.coverage),
  );
  // Passage coverage: the share of question terms (unweighted) one passage has together.
  const passageShare = Math.max(
    0,
    ...sources.flatMap((s) =>
      s.texts.map((t) => {
        const ts = new Set(terms(s.hit.title + ' ' + t));
        return qTerms.filter((x) => ts.has(x)).length / Math.max(1, qTerms.length);
      }),
    ),
  );
  const sourceBest = new Map<number, number>();
  for (const s of sentences) sourceBest.set(s.source.n, Math.max(sourceBest.get(s.source.n) ?? 0, s.coverage));
  const covs = [...sourceBest.values()].sort((a, b) => b - a);
  // Term-level: the question's capitalized words (not its first word), U.S. read as US.
  const norm = (t: string) => t.replace(/\b([A-Z])\.([A-Z])\.(?!\w)/g, '$1$2');
  const srcTerms = new Set(sources.flatMap((s) => terms(norm(s.hit.title + ' ' + s.texts.join(' ')))));
  const CAL =
    /^(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)$/i;
  const capWords = [...norm(question).matchAll(/(?<=[^\s.?!:]\s+)[A-Z][\p{L}\p{N}'’-]*/gu)]
    .map((m) => m[0])
    .filter((w) => !CAL.test(w));
  const capTerms = [
    ...new Set(
      capWords.flatMap((w) =>
        terms(
          w
            .replace(/['’]+$/, '')
            .split('-')[0]!
            .replace(/['’]s$/, ''),
        ),
      ),
    ),
  ];
  const capMissing = capTerms.filter((t) => !srcTerms.has(t));
  const rawAll = sources.map((s) => s.hit.title + ' ' + s.texts.join(' ')).join(' ');
  const numsRaw = (question.match(/\d+(?:[.,]\d+)*/g) ?? []).filter((n) => !/^(19|20)\d\d$/.test(n));
  const numsRawMissing = numsRaw.filter(
    (n) => !new RegExp(`(?<![\\d.,])${n.replace(/[.]/g, '\\.')}(?![\\d]|[.,]\\d)`).test(rawAll),
  );
  // Windowed co-occurrence: the best coverage of a sentence whose context (itself, the sentence
  // before and after, its headline) holds every capitalized question term the sources have.
  const capPresent = capTerms.filter((t) => srcTerms.has(t));
  const byKey = new Map(sentences.map((s) => [`${s.source.n}:${s.position}`, s]));
  const titleT = new Map(sources.map((s) => [s.n, new Set(terms(norm(s.hit.title)))]));
  const ctxHas = (s: (typeof sentences)[number], t: string) =>
    titleT.get(s.source.n)!.has(t) ||
    [-1, 0, 1].some((d) => {
      const o = byKey.get(`${s.source.n}:${s.position + d}`);
      return o ? new Set(terms(norm(o.text))).has(t) : false;
    });
  const sentHas = (s: (typeof sentences)[number], t: string) => new Set(terms(norm(s.text))).has(t);
  const coocWin = Math.max(0, ...sentences.filter((s) => capPresent.every((t) => ctxHas(s, t))).map((s) => s.coverage));
  const coocSent = Math.max(
    0,
    ...sentences.filter((s) => capPresent.every((t) => sentHas(s, t))).map((s) => s.coverage),
  );
  const anchored = (p: number) =>
    Math.max(
      0,
      ...sentences.map(
        (s) =>
          s.coverage * (capPresent.length ? capPresent.filter((t) => ctxHas(s, t)).length / capPresent.length : 1) ** p,
      ),
    );
  const pool = paddedWordsJ(sources.flatMap((s) => s.texts.flatMap(splitSentences)).join(' '));
  const inSources = hasPhrase(pool, correct);
  // Rarity among the sentences: a question term in no sentence weighs as much as one in a single one.
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of qTerms) if (s.termSet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (sentences.length + 0.5) / (Math.max(1, df.get(t) ?? 0) + 0.5));
  const totalIdf = qTerms.reduce((a, t) => a + idf(t), 0) || 1;
  const missW = qTerms.filter((t) => !srcTerms.has(t)).reduce((a, t) => a + idf(t), 0) / totalIdf;
  const presentByRarity = qTerms
    .filter((t) => (df.get(t) ?? 0) > 0)
    .sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0));
  const rare2 = presentByRarity.slice(0, 2);
  const rarePair = sentences.some((s) => rare2.every((t) => s.termSet.has(t)));
  const rare3 = presentByRarity.slice(0, 3);
  const rareTriple = sentences.some((s) => rare3.every((t) => s.termSet.has(t)));
  // Any-anchored: best coverage of a sentence whose context holds at least one present name term.
  const anyAnch = capPresent.length
    ? Math.max(0, ...sentences.filter((s) => capPresent.some((t) => ctxHas(s, t))).map((s) => s.coverage))
    : (covs[0] ?? 0);
  // Name-weighted coverage: capitalized question terms weigh k times their rarity.
  const nameW = (k: number) => {
    const wt = (t: string) => idf(t) * (capTerms.includes(t) ? k : 1);
    const tot = qTerms.reduce((a, t) => a + wt(t), 0) || 1;
    return Math.max(
      0,
      ...sentences.map((s) => {
        const title = titleT.get(s.source.n)!;
        let c = 0;
        for (const t of qTerms) c += s.termSet.has(t) ? wt(t) : title.has(t) ? 0.5 * wt(t) : 0;
        return c / tot;
      }),
    );
  };
  // The engine's own anchoring (extractive-answer.ts), and the focus: question terms most sources lack.
  const engineNames = questionNames(question).filter((n) => srcTerms.has(n.term));
  const anch = engineNames.length
    ? anchoredCoverage(
        sentences,
        sources,
        engineNames.map((n) => n.term),
      )
    : (covs[0] ?? 0);
  const srcSets = sources.map((s) => new Set(terms(joinInitials(s.hit.title + ' ' + s.texts.join(' ')))));
  const focusTerms = qTerms.filter((t) => srcSets.filter((x) => x.has(t)).length < sources.length / 2);
  const focusTot = focusTerms.reduce((a, t) => a + idf(t), 0) || 1;
  const focus = Math.max(
    0,
    ...sentences.map((s) => focusTerms.filter((t) => s.termSet.has(t)).reduce((a, t) => a + idf(t), 0) / focusTot),
  );
  const lead = plan.sentences[0];
  rows.push({
    id: c.id,
    i: index.get(c.id),
    withheld: c.withheld,
    label,
    declined,
    type,
    kind: plan.kind,
    q: question,
    best: covs[0] ?? 0,
    second: covs[1] ?? 0,
    third: covs[2] ?? 0,
    over40: covs.filter((x) => x >= 0.4).length,
    missing: plan.missing.length / Math.max(1, qTerms.length),
    names: names.length,
    namesMissing: namesMissing.length,
    nums: nums.length,
    numsMissing: numsMissing.length,
    coocCoverage,
    capTerms: capTerms.length,
    capMissing: capMissing.length,
    numsRaw: numsRaw.length,
    numsRawMissing: numsRawMissing.length,
    coocWin,
    coocSent,
    anch,
    focus,
    nFocus: focusTerms.length,
    hitScore: sources[0]?.hit.score ?? 0,
    passScore: Math.max(0, ...sources.flatMap((s) => s.hit.passages.map((p) => p.score))),
    pass2: [...sources.map((s) => Math.max(0, ...s.hit.passages.map((p) => p.score)))].sort((a, b) => b - a)[1] ?? 0,
    forced,
    titleCov: Math.max(
      ...sources.map((src) => {
        const title = new Set(terms(src.hit.title));
        return qTerms.filter((t) => title.has(t)).length / Math.max(1, qTerms.length);
      }),
    ),
    anyAnch,
    nw2: nameW(2),
    nw3: nameW(3),
    inSources,
    missW,
    rarePair,
    rareTriple,
    nPresent: presentByRarity.length,
    nTerms: qTerms.length,
    over30: covs.filter((x) => x >= 0.3).length,
    asOf: c.req.asOf,
    newest: Math.max(0, ...sources.map((s) => s.hit.publishedAt ?? 0)),
    anch1: anchored(1),
    anch05: anchored(0.5),
    anch2: anchored(2),
    passageShare,
    winnerScore: plan.winner?.score ?? 0,
    winnerSources: plan.winner?.sources.size ?? 0,
    runnerUp: plan.candidates[1] ? plan.candidates[1].score / (plan.winner?.score || 1) : 0,
    leadScore: lead?.answerScore ?? 0,
    leadCoverage: lead?.coverage ?? 0,
  });
}
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`${rows.length} rows -> ${out}`);
