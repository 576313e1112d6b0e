// Sentence selection for the sections of a report (./extractive-report.ts): which verbatim
// sentences of a section's articles best answer its question. The same scorer as the answer's
// lead and fill (./extractive-answer.ts: coverage of the question's rarity-weighted terms, typed
// candidates with their support across sources; ./extractive-score.ts: the fitted answer score),
// then a greedy pick by that score with at most `maxPerSource` sentences per article, no sentence
// far weaker than the best, and near-duplicates (word-shingle Jaccard) of this section's or an
// earlier section's sentences skipped.
import type { GroundingSource } from './engine.ts';
import { jaccard, shingles } from '../text/similarity.ts';
import { answerTypeOf } from '../text/answer-type.ts';
import { mineCandidates, questionTermsOf, readSentences, scoreSentences } from './extractive-answer.ts';
import { explainScore, scoreAnswers } from './extractive-score.ts';

export interface Candidate {
  source: GroundingSource;
  text: string;
  /** Order of the sentence within its source's texts (0 = first). */
  position: number;
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
  /** Why each picked sentence was chosen, in words (for the reasoning trace). */
  reasons: Map<Candidate, string>;
  queryTerms: string[];
  considered: number;
}

/** The best sentence must cover this share of the question's (rarity-weighted) terms. */
const FOUND_COVERAGE = 0.25;
/** Sentences mined for candidates: those covering at least this share of the best coverage. */
const MINING_SHARE = 0.4;
/** Sentences after the first must reach this share of the best one's relevance. */
const FILL_SHARE = 0.15;
const NEAR_DUPLICATE = 0.5;

export function selectSentences(question: string, sources: GroundingSource[], opts: SelectOptions): Selection {
  const queryTerms = questionTermsOf(question);
  const sentences = readSentences(sources, opts.poolPerSource);
  if (!queryTerms.length || !sentences.length)
    return { found: false, picked: [], reasons: new Map(), queryTerms, considered: sentences.length };
  const type = answerTypeOf(question);
  scoreSentences(sentences, sources, queryTerms, type);
  const ranked = [...sentences].sort((a, b) => b.relevance - a.relevance);
  const best = ranked[0]!;
  const bestCoverage = Math.max(...sentences.map((s) => s.coverage));
  if (bestCoverage < FOUND_COVERAGE)
    return { found: false, picked: [], reasons: new Map(), queryTerms, considered: sentences.length };
  const candidates = mineCandidates(
    question,
    ranked.filter((s) => s.coverage >= MINING_SHARE * bestCoverage),
    type,
    sentences,
  );
  const features = scoreAnswers(question, sentences, sources, queryTerms, type, candidates);
  const picked: Candidate[] = [];
  const reasons = new Map<Candidate, string>();
  const perSource = new Map<number, number>();
  const avoid = opts.avoid ?? [];
  for (const s of [...sentences].sort((a, b) => b.answerScore - a.answerScore)) {
    if (picked.length >= opts.maxSentences || s.answerScore === Number.NEGATIVE_INFINITY) break;
    if ((perSource.get(s.source.n) ?? 0) >= opts.maxPerSource || s.matched.length === 0) continue;
    if (s.relevance < FILL_SHARE * best.relevance) continue;
    const shingleSet = shingles(s.text);
    const duplicate =
      picked.some((p) => jaccard(shingleSet, p.shingleSet) > NEAR_DUPLICATE) ||
      avoid.some((a) => jaccard(shingleSet, a) > NEAR_DUPLICATE);
    if (duplicate) continue;
    const c: Candidate = {
      source: s.source,
      text: s.text,
      position: s.position,
      termSet: s.termSet,
      shingleSet,
      matched: s.matched,
      coverage: s.coverage,
      relevance: s.answerScore,
    };
    picked.push(c);
    reasons.set(c, `answer score ${s.answerScore.toFixed(2)}: ${explainScore(features.get(s) ?? [])}`);
    perSource.set(s.source.n, (perSource.get(s.source.n) ?? 0) + 1);
  }
  return { found: picked.length > 0, picked, reasons, queryTerms, considered: sentences.length };
}
