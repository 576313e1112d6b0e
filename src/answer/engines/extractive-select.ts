// Sentence selection of the extractive engine: which verbatim sentences of the sources best answer
// a question. Scoring is BM25 over the candidate sentences (each sentence a document) blended with
// the share of question terms a sentence covers (its article title counts half), a small prior for
// higher-ranked sources and lead sentences; the pick is MMR (relevance minus redundancy with what
// is already picked) with near-duplicates (word-shingle Jaccard) skipped outright.
import type { GroundingSource } from './engine.ts';
import { splitSentences } from '../../text/sentences.ts';
import { terms } from '../text/terms.ts';
import { jaccard, shingles } from '../text/similarity.ts';
import { answerTypeOf, hasAnswerType } from '../text/answer-type.ts';

export interface Candidate {
  source: GroundingSource;
  text: string;
  /** Order of the sentence within its source's texts (0 = first). */
  position: number;
  termList: string[];
  termSet: Set<string>;
  shingleSet: Set<string>;
  /** Question terms found in the sentence itself. */
  matched: string[];
  coverage: number;
  relevance: number;
}

export interface SelectOptions {
  maxSentences: number;
  maxPerSource: number;
  /** Candidate sentences read per source (the pool; set by search_context_size). */
  poolPerSource: number;
  /** Shingle sets of sentences already used elsewhere (other report sections): never repeat them. */
  avoid?: Set<string>[];
}

export interface Selection {
  /** Whether anything in the sources answers the question well enough to quote. */
  found: boolean;
  picked: Candidate[];
  queryTerms: string[];
  considered: number;
}

/** Added to the relevance (0..~1.05) of a sentence holding the kind of answer asked for. */
const ANSWER_TYPE_BONUS = 0.15;
const K1 = 1.2;
const B = 0.75;
/**
 * MMR trade-off: relevance weight against redundancy with sentences already picked. Measured on
 * the news corpus (BENCHMARKS.md): 0.72 -> 0.85 raised right-choice support 0.413 -> 0.453;
 * higher still gains little more and lets near-paraphrases through, so 0.85.
 */
const LAMBDA = 0.85;
const NEAR_DUPLICATE = 0.5;
/**
 * How much of the question a sentence must match, in "units": one per question term in the
 * sentence, a half per term only in its article's title. A sentence needs MIN_UNITS to be quoted
 * (fewer for one-term questions) and the best one FOUND_UNITS and FOUND_COVERAGE, else the sources
 * do not answer the question and the engine says so instead of quoting noise.
 */
const MIN_UNITS = 1.5;
const FOUND_UNITS = 2;
const FOUND_COVERAGE = 0.25;
/** Sentences opening with a pronoun lean on context the quote lacks. */
const DANGLING_START = /^(he|she|they|it|this|these|those|that|his|her|their|its|but|and|so|also)\b/i;

export function selectSentences(question: string, sources: GroundingSource[], opts: SelectOptions): Selection {
  const queryTerms = [...new Set(terms(question))];
  const q = new Set(queryTerms);
  const candidates: Candidate[] = [];
  for (const source of sources) {
    const titleTerms = new Set(terms(source.hit.title));
    const seen = new Set<string>();
    let position = 0;
    outer: for (const text of source.texts) {
      for (const sentence of splitSentences(text)) {
        if (position >= opts.poolPerSource) break outer;
        // Questions ("What's next for NASA?") are headings in disguise, not answers.
        if (seen.has(sentence) || /\?["”’)]?$/.test(sentence)) continue;
        seen.add(sentence);
        const termList = terms(sentence);
        const termSet = new Set(termList);
        const matched = queryTerms.filter((t) => termSet.has(t));
        const fromTitle = queryTerms.filter((t) => !termSet.has(t) && titleTerms.has(t)).length;
        const coverage = q.size ? (matched.length + 0.5 * fromTitle) / q.size : 0;
        candidates.push({
          source,
          text: sentence,
          position: position++,
          termList,
          termSet,
          shingleSet: shingles(sentence),
          matched,
          coverage,
          relevance: 0,
        });
      }
    }
  }
  if (!q.size || !candidates.length) return { found: false, picked: [], queryTerms, considered: candidates.length };

  scoreBm25(candidates, queryTerms);
  const wanted = answerTypeOf(question);
  if (wanted !== 'none') {
    for (const c of candidates) if (hasAnswerType(c.text, wanted)) c.relevance += ANSWER_TYPE_BONUS;
  }
  const units = (c: Candidate) => c.coverage * q.size;
  const eligible = candidates.filter((c) => c.matched.length > 0 && units(c) >= Math.min(MIN_UNITS, q.size));
  const best = eligible.reduce((m, c) => (units(c) > units(m) ? c : m), eligible[0]);
  if (!best || units(best) < Math.min(FOUND_UNITS, q.size) || best.coverage < FOUND_COVERAGE) {
    return { found: false, picked: [], queryTerms, considered: candidates.length };
  }

  const picked = mmr(eligible, opts);
  return { found: picked.length > 0, picked, queryTerms, considered: candidates.length };
}

function scoreBm25(cands: Candidate[], queryTerms: string[]): void {
  const n = cands.length;
  const df = new Map<string, number>();
  let totalLen = 0;
  for (const c of cands) {
    const tf = c.termList;
    totalLen += tf.length;
    for (const t of queryTerms) if (c.termSet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const avgdl = totalLen / n || 1;
  const raw: number[] = [];
  let max = 0;
  for (const c of cands) {
    const tf = c.termList;
    let s = 0;
    for (const t of c.matched) {
      let f = 0;
      for (const x of tf) if (x === t) f++;
      const d = df.get(t) ?? 0;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      s += (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * tf.length) / avgdl));
    }
    raw.push(s);
    if (s > max) max = s;
  }
  cands.forEach((c, i) => {
    const bm25 = max > 0 ? raw[i] / max : 0;
    const sourcePrior = 1 / (1 + 0.08 * (c.source.n - 1));
    const lead = c.position < 3 ? 0.05 : 0;
    const dangling = DANGLING_START.test(c.text) ? 0.85 : 1;
    c.relevance = ((0.55 * bm25 + 0.45 * c.coverage) * sourcePrior + lead) * dangling;
  });
}

function mmr(eligible: Candidate[], opts: SelectOptions): Candidate[] {
  const pool = [...eligible].sort((a, b) => b.relevance - a.relevance).slice(0, 200);
  const picked: Candidate[] = [];
  const perSource = new Map<number, number>();
  const avoid = opts.avoid ?? [];
  while (picked.length < opts.maxSentences && pool.length) {
    let bestI = -1;
    let bestScore = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      const c = pool[i];
      if ((perSource.get(c.source.n) ?? 0) >= opts.maxPerSource) continue;
      let redundancy = 0;
      for (const p of picked) redundancy = Math.max(redundancy, jaccard(c.termSet, p.termSet));
      const score = LAMBDA * c.relevance - (1 - LAMBDA) * redundancy;
      if (score > bestScore) {
        bestScore = score;
        bestI = i;
      }
    }
    if (bestI < 0) break;
    const [c] = pool.splice(bestI, 1);
    const duplicate =
      picked.some((p) => jaccard(c.shingleSet, p.shingleSet) > NEAR_DUPLICATE) ||
      avoid.some((s) => jaccard(c.shingleSet, s) > NEAR_DUPLICATE);
    if (duplicate) continue;
    // Stop once what is left is far weaker than the best sentence: padding dilutes the answer.
    if (picked.length >= 2 && c.relevance < 0.35 * picked[0].relevance) break;
    picked.push(c);
    perSource.set(c.source.n, (perSource.get(c.source.n) ?? 0) + 1);
  }
  return picked;
}
