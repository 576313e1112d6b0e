// Answer first: what the extractive engine says, decided before any text is written.
//
// 1. Every sentence of the sources is scored by how much of the question it covers, each question
//    term weighted by its rarity among the candidate sentences (a sentence naming "Tokara" and
//    "earthquakes" beats one repeating "island" and "weeks"); the article title counts half.
// 2. From the question, the expected answer type (../text/answer-type.ts).
// 3. Typed candidates are mined from the best-covering sentences (names, numbers with their scale,
//    dates, and for "which/what" questions plain nouns too), and scored by independent support:
//    each source counts once, weighted by its search rank and by how well the sentence it appears
//    in covers the question (AskMSR's redundancy; Brill, Dumais & Banko 2002). Candidates that only
//    repeat the question are dropped; a single word inside a longer name is merged into the name.
// 4. The lead is the sentence the fitted answer score (./extractive-score.ts) rates highest: the
//    winning candidate's support is one of its features, beside coverage, recency among the
//    sources and rank. "Why" questions prefer causal sentences.
//    ("Summarize" questions never come here: ./extractive-digest.ts plans their digest.)
// 5. Weak evidence is a decline, said plainly: a name of the question no source contains, no
//    sentence covering the question's rarer terms, none of the sentences that cover it near one
//    of the question's names (and no candidate with a second source), or a best candidate that one
//    source names, weakly.
import type { GroundingSource } from './engine.ts';
import { splitSentences } from '../../text/sentences.ts';
import { STOPWORDS } from '../../text/stopwords.ts';
import { termOfWord, terms, words } from '../text/terms.ts';
import { jaccard, shinglesOfWords } from '../text/similarity.ts';
import { answerTypeOf, hasAnswerType, type AnswerType } from '../text/answer-type.ts';
import { explainScore, namesOf, rankPrior, scoreAnswers } from './extractive-score.ts';
import { sourceWords } from './source-words.ts';
import { lowerCaseLookup, nameKind } from '../text/name-kind.ts';
import { isSubjectName, subjectWords } from '../text/subject.ts';

export interface Sentence {
  source: GroundingSource;
  text: string;
  /** Order within its source (0 = first sentence considered). */
  position: number;
  words: string[];
  termSet: Set<string>;
  /** Question terms the sentence contains. */
  matched: string[];
  /** Share of the question's (rarity-weighted) terms covered, the title counting half. */
  coverage: number;
  /** coverage × the source's rank prior (+ type cues): what candidates are weighted by. */
  relevance: number;
  /** How likely the sentence holds the answer (./answer-score.ts): what the answer is picked by. */
  answerScore: number;
  /** entities(text), made when first needed (candidate mining and the answer score both read them). */
  names?: string[];
}

export interface AnswerCandidate {
  text: string;
  key: string;
  kind: 'name' | 'number' | 'date' | 'word';
  score: number;
  /** Input numbers of the sources that name it. */
  sources: Set<number>;
  /** Sentences it occurs in. */
  occurrences: Sentence[];
}

export type PlanKind = 'answer' | 'passages' | 'digest' | 'decline';

export interface AnswerPlan {
  kind: PlanKind;
  type: AnswerType;
  /** Sentences to quote, in the order to write them (lead first; digest newest first). */
  sentences: Sentence[];
  winner?: AnswerCandidate;
  /** Sources of different dates named different numbers or dates: the newest is the winner. */
  conflict?: { newer: string; newerAt: number; older: string; olderAt: number };
  /** The strongest candidates, best first (for the reasoning trace). */
  candidates: AnswerCandidate[];
  questionTerms: string[];
  /** Question terms no source contains (a decline names what is missing by them). */
  missing: string[];
  /** The question's names (capitalized words) no source contains, as the question wrote them. */
  namesMissing?: string[];
  considered: number;
  notes: string[];
}

export interface PlanOptions {
  /** Sentences quoted at most (lead included). */
  maxSentences: number;
  /** Sentences read per source (the pool; set by search_context_size). */
  poolPerSource: number;
  /** What sentences are matched against when it differs from the question (a follow-up's carried topic). */
  matchText?: string;
  /** Answer even when the evidence is weak (bench/answers-declines.ts measures what a decline costs). */
  neverDecline?: boolean;
}

/** Words that ask for a format or an action, not a topic ("summarize", "briefly"). */
const INSTRUCTION = new Set([
  'summarize',
  'summarise',
  'summary',
  'overview',
  'explain',
  'describe',
  'give',
  'briefly',
  'brief',
  'short',
  'sentence',
  'sentences',
  'bullet',
  'bullets',
  'list',
  'update',
  'updates',
  'catch',
  'rundown',
  'digest',
  'detail',
  'details',
  'please',
  'exactly',
  'happened',
  'happen',
  'name',
  'following',
  'which',
  'what',
]);

/** Below this coverage of the question by the best sentence, the sources do not answer it. */
const DECLINE_COVERAGE = 0.4;
/** …unless a candidate is named by this many sources (redundancy is evidence too). */
const DECLINE_SUPPORT = 3;
/**
 * Below this support a candidate named by one source only is no answer (support: the source's rank
 * prior times how much of the question its sentence covers, ./mineCandidates). On the news judge
 * (sonar, 6 sentences): unanswerable declined 13 -> 15 of 19 (odd 5/10 -> 7/10), correct-only even
 * 0.288 -> 0.285, odd 0.285 unchanged; sonar-pro 11 -> 13 of 19, even 0.282 -> 0.279, odd 0.282.
 * At 0.12: 15 of 19, correct-only 0.279 / 0.276.
 */
const WEAK_WINNER = 0.08;
/** Off topic: no title names this share of the question's terms and no second source covers … */
const OFF_TOPIC_TITLE = 0.2;
/** … this share of them. */
const OFF_TOPIC_SECOND = 0.25;
/**
 * Anchored coverage: below this share of the question, covered by a sentence whose context (itself,
 * the sentences before and after it, its headline) names one of the question's names, and with no
 * candidate named by two sources, the sources are about the question's words elsewhere (medical
 * aid in dying in Connecticut for a question on Delaware), not about what it asks.
 */
const ANCHORED_COVERAGE = 0.3;
/** How far back a sentence's context reaches when no sentence is read before it, in characters. */
const CONTEXT_CHARS = 200;
/** Sentences covering less than this share of the best coverage are not mined for candidates. */
const MINING_SHARE = 0.4;
const NEAR_DUPLICATE = 0.5;
/** A second candidate this close to the winner, from a source of another date, is a conflict. */
const CONFLICT_SHARE = 0.35;
/** Closeness weight: 1 / (1 + PROXIMITY × words between the candidate and a question word beyond 2). */
const PROXIMITY = 0.1;
const SPECIFICITY = 0;
const WORD_WEIGHT = 0.35;
/**
 * Weight of a name the source's headline or address gives, for a "what is X called" question:
 * an article's quotes name people more often than the thing it is about.
 */
const SUBJECT_NAME = 3;
/** The rest of the answer: only sentences covering at least this share of the best one's relevance. */
const FILL_SHARE = 0.15;
/** Answer-score bonus of a fill sentence for the share of question terms it adds to the quoted ones. */
const NEW_TERMS = 1;
/**
 * Measured on the even news questions and kept off: declining when the lead's answer score is
 * below 5.1 (unanswerable declined 11 -> 13 of 19, all on the odd half; correct-only even 0.276 ->
 * 0.274, odd 0.279 -> 0.271; and an absolute score does not carry to small libraries, where it
 * declined a question three articles answer); leaving out sentences that name a rival
 * candidate (correct-only 0.241 -> 0.212), one sentence per source (0.265 -> 0.244), scaling
 * candidates by how specific they are to the question's sentences (winner right 10.9 % -> 7.4 %).
 */
const AVOID_RIVALS = false;
const SUPPORT_OTHER_SOURCE = false;
const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DATE = new RegExp(
  String.raw`\b(?:(?:${MONTHS})\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}\s+(?:${MONTHS})\.?(?:\s+\d{4})?|(?:${MONTHS})\.?\s+\d{4}|(?:in|since|by|until|from)\s+(?:1[89]|20)\d\d)\b`,
  'gi',
);
/**
 * A figure with its scale or unit. A digit inside a word ("3D", "5G", "M5") is no figure: read as 3,
 * the "3D" of every sentence on a 3D printer joined the name "Ender 3 Pro" and outweighed its price.
 */
const NUMBER =
  /(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?%|\s?(?:percent|per cent|million|billion|trillion|thousand|hundred|mph|km|miles?|feet|foot|meters?|years?|months?|weeks?|days?|hours?|minutes?|people|points?|degrees?|cents?|dollars?|pounds?|euros?)\b|(?:mm|cm|kg|gb|tb|mb|ghz|mhz|st|nd|rd|th)\b|(?![\p{L}\d]))/giu;
const NAME_SKIP = new Set([
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'mr',
  'mrs',
  'ms',
  'dr',
  'officials',
  'police',
  'according',
  'image',
  'photo',
  'getty',
  'images',
  'associated press',
  'ap',
  'reuters',
  'usa today',
  'cnn',
  'bbc',
  'fox news',
  'nbc news',
  'cbs news',
  'abc news',
]);

function idfWeights(qTerms: string[], sentences: Sentence[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of qTerms) if (s.termSet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = sentences.length;
  const out = new Map<string, number>();
  // A term in no sentence weighs as much as one in a single sentence: missing rare words count.
  for (const t of qTerms) out.set(t, Math.log(1 + (n + 0.5) / (Math.max(1, df.get(t) ?? 0) + 0.5)));
  return out;
}

export function questionTermsOf(question: string): string[] {
  const kept = words(question)
    .filter((w) => !INSTRUCTION.has(w))
    .join(' ');
  const t = [...new Set(terms(kept))];
  return t.length ? t : [...new Set(terms(question))];
}

const CALENDAR =
  /^(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)$/i;

/** Above this share of capitalized content words, a question is in title case: no word is a name. */
const TITLE_CASE = 0.75;

/** "U.S." and "U.K." read as "US" and "UK", so a question's "US" meets the sources' "U.S.". */
export const joinInitials = (text: string) => text.replace(/\b([A-Z])\.([A-Z])\.(?!\w)/g, '$1$2');
/** Whether joinInitials changes the text. */
const INITIALS = /\b[A-Z]\.[A-Z]\.(?!\w)/;

/**
 * The question's names, as terms: its capitalized words except the first word of each of its
 * sentences and days and months ("Which Greek island was hit … on Wednesday?" -> greek). What the
 * question is about: an answer is expected from sources that name them.
 */
export function questionNames(question: string): { word: string; term: string }[] {
  const out: { word: string; term: string }[] = [];
  // A question in title case or capitals ("How Many People Died In The Storm?") has no names to tell.
  const inner = [...question.matchAll(/(?<=[^\s.?!:]\s+)\p{L}[\p{L}'’-]+/gu)]
    .map((m) => m[0])
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w.toLowerCase()));
  if (inner.length >= 3 && inner.filter((w) => /^\p{Lu}/u.test(w)).length > TITLE_CASE * inner.length) return out;
  for (const m of joinInitials(question).matchAll(/(?<=[^\s.?!:]\s+)[A-Z][\p{L}\p{N}'’-]*/gu)) {
    if (CALENDAR.test(m[0])) continue;
    // "Globes'" -> Globes, "YouTube-famous" -> YouTube, "Spain's" -> Spain.
    const word = m[0]
      .replace(/['’]+$/, '')
      .split('-')[0]!
      .replace(/['’]s$/, '');
    for (const term of terms(word)) if (!out.some((n) => n.term === term)) out.push({ word, term });
  }
  return out;
}

/**
 * The years a question names ("Who won the 2026 FIFA World Cup?") that no source mentions or was
 * published in: sources about another edition of the same thing (World Cup 2022) do not answer it,
 * however many of its words they share, so the year counts as a name.
 */
function yearsMissing(question: string, sources: GroundingSource[]): string[] {
  const years = [...new Set([...question.matchAll(/\b(1[89]\d\d|20\d\d)\b/g)].map((m) => m[1]!))];
  return years.filter(
    (year) =>
      !sources.some(
        (s) =>
          (s.hit.publishedAt != null && new Date(s.hit.publishedAt * 1000).getUTCFullYear() === Number(year)) ||
          s.hit.title.includes(year) ||
          s.texts.some((t) => t.includes(year)),
      ),
  );
}

export function readSentences(
  sources: GroundingSource[],
  poolPerSource: number,
  /** Each distinct word's termOfWord (null: none), filled as words are met (planAnswer reuses it). */
  termOf = new Map<string, string | null>(),
): Sentence[] {
  const out: Sentence[] = [];
  // termsOfWords, each distinct word's term worked out once for all the sentences.
  const termSetOf = (w: readonly string[]) => {
    const set = new Set<string>();
    for (const x of w) {
      let t = termOf.get(x);
      if (t === undefined) termOf.set(x, (t = termOfWord(x)));
      if (t !== null) set.add(t);
    }
    return set;
  };
  for (const source of sources) {
    const seen = new Set<string>();
    let position = 0;
    outer: for (const text of source.texts) {
      for (const sentence of splitSentences(text)) {
        if (position >= poolPerSource) break outer;
        // Questions ("What's next for NASA?") are headings in disguise, not answers.
        if (seen.has(sentence) || /\?["”’)]?$/.test(sentence)) continue;
        seen.add(sentence);
        const w = words(sentence);
        out.push({
          source,
          text: sentence,
          position: position++,
          words: w,
          termSet: termSetOf(w),
          matched: [],
          coverage: 0,
          relevance: 0,
          answerScore: 0,
        });
      }
    }
  }
  return out;
}

export { rankPrior };

/** Sets each sentence's matched terms, coverage of the question and relevance (coverage × rank prior). */
export function scoreSentences(
  sentences: Sentence[],
  sources: GroundingSource[],
  qTerms: string[],
  type: AnswerType,
): void {
  const idf = idfWeights(qTerms, sentences);
  const total = qTerms.reduce((a, t) => a + idf.get(t)!, 0);
  const titleTerms = new Map(sources.map((s) => [s.n, new Set(terms(s.hit.title))]));
  for (const s of sentences) {
    s.matched = qTerms.filter((t) => s.termSet.has(t));
    const title = titleTerms.get(s.source.n)!;
    let covered = 0;
    for (const t of qTerms) covered += s.termSet.has(t) ? idf.get(t)! : title.has(t) ? 0.5 * idf.get(t)! : 0;
    s.coverage = total ? covered / total : 0;
    const cue = type !== 'thing' && type !== 'none' && hasAnswerType(s.text, type) ? 0.08 : 0;
    const dangling = /^(he|she|they|it|this|these|those|that|his|her|their|its|but|and|so|also)\b/i.test(s.text)
      ? 0.9
      : 1;
    s.relevance = (s.coverage + cue) * rankPrior(s.source.n) * dangling;
  }
}

/** The plan for a question that is not a summary (those are planned by ./extractive-digest.ts, planDigest). */
export function planAnswer(question: string, sources: GroundingSource[], opts: PlanOptions): AnswerPlan {
  const type = answerTypeOf(question);
  const qTerms = questionTermsOf(opts.matchText ?? question);
  const termOf = new Map<string, string | null>();
  const sentences = readSentences(sources, opts.poolPerSource, termOf);
  const base = {
    type,
    candidates: [] as AnswerCandidate[],
    questionTerms: qTerms,
    considered: sentences.length,
    notes: [] as string[],
  };
  const present = new Set<string>();
  // terms(joinInitials(headline + ' ' + texts)), part by part: a part without initials ("U.S.") has
  // the words split for the answer score already, each distinct word stemmed once (most were, in
  // readSentences: its terms are reused).
  const stemmed = new Set<string>();
  const split = sources.map(sourceWords);
  sources.forEach((s, k) => {
    const parts = split[k]!.parts;
    [s.hit.title, ...s.texts].forEach((text, i) => {
      if (INITIALS.test(text)) for (const t of terms(joinInitials(text))) present.add(t);
      else
        for (const w of parts[i]!) {
          if (stemmed.has(w)) continue;
          stemmed.add(w);
          let t = termOf.get(w);
          if (t === undefined) termOf.set(w, (t = termOfWord(w)));
          if (t !== null) present.add(t);
        }
    });
  });
  const missing = qTerms.filter((t) => !present.has(t));
  const names = questionNames(question);
  const namesPresent = names.filter((n) => present.has(n.term));
  const namesMissing = [
    ...names.filter((n) => !present.has(n.term)).map((n) => n.word),
    ...yearsMissing(question, sources),
  ];
  if (!sentences.length || !qTerms.length)
    return { ...base, kind: 'decline', sentences: [], missing: qTerms, notes: ['No sentence to quote.'] };

  scoreSentences(sentences, sources, qTerms, type);
  const ranked = [...sentences].sort((a, b) => b.relevance - a.relevance);
  const bestCoverage = Math.max(...sentences.map((s) => s.coverage));
  const decline = (why: string): AnswerPlan => ({
    ...base,
    kind: 'decline',
    sentences: [],
    missing,
    ...(namesMissing.length ? { namesMissing } : {}),
    notes: [why],
  });
  const weak = (why: string): AnswerPlan | undefined => (opts.neverDecline ? undefined : decline(why));
  const coverageNote = `the best sentence covers ${(bestCoverage * 100).toFixed(0)} % of the question's terms (weighted by rarity)`;
  // No article is about the question: no title names a fifth of its terms and no second source covers a quarter.
  const sourceCoverage = new Map<number, number>();
  for (const s of sentences) sourceCoverage.set(s.source.n, Math.max(sourceCoverage.get(s.source.n) ?? 0, s.coverage));
  const secondCoverage = [...sourceCoverage.values()].sort((a, b) => b - a)[1] ?? 0;
  const titleCoverage = Math.max(
    ...sources.map((src) => {
      const title = new Set(terms(src.hit.title));
      return qTerms.filter((t) => title.has(t)).length / qTerms.length;
    }),
  );
  // A name the question asks about ("Which Greek island …") that no source contains: the sources
  // are about something else, however many of its other words they share.
  if (namesMissing.length) {
    const no = weak(`No source names ${namesMissing.join(', ')}.`);
    if (no) return no;
  }
  // Whether no sentence in the context of one of the question's names covers ANCHORED_COVERAGE of
  // it (without names: the coverage rules below already decline below it).
  const nameTerms = namesPresent.map((n) => n.term);
  let offNames: boolean | undefined;
  const notNearNames = () =>
    (offNames ??=
      nameTerms.length > 0 && anchoredCoverage(sentences, sources, nameTerms, ANCHORED_COVERAGE) < ANCHORED_COVERAGE);
  const anchorNote = `no sentence near ${namesPresent.map((n) => n.word).join(' or ')} covers ${ANCHORED_COVERAGE * 100} % of the question's terms`;
  if (titleCoverage < OFF_TOPIC_TITLE && secondCoverage < OFF_TOPIC_SECOND) {
    const no = weak(`No source is about the question: ${coverageNote}, no title names a fifth of its terms.`);
    if (no) return no;
  }
  if (type === 'reason' || type === 'yesno' || type === 'none') {
    const no =
      (bestCoverage < DECLINE_COVERAGE && weak(`Too little to answer from: ${coverageNote}.`)) ||
      (notNearNames() && weak(`Not about the question's names: ${anchorNote}.`));
    if (no) return no;
    return {
      ...base,
      kind: 'passages',
      sentences: diverse(ranked, opts.maxSentences, type === 'reason' ? causalFirst : undefined),
      missing,
      notes: [],
    };
  }

  const candidates = mineCandidates(
    opts.matchText ?? question,
    ranked.filter((s) => s.coverage >= MINING_SHARE * bestCoverage),
    type,
    sentences,
  );
  const features = scoreAnswers(
    opts.matchText ?? question,
    sentences,
    sources,
    qTerms,
    type,
    candidates,
    undefined,
    split.map((w) => w.all),
  );
  const byAnswer = [...sentences].sort((a, b) => b.answerScore - a.answerScore);
  let winner = candidates[0];
  // Weak coverage and no candidate that three sources agree on: the sources do not answer it.
  if (bestCoverage < DECLINE_COVERAGE && (winner?.sources.size ?? 0) < DECLINE_SUPPORT) {
    const no = weak(
      `Too little to answer from: ${coverageNote}, and no candidate is named by ${DECLINE_SUPPORT} sources.`,
    );
    if (no) return no;
  }
  // The sentences that cover the question are not about its names, and no candidate has a second source.
  if ((winner?.sources.size ?? 0) < 2 && notNearNames()) {
    const no = weak(`Not about the question's names: ${anchorNote}, and no candidate is named by 2 sources.`);
    if (no) return no;
  }
  // The best-supported candidate stands on one source, and weakly (named in a sentence that covers
  // little of the question, or in a low-ranked source): no candidate has enough support.
  if (winner && winner.sources.size === 1 && winner.score < WEAK_WINNER) {
    const no = weak(
      `Too little support: the best candidate, ${winner.text}, is named by one source only (support ${winner.score.toFixed(2)}).`,
    );
    if (no) return no;
  }
  // Sources of different dates disagree on a number or date: the newest wins, and the answer says so.
  let conflict: AnswerPlan['conflict'];
  const rival = candidates[1];
  if (
    winner &&
    rival &&
    (type === 'number' || type === 'date') &&
    rival.kind === winner.kind &&
    rival.score >= CONFLICT_SHARE * winner.score
  ) {
    const newest = (c: AnswerCandidate) => Math.max(...c.occurrences.map((o) => o.source.hit.publishedAt ?? 0));
    const [newer, older] = newest(rival) > newest(winner) ? [rival, winner] : [winner, rival];
    if (newest(newer) > newest(older)) {
      winner = newer;
      conflict = { newer: newer.text, newerAt: newest(newer), older: older.text, olderAt: newest(older) };
    }
  }
  if (!winner)
    return {
      ...base,
      kind: 'passages',
      sentences: diverse(ranked, opts.maxSentences),
      missing,
      notes: ['No typed candidate in the best sentences: quoting them.'],
    };
  // The lead is the sentence most likely to hold the answer (./extractive-score.ts: the winning
  // candidate's support is one of its features, with coverage, recency among the sources and
  // rank). Against the older rule (the winner's best-covering sentence, then one more sentence
  // repeating the winner), replayed on the news questions (bench/answers-tune.ts): correct-only
  // even 0.271 -> 0.276, odd 0.265 -> 0.279. When dated sources disagree, the lead is the newest
  // claim's best sentence.
  const lead = conflict ? [...winner.occurrences].sort((a, b) => b.answerScore - a.answerScore)[0]! : byAnswer[0]!;
  const picked = [lead];
  const rivals = candidates.slice(1, 4).filter((c) => c.score > 0.3 * winner.score);
  const shinglesOf = shinglesMemo();
  const fits = (s: Sentence) =>
    !picked.some(
      (p) =>
        p === s ||
        (SUPPORT_OTHER_SOURCE && p.source.n === s.source.n) ||
        jaccard(shinglesOf(p), shinglesOf(s)) > NEAR_DUPLICATE,
    );
  // The rest: the sentences most likely to hold the answer (./extractive-score.ts), a sentence
  // that covers question terms the quoted ones lack raised (a question about two things gets both).
  const covered = new Set(lead.matched);
  const rest = byAnswer.filter(
    (s) =>
      s !== lead &&
      // A sentence far from the question (an aside of another story) is never worth quoting.
      s.relevance >= FILL_SHARE * ranked[0]!.relevance &&
      !(AVOID_RIVALS && rivals.some((r) => r.occurrences.includes(s))),
  );
  while (picked.length < opts.maxSentences && rest.length) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    rest.forEach((s, i) => {
      const fresh = s.matched.filter((t) => !covered.has(t)).length / qTerms.length;
      const score = s.answerScore + NEW_TERMS * fresh;
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    const [s] = rest.splice(best, 1);
    if (!fits(s!)) continue;
    picked.push(s!);
    for (const t of s!.matched) covered.add(t);
  }
  const notes = conflict
    ? [
        `Conflict: "${conflict.newer}" (newest source ${isoDay(conflict.newerAt)}) against "${conflict.older}" (${isoDay(conflict.olderAt)}); the newest leads.`,
      ]
    : [];
  const leadNames = candidates.filter((c) => c.occurrences.includes(lead)).slice(0, 2);
  const second = byAnswer.find((s) => s !== lead && s.source.n !== lead.source.n);
  notes.unshift(
    `Why this lead: the sentence of [${lead.source.n}] ${
      conflict ? `that names the newest claim, "${winner.text}"` : 'with the highest answer score'
    } (${lead.answerScore.toFixed(2)}${second ? `; the best of another source, [${second.source.n}], has ${second.answerScore.toFixed(2)}` : ''}): ${explainScore(features.get(lead) ?? [])}${
      leadNames.length
        ? `; it names ${leadNames.map((c) => `"${c.text}" (${c.sources.size} source${c.sources.size === 1 ? '' : 's'})`).join(' and ')}`
        : '; it names none of the candidates'
    }.`,
  );
  if (conflict) {
    // The older claim is quoted after the newer one, so the reader sees both with their dates.
    const older = candidates
      .find((c) => c.text === conflict.older)
      ?.occurrences.sort((a, b) => b.relevance - a.relevance)[0];
    if (older && !picked.includes(older)) picked.splice(Math.min(picked.length, 1), 0, older);
    picked.splice(opts.maxSentences);
  }
  return {
    ...base,
    kind: 'answer',
    sentences: picked,
    winner,
    conflict,
    candidates: candidates.slice(0, 5),
    missing,
    notes,
  };
}

/**
 * A sentence's word shingles, from its words (split once, in readSentences), made once per
 * sentence of one plan: picking the quoted sentences compares each candidate with every one picked.
 */
function shinglesMemo(): (s: Sentence) => Set<string> {
  const made = new Map<Sentence, Set<string>>();
  return (s) => {
    let set = made.get(s);
    if (!set) made.set(s, (set = shinglesOfWords(s.words)));
    return set;
  };
}

export const isoDay = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);

const causalFirst = (s: Sentence) => (hasAnswerType(s.text, 'reason') ? 1.25 : 1);

/** Best sentences, near-duplicates and second sentences of a source skipped. */
function diverse(
  ranked: Sentence[],
  max: number,
  boost?: (s: Sentence) => number,
  shinglesOf = shinglesMemo(),
): Sentence[] {
  const order = boost ? [...ranked].sort((a, b) => b.relevance * boost(b) - a.relevance * boost(a)) : ranked;
  const picked: Sentence[] = [];
  const top = order[0]?.relevance ?? 0;
  for (const s of order) {
    if (picked.length >= Math.min(max, 3)) break;
    if (s.relevance < 0.6 * top) break;
    if (picked.some((p) => p.source.n === s.source.n || jaccard(shinglesOf(p), shinglesOf(s)) > NEAR_DUPLICATE))
      continue;
    picked.push(s);
  }
  return picked;
}

/**
 * The best coverage of a sentence whose context contains one of the name terms: its source's
 * headline, the sentence after it, and its source's text from the sentence before it (or
 * CONTEXT_CHARS back) to its end, which holds a heading the sentence splitter leaves out
 * ("Delaware" over a roundup's "Dover: …" paragraph).
 */
export function anchoredCoverage(
  sentences: Sentence[],
  sources: GroundingSource[],
  names: string[],
  /** Sentences covering less are not looked at (0 is returned when none above it is anchored). */
  floor = Number.MIN_VALUE,
): number {
  const titles = new Map(sources.map((s) => [s.n, new Set(terms(joinInitials(s.hit.title)))]));
  const at = new Map(sentences.map((s) => [`${s.source.n}:${s.position}`, s]));
  const named = (set: Set<string>) => names.some((t) => set.has(t));
  for (const s of [...sentences].sort((a, b) => b.coverage - a.coverage)) {
    if (s.coverage < floor) break;
    const next = at.get(`${s.source.n}:${s.position + 1}`);
    if (named(titles.get(s.source.n)!) || named(s.termSet) || (next && named(next.termSet))) return s.coverage;
    const text = s.source.texts.find((t) => t.includes(s.text));
    if (!text) continue;
    const end = text.indexOf(s.text) + s.text.length;
    const before = at.get(`${s.source.n}:${s.position - 1}`);
    const from = before ? text.lastIndexOf(before.text, end - s.text.length) : -1;
    const start = from >= 0 ? from : Math.max(0, end - s.text.length - CONTEXT_CHARS);
    if (named(new Set(terms(joinInitials(text.slice(start, end)))))) return s.coverage;
  }
  return 0;
}

function candidateKey(text: string): string {
  return words(text).join(' ');
}

/**
 * A candidate while mining, made by a constructor rather than an object literal: V8 pretenured the
 * literal's allocation site (and its `occurrences` array's), so candidates were born in the old
 * generation and the young strings and arrays they held outlived every scavenge (issue 26.4).
 */
class MinedCandidate {
  text: string;
  key: string;
  kind: AnswerCandidate['kind'];
  score = 0;
  sources = new Set<number>();
  // biome-ignore lint/style/useArrayLiterals: an array literal has an allocation site V8 pretenures.
  occurrences: Sentence[] = new Array<Sentence>();
  perSource = new Map<number, number>();
  constructor(text: string, key: string, kind: AnswerCandidate['kind']) {
    this.text = text;
    this.key = key;
    this.kind = kind;
  }
}

/** Typed candidates of the sentences, scored by independent, rank- and coverage-weighted support. */
export function mineCandidates(
  question: string,
  sentences: Sentence[],
  type: AnswerType,
  pool?: Sentence[],
): AnswerCandidate[] {
  const asked = new Set(words(question));
  const askedTerms = new Set(terms(question));
  const byKey = new Map<string, AnswerCandidate & { perSource: Map<number, number> }>();
  const stems = new Map<string, string>();
  const stemOf = (x: string) => {
    let t = stems.get(x);
    if (t === undefined) {
      t = terms(x)[0] ?? '';
      stems.set(x, t);
    }
    return t;
  };
  // The same words come back in many sentences ("thing" questions add every longer word): each
  // text's key, and whether a key repeats the question, is worked out once per call.
  const keys = new Map<string, string>();
  const keyOf = (text: string) => {
    let key = keys.get(text);
    if (key === undefined) keys.set(text, (key = candidateKey(text)));
    return key;
  };
  const refusedFigure = new Map<string, boolean>();
  const refusedOther = new Map<string, boolean>();
  const refused = (key: string, figure: boolean) => {
    const memo = figure ? refusedFigure : refusedOther;
    let no = memo.get(key);
    if (no === undefined) {
      const w = key.split(' ');
      // A candidate made mostly of question words repeats the question ("Stanley Cup Final").
      const repeated = w.filter((x) => asked.has(x) || askedTerms.has(stemOf(x) || x)).length;
      // Numbers and dates are judged by their figure alone ("19 people" for "how many people").
      no = figure ? asked.has(w[0]!) : repeated / w.length >= 0.5;
      memo.set(key, no);
    }
    return no;
  };
  const add = (text: string, kind: AnswerCandidate['kind'], s: Sentence, weight: number) => {
    const key = keyOf(text);
    if (!key || NAME_SKIP.has(key)) return;
    if (refused(key, kind === 'number' || kind === 'date')) return;
    let c = byKey.get(key);
    if (!c) {
      c = new MinedCandidate(text, key, kind);
      byKey.set(key, c);
    }
    // Sentences are mined one after the other, so the sentence is either the last occurrence or a
    // new one (a search of the whole list made long lists of common words quadratic).
    if (c.occurrences[c.occurrences.length - 1] !== s) c.occurrences.push(s);
    c.sources.add(s.source.n);
    const prev = c.perSource.get(s.source.n) ?? 0;
    // Independent support: a source counts once (its best occurrence), repeats add a little.
    c.perSource.set(s.source.n, Math.max(prev, weight) + 0.15 * Math.min(prev, weight));
  };
  const subjects = new Map<number, Set<string>>();
  const subjectOf = (source: GroundingSource) => {
    let set = subjects.get(source.n);
    if (!set) subjects.set(source.n, (set = subjectWords(source.hit.title, source.hit.url)));
    return set;
  };
  const texts = new Set<string>();
  for (const s of pool ?? sentences) for (const t of s.source.texts) texts.add(t);
  const lower = lowerCaseLookup(texts);
  for (const s of sentences) {
    const base = s.relevance * s.relevance;
    // Closeness to the question's words in the sentence (AskMSR): answers sit next to what was asked.
    // (Loops, not flatMap and spread: an array per word was a tenth of mining's garbage.)
    const at: number[] = [];
    for (let i = 0; i < s.words.length; i++) if (s.matched.includes(stemOf(s.words[i]!))) at.push(i);
    const near = (text: string) => {
      // The key is the text's words joined by spaces: its first word is words(text)[0].
      const key = keyOf(text);
      const space = key.indexOf(' ');
      const first = key ? (space < 0 ? key : key.slice(0, space)) : undefined;
      const i = first ? s.words.indexOf(first) : -1;
      if (i < 0 || !at.length) return 1;
      let d = Number.POSITIVE_INFINITY;
      for (const j of at) d = Math.min(d, Math.abs(j - i));
      return 1 / (1 + PROXIMITY * Math.max(0, d - 2));
    };
    const w = (text: string) => base * near(text);
    const typed = type === 'person' || type === 'place' || type === 'org';
    const wantsName = typed || type === 'thing' || type === 'name';
    for (const name of namesOf(s)) {
      // Not a name ("Politically" opening a sentence, "Feb. 11"), or a name of another kind than
      // asked for (a person for "which agency", an agency for "who"): not a candidate.
      const kind = nameKind(name, s.text, lower);
      if (kind === 'not-a-name' || (typed && kind !== 'unknown' && kind !== type)) continue;
      const initial = s.text.startsWith(name);
      const multi = name.includes(' ');
      const typeFit = wantsName ? (type === 'person' ? (multi ? 1.2 : 0.8) : 1) : 0.25;
      // "What is X called?": the name the article's headline or address gives is what it is about.
      const subject = type === 'name' && isSubjectName(name, subjectOf(s.source)) ? SUBJECT_NAME : 1;
      add(name, 'name', s, w(name) * typeFit * subject * (initial && !multi ? 0.4 : 1));
    }
    if (type === 'number' || type === 'thing') {
      for (const m of s.text.matchAll(NUMBER)) {
        const t = m[0].trim().replace(/[,.]+$/, '');
        if (!/^(1[89]|20)\d\d$/.test(t)) add(t, 'number', s, w(t) * (type === 'number' ? 1 : 0.3));
      }
    }
    if (type === 'date' || type === 'thing') {
      for (const m of s.text.matchAll(DATE)) {
        const t = m[0].replace(/^(in|since|by|until|from)\s+/i, '');
        add(t, 'date', s, w(t) * (type === 'date' ? 1 : 0.3));
      }
    }
    if (type === 'thing') {
      for (const x of s.words)
        if (x.length >= 4 && !asked.has(x) && stemOf(x) && !askedTerms.has(stemOf(x)))
          add(x, 'word', s, w(x) * WORD_WEIGHT);
    }
  }
  const list = [...byKey.values()];
  // A single word of a longer name ("Mamdani" in "Zohran Mamdani") supports the name.
  const names = list.filter((c) => c.kind === 'name' && c.key.includes(' '));
  // Each name's words once, not once per single-word candidate.
  const nameWords = names.map((n) => n.key.split(' '));
  for (const c of list) {
    if (c.key.includes(' ')) continue;
    const longer = names.filter((_, k) => nameWords[k]!.includes(c.key));
    if (!longer.length) continue;
    const into = longer.reduce((a, b) => (sum(b.perSource) > sum(a.perSource) ? b : a));
    for (const [n, v] of c.perSource) into.perSource.set(n, Math.max(into.perSource.get(n) ?? 0, v));
    for (const s of c.occurrences) if (!into.occurrences.includes(s)) into.occurrences.push(s);
    for (const n of c.sources) into.sources.add(n);
    c.perSource.clear();
  }
  for (const c of list) c.score = sum(c.perSource);
  const top = list
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, 30);
  // Specificity: a name found in every sentence of the pool ("U.S.", the story's protagonist) is
  // the topic, not the answer; the answer co-occurs with the question's rarer terms in particular.
  if (pool && SPECIFICITY > 0) {
    const padded = pool.map((s) => ` ${s.words.join(' ')} `);
    for (const c of top) {
      const everywhere = padded.reduce((n, p) => n + (p.includes(` ${c.key} `) ? 1 : 0), 0);
      c.score *= Math.min(1, c.occurrences.length / Math.max(1, everywhere)) ** SPECIFICITY;
    }
  }
  return top.sort((a, b) => b.score - a.score).map(({ perSource: _, ...c }) => c);
}

function sum(m: Map<number, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}
