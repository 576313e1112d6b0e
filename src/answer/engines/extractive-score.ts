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
import { sourceWords as splitWords } from './source-words.ts';

/** The features of a sentence, in the order of ANSWER_WEIGHTS (bench/answers-fit.ts fits them). */
export const FEATURES = [
  'coverage',
  'rank',
  'position',
  'sourceCoverage',
  'titleCoverage',
  'nextCoverage',
  'answerType',
  'namedSupport',
  'phraseSupport',
  'newNames',
  'dangling',
  'recency',
  'candidate',
  'winner',
] as const;

export type Feature = (typeof FEATURES)[number];

export const ANSWER_WEIGHTS: Record<Feature, number> = {
  coverage: 1.26,
  rank: 0.3,
  position: 0.99,
  sourceCoverage: 0.46,
  titleCoverage: 0.58,
  nextCoverage: 0.45,
  answerType: 0.54,
  namedSupport: 0.1,
  phraseSupport: 0.2,
  newNames: 0.37,
  dangling: -0.33,
  recency: 1.6,
  candidate: 0.82,
  winner: 0.52,
};

/** A sentence's entities(text), made once (candidate mining reads them too). */
export const namesOf = (s: Sentence): readonly string[] => (s.names ??= entities(s.text));

/** Sentences scored (by relevance): the others are never quoted after the lead. */
export const SCORED = 25;

const DANGLING = /^(he|she|they|it|this|these|those|that|his|her|their|its|but|and|so|also)\b/i;

/** A typed answer candidate as the scorer sees it (./extractive-answer.ts mines them). */
export interface ScoredCandidate {
  score: number;
  occurrences: Sentence[];
}

/**
 * How many sources hold a key and their summed coverage. A class, not an object literal: V8
 * pretenured the literal's allocation site (most outlive a young collection), so each answer's
 * records were born in the old generation and freed only by a full collection.
 */
class Support {
  sources = 0;
  weight = 0;
}

/**
 * The feature vector of each of the SCORED most relevant sentences (`coverage` and `relevance`
 * must be set: see scoreSentences); the other sentences are absent.
 */
export function answerFeatures(
  question: string,
  sentences: Sentence[],
  sources: GroundingSource[],
  qTerms: string[],
  type: AnswerType,
  candidates: ScoredCandidate[] = [],
  /** Each source's words(headline + ' ' + texts) when at hand (planAnswer splits them once). */
  sourceWords: readonly (readonly string[])[] = sources.map((s) => splitWords(s).all),
): Map<Sentence, number[]> {
  const asked = new Set(terms(question));
  const sourceCoverage = new Map<number, number>();
  for (const s of sentences) sourceCoverage.set(s.source.n, Math.max(sourceCoverage.get(s.source.n) ?? 0, s.coverage));
  // Which sources hold each single word and word pair (as a bit set of source positions); longer
  // names are looked up as phrases in the source's words.
  // No "a b" string is made for every pair of every source (most are never looked up, and they
  // were a tenth of an answer's garbage): a pair is keyed by its two words' numbers, first * (distinct words) + second: one integer (a
  // small one, as these texts hold a few thousand distinct words), not a map per first word
  // (those maps were a twentieth of an answer's garbage).
  const wordIds = new Map<string, number>();
  const holders: number[] = [];
  const sourceIds = sourceWords.map((w, i) => {
    const bit = 2 ** i;
    const ids: number[] = [];
    for (let j = 0; j < w.length; j++) {
      let id = wordIds.get(w[j]!);
      if (id === undefined) {
        wordIds.set(w[j]!, (id = wordIds.size));
        holders.push(0);
      }
      holders[id]! |= bit;
      ids.push(id);
    }
    return ids;
  });
  const wordMask = (word: string): number => {
    const id = wordIds.get(word);
    return id === undefined ? 0 : holders[id]!;
  };
  const pairMask = (one: string, two: string): number => {
    const a = wordIds.get(one);
    const b = wordIds.get(two);
    return a === undefined || b === undefined ? 0 : (pairHolders.get(a * base + b) ?? 0);
  };
  // Words never hold a space: a key with one space is a pair.
  const holderMask = (key: string): number => {
    const space = key.indexOf(' ');
    if (space < 0) return wordMask(key);
    return pairMask(key.slice(0, space), key.slice(space + 1));
  };
  /** How many sources a mask of holders holds (supportOf(key).sources for a word or a pair). */
  const holdersIn = (mask: number): number => {
    let n = 0;
    for (let i = 0; i < sources.length; i++) if ((mask & (2 ** i)) !== 0) n++;
    return n;
  };
  const padded: (string | undefined)[] = [];
  const support = new Map<string, Support>();
  const supportOf = (key: string) => {
    let r = support.get(key);
    if (!r) {
      r = new Support();
      const long = key.indexOf(' ') !== key.lastIndexOf(' ');
      const mask = long ? 0 : holderMask(key);
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
  const recency = recencyOf(sources);
  // The candidates' support, relative to the best one, by the sentences that name them.
  const topCandidate = candidates[0]?.score ?? 0;
  const candidateShare = new Map<Sentence, number>();
  for (const c of candidates)
    for (const o of c.occurrences)
      candidateShare.set(o, Math.max(candidateShare.get(o) ?? 0, topCandidate ? c.score / topCandidate : 0));
  const winner = new Set(candidates[0]?.occurrences ?? []);
  const at = new Map(sentences.map((s) => [`${s.source.n}:${s.position}`, s]));
  const out = new Map<Sentence, number[]>();
  // Only the best-covering sentences can be quoted; the rest are not worth the phrase lookups.
  const scored = [...sentences].sort((a, b) => b.relevance - a.relevance).slice(0, SCORED);
  const namesOfScored = scored.map((s) =>
    namesOf(s)
      .map((e) => words(e).join(' '))
      .filter((k) => k && !terms(k).every((t) => asked.has(t))),
  );
  const plain = (x: string) => !(x.length < 3 || STOPWORDS.has(x) || asked.has(stemOf(x)));
  // The pairs' holders, for the pairs whose first word opens a pair looked up below (a plain word
  // before another in a scored sentence, or a two-word name): the map of every pair of every
  // source was a twentieth of an answer's garbage, and most were never looked up.
  const base = wordIds.size;
  const opensPair = new Uint8Array(base);
  const opens = (word: string) => {
    const id = wordIds.get(word);
    if (id !== undefined) opensPair[id] = 1;
  };
  scored.forEach((s, k) => {
    const w = s.words;
    for (let i = 0; i + 1 < w.length; i++) if (plain(w[i]!) && plain(w[i + 1]!)) opens(w[i]!);
    for (const key of namesOfScored[k]!) {
      const space = key.indexOf(' ');
      if (space >= 0 && space === key.lastIndexOf(' ')) opens(key.slice(0, space));
    }
  });
  const pairHolders = new Map<number, number>();
  sourceIds.forEach((ids, i) => {
    const bit = 2 ** i;
    for (let j = 1; j < ids.length; j++) {
      if (opensPair[ids[j - 1]!] === 0) continue;
      const pair = ids[j - 1]! * base + ids[j]!;
      pairHolders.set(pair, (pairHolders.get(pair) ?? 0) | bit);
    }
  });
  for (const [k, s] of scored.entries()) {
    const own = sourceCoverage.get(s.source.n) ?? 0;
    const names = namesOfScored[k]!;
    let namedSupport = 0;
    for (const k of names) namedSupport = Math.max(namedSupport, supportOf(k).weight - own);
    // Phrases of one or two words, none a stop word or a question term, repeated by other sources.
    // The word and the pair starting at each word, read from the holders' masks directly (no
    // slice, join or key string per word of every scored sentence).
    let phraseSupport = 0;
    const w = s.words;
    for (let i = 0; i < w.length; i++) {
      const one = w[i]!;
      if (!plain(one)) continue;
      phraseSupport = Math.max(phraseSupport, holdersIn(wordMask(one)) - 1);
      if (i + 1 < w.length && plain(w[i + 1]!))
        phraseSupport = Math.max(phraseSupport, holdersIn(pairMask(one, w[i + 1]!)) - 1);
    }
    const f: Record<Feature, number> = {
      coverage: s.coverage,
      rank: rankPrior(s.source.n),
      position: 1 / (1 + s.position),
      sourceCoverage: own,
      titleCoverage: titleCoverage.get(s.source.n) ?? 0,
      nextCoverage: at.get(`${s.source.n}:${s.position + 1}`)?.coverage ?? 0,
      answerType: type !== 'thing' && hasAnswerType(s.text, type) ? 1 : 0,
      namedSupport,
      phraseSupport,
      newNames: Math.min(3, names.length),
      dangling: DANGLING.test(s.text) ? 1 : 0,
      recency: recency.get(s.source.n) ?? 0.5,
      candidate: candidateShare.get(s) ?? 0,
      winner: winner.has(s) ? 1 : 0,
    };
    out.set(
      s,
      FEATURES.map((k) => f[k]),
    );
  }
  return out;
}

/** What each feature means, for the reasoning trace ("why this lead"). */
const FEATURE_WORDS: Record<Feature, string> = {
  coverage: "covers the question's terms",
  rank: "its source's search rank",
  position: 'early in its article',
  sourceCoverage: 'its article covers the question',
  titleCoverage: "its headline names the question's terms",
  nextCoverage: 'the next sentence covers the question too',
  answerType: 'has the kind of answer asked for',
  namedSupport: 'names what other sources name',
  phraseSupport: 'repeats phrases other sources use',
  newNames: 'names something the question does not',
  dangling: 'opens with a pronoun',
  recency: 'among the newest sources',
  candidate: 'names a candidate several sources support',
  winner: 'names the best-supported candidate',
};

/** The largest parts of a sentence's answer score, in words: "covers the question's terms (+1.10), …". */
export function explainScore(features: number[], weights: Record<Feature, number> = ANSWER_WEIGHTS, top = 3): string {
  return FEATURES.map((k, i) => ({ k, part: features[i]! * weights[k] }))
    .filter((x) => Math.abs(x.part) >= 0.05)
    .sort((a, b) => Math.abs(b.part) - Math.abs(a.part))
    .slice(0, top)
    .map((x) => `${FEATURE_WORDS[x.k]} (${x.part >= 0 ? '+' : ''}${x.part.toFixed(2)})`)
    .join(', ');
}

/**
 * Sets `answerScore` on every sentence: the weighted features, or -Infinity when not scored.
 * Returns the features of the scored sentences (for the reasoning trace).
 */
export function scoreAnswers(
  question: string,
  sentences: Sentence[],
  sources: GroundingSource[],
  qTerms: string[],
  type: AnswerType,
  candidates: ScoredCandidate[] = [],
  weights: Record<Feature, number> = ANSWER_WEIGHTS,
  sourceWords?: readonly (readonly string[])[],
): Map<Sentence, number[]> {
  const features = answerFeatures(question, sentences, sources, qTerms, type, candidates, sourceWords);
  const w = FEATURES.map((k) => weights[k]);
  for (const s of sentences) {
    const f = features.get(s);
    s.answerScore = f ? f.reduce((a, x, i) => a + x * w[i]!, 0) : Number.NEGATIVE_INFINITY;
  }
  return features;
}

/**
 * Each source's place in time among the sources, 1 for the newest and 0 for the oldest (undated
 * sources in the middle): news questions are mostly about the newest of the stories found.
 */
export function recencyOf(sources: GroundingSource[]): Map<number, number> {
  const dated = sources.filter((s) => s.hit.publishedAt).sort((a, b) => a.hit.publishedAt! - b.hit.publishedAt!);
  const out = new Map<number, number>();
  for (const s of sources) out.set(s.n, 0.5);
  dated.forEach((s, i) => out.set(s.n, dated.length > 1 ? i / (dated.length - 1) : 0.5));
  return out;
}

/** Prior of a source by its search rank (1 = best). */
export const rankPrior = (n: number) => 1 / (1 + 0.12 * (n - 1));
