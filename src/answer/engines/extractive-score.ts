// Which sentence holds the answer: a linear score over what the classic question-answering systems
// look at (AskMSR, Brill, Dumais & Banko 2002; the passage rankers after it), its weights fitted on
// the even questions of ../shared/corpus/news (a softmax over each question's sentences, the target
// being the sentences that name the correct choice) and checked on the odd ones. It ranks better
// than coverage alone at every cut-off on both halves (bench/answers-tune.ts; BENCHMARKS.md, issue 9).
//
// The features, in the order of their weight:
// - coverage: the share of the question's (rarity-weighted) terms the sentence contains;
// - the source's search rank, how well its best sentence and its title cover the question (an
//   answer sits in an article about the question, not in an aside of another story);
// - redundancy: the sentence's names and two-word phrases that other sources repeat (weighted by
//   how relevant those sources are) — the answer is what several sources agree on;
// - new names: a sentence that only restates the question names nothing new;
// - the expected answer type present (a date for "when", a number for "how many");
// - the next sentence covering the question (answers often follow the sentence that sets them up);
// - an early position in the source (best passages come first, then the article's opening).
import type { GroundingSource } from './engine.ts';
import type { Sentence } from './extractive-answer.ts';
import { hasAnswerType, type AnswerType } from '../text/answer-type.ts';
import { STOPWORDS } from '../../text/stopwords.ts';
import { entities, stem, terms, words } from '../text/terms.ts';

export const ANSWER_WEIGHTS = {
  coverage: 2.2,
  rank: 1.62,
  position: 0.51,
  sourceCoverage: 1.03,
  titleCoverage: 0.96,
  nextCoverage: 0.84,
  answerType: 0.75,
  namedSupport: 0.64,
  phraseSupport: 1.15,
  newNames: 0.93,
  dangling: -0.1,
};

/** Sentences scored (by relevance): the others are never quoted after the lead. */
const SCORED = 25;

const DANGLING = /^(he|she|they|it|this|these|those|that|his|her|their|its|but|and|so|also)\b/i;

/** Sets `answerScore` on every sentence (`coverage` must be set: see scoreSentences). */
export function scoreAnswers(
  question: string,
  sentences: Sentence[],
  sources: GroundingSource[],
  qTerms: string[],
  type: AnswerType,
): void {
  const asked = new Set(terms(question));
  const sourceCoverage = new Map<number, number>();
  for (const s of sentences) sourceCoverage.set(s.source.n, Math.max(sourceCoverage.get(s.source.n) ?? 0, s.coverage));
  // Which sources hold each single word and word pair (as a bit set of source positions); longer
  // names are looked up as phrases in the source's words.
  const holders = new Map<string, number>();
  const sourceWords = sources.map((src) => words(src.hit.title + ' ' + src.texts.join(' ')));
  sourceWords.forEach((w, i) => {
    const bit = 2 ** i;
    for (let j = 0; j < w.length; j++) {
      const one = w[j]!;
      holders.set(one, (holders.get(one) ?? 0) | bit);
      if (j + 1 < w.length) {
        const two = `${one} ${w[j + 1]}`;
        holders.set(two, (holders.get(two) ?? 0) | bit);
      }
    }
  });
  const padded: (string | undefined)[] = [];
  const support = new Map<string, { sources: number; weight: number }>();
  const supportOf = (key: string) => {
    let r = support.get(key);
    if (!r) {
      r = { sources: 0, weight: 0 };
      const long = key.indexOf(' ') !== key.lastIndexOf(' ');
      const mask = long ? 0 : (holders.get(key) ?? 0);
      for (let i = 0; i < sources.length; i++) {
        const found = long
          ? (padded[i] ??= ` ${sourceWords[i]!.join(' ')} `).includes(` ${key} `)
          : (mask & (2 ** i)) !== 0;
        if (found) {
          r.sources++;
          r.weight += sourceCoverage.get(sources[i]!.n) ?? 0;
        }
      }
      support.set(key, r);
    }
    return r;
  };
  const stems = new Map<string, string>();
  const stemOf = (x: string) => {
    let t = stems.get(x);
    if (t === undefined) stems.set(x, (t = stem(x)));
    return t;
  };
  const titleCoverage = new Map<number, number>();
  for (const s of sources) {
    const title = new Set(terms(s.hit.title));
    titleCoverage.set(s.n, qTerms.filter((t) => title.has(t)).length / Math.max(1, qTerms.length));
  }
  const at = new Map(sentences.map((s) => [`${s.source.n}:${s.position}`, s]));
  const W = ANSWER_WEIGHTS;
  // Only the best-covering sentences can be quoted; the rest are not worth the phrase lookups.
  const scored = new Set([...sentences].sort((a, b) => b.relevance - a.relevance).slice(0, SCORED));
  for (const s of sentences) {
    if (!scored.has(s)) {
      s.answerScore = Number.NEGATIVE_INFINITY;
      continue;
    }
    const own = sourceCoverage.get(s.source.n) ?? 0;
    const names = entities(s.text)
      .map((e) => words(e).join(' '))
      .filter((k) => k && !terms(k).every((t) => asked.has(t)));
    let namedSupport = 0;
    for (const k of names) namedSupport = Math.max(namedSupport, supportOf(k).weight - own);
    // Phrases of one or two words, none a stop word or a question term, repeated by other sources.
    let phraseSupport = 0;
    const w = s.words;
    for (let i = 0; i < w.length; i++)
      for (let n = 1; n <= 2 && i + n <= w.length; n++) {
        const gram = w.slice(i, i + n);
        if (gram.some((x) => x.length < 3 || STOPWORDS.has(x) || asked.has(stemOf(x)))) break;
        phraseSupport = Math.max(phraseSupport, supportOf(gram.join(' ')).sources - 1);
      }
    const next = at.get(`${s.source.n}:${s.position + 1}`)?.coverage ?? 0;
    s.answerScore =
      W.coverage * s.coverage +
      W.rank * rankPrior(s.source.n) +
      W.position / (1 + s.position) +
      W.sourceCoverage * own +
      W.titleCoverage * (titleCoverage.get(s.source.n) ?? 0) +
      W.nextCoverage * next +
      W.answerType * (type !== 'thing' && hasAnswerType(s.text, type) ? 1 : 0) +
      (W.namedSupport * namedSupport) / 3 +
      (W.phraseSupport * phraseSupport) / 7 +
      (W.newNames * Math.min(3, names.length)) / 3 +
      W.dangling * (DANGLING.test(s.text) ? 1 : 0);
  }
}

/** Prior of a source by its search rank (1 = best). */
export const rankPrior = (n: number) => 1 / (1 + 0.12 * (n - 1));
