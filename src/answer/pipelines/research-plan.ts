// Planning for deep research: how deep a given reasoning_effort goes, and the sub-questions. With
// a generative engine the model proposes the sub-questions; without one they come from the
// material: the names (people, places, organisations) that recur in what the first searches found
// become one sub-question each ("Artemis II" and "SpaceX" for a question on NASA's moon plans).
import type { SearchHit } from '../../search/types.ts';
import type { AnswerEngine } from '../engines/engine.ts';
import type { ReasoningEffort, SearchContextSize } from '../types.ts';
import { entities, keywords, terms, words } from '../text/terms.ts';

export interface ResearchDepth {
  /** Sub-questions beyond the question itself. */
  subQuestions: number;
  /** Search rounds: round 1 the question's reformulations, later rounds the sub-questions and what they turned up. */
  rounds: number;
  /** Articles read in full. */
  articles: number;
}

const DEPTH: Record<ReasoningEffort, ResearchDepth> = {
  minimal: { subQuestions: 1, rounds: 2, articles: 6 },
  low: { subQuestions: 2, rounds: 2, articles: 8 },
  medium: { subQuestions: 3, rounds: 2, articles: 12 },
  high: { subQuestions: 5, rounds: 3, articles: 16 },
};

export function researchDepth(effort: ReasoningEffort | undefined, size: SearchContextSize): ResearchDepth {
  const d = DEPTH[effort ?? 'medium'];
  return { ...d, articles: d.articles + (size === 'high' ? 4 : size === 'medium' ? 2 : 0) };
}

export interface SubQuestion {
  heading: string;
  question: string;
  query: string;
}

/** Content words of the question that a sub-question's query carries besides its names. */
const TOPIC_KEYWORDS = 4;

/** "US", "ICE", "U.S.": all capitals, which the lower-cased index reads as a word ("us", "ice"). */
const isAcronym = (name: string) => /^(?:\p{Lu}\.?){2,5}$/u.test(name);

/** The question's content words that are no part of its names. */
function contentWords(question: string, names: string[]): string[] {
  const named = new Set(names.flatMap((n) => words(n)));
  return keywords(question)
    .filter((w) => !named.has(w))
    .slice(0, TOPIC_KEYWORDS);
}

/**
 * The topic words of a question, for pairing with a sub-question's subject: its names, or its
 * keywords when it has none. Names that are only acronyms ("US") keep the question's content words
 * too: the index is lower-cased, so "ICE US" searches for ice and us and finds an ice-shelf story
 * for a question on US deportation flights.
 */
export function topicOf(question: string): string {
  const names = entities(question).slice(0, 2);
  // No names at all passes too: the keywords alone.
  const topicWords = names.every(isAcronym) ? contentWords(question, names) : [];
  return [...names, ...topicWords].join(' ').trim();
}

/** Names that recur in the hits but not in the question, most prominent first. */
export function prominentNames(question: string, hits: SearchHit[], exclude: Set<string>): string[] {
  const asked = new Set(words(question));
  const askedTerms = new Set(terms(question));
  // The question's own name in another form ("U.S" for "US", "Tonys" for "Tony Awards").
  const askedAlready = (name: string) => {
    const t = terms(name.replace(/\./g, ''));
    return t.length > 0 && t.every((x) => askedTerms.has(x));
  };
  // Only hits about the question's subject lend names: the first round's looser queries also find
  // articles that share a common word ("response") and nothing else, and a name from one of those
  // ("Thundermole", a routing library, for the response to the Bucha killings) makes an off-topic
  // section.
  const topic = terms(topicOf(question));
  const onTopic = (hit: SearchHit) => {
    if (!topic.length) return true;
    const seen = new Set(terms([hit.title, ...hit.passages.slice(0, 4).map((p) => p.text)].join(' ')));
    return topic.some((t) => seen.has(t));
  };
  const scores = new Map<string, { name: string; score: number }>();
  hits.slice(0, 15).forEach((hit, rank) => {
    if (!onTopic(hit)) return;
    const w = 1 / (1 + rank * 0.15);
    const add = (name: string, weight: number) => {
      const key = name.toLowerCase();
      if (
        exclude.has(key) ||
        words(name).some((x) => asked.has(x)) ||
        askedAlready(name) ||
        name.split(' ').length > 4 ||
        name.length < 3
      )
        return;
      const e = scores.get(key) ?? { name, score: 0 };
      e.score += weight;
      scores.set(key, e);
    };
    for (const n of entities(hit.title, { strict: true })) add(n, 2 * w);
    for (const p of hit.passages.slice(0, 4)) for (const n of entities(p.text, { strict: true })) add(n, w);
  });
  return [...scores.values()]
    .filter((e) => e.score >= 1.5)
    .sort((a, b) => b.score - a.score)
    .map((e) => e.name);
}

export function subQuestionsFromNames(question: string, names: string[]): SubQuestion[] {
  const topic = topicOf(question);
  return names.map((name) => ({
    heading: name,
    question: `${name} ${topic}`,
    query: `${name} ${topic}`.trim(),
  }));
}

/** Sub-questions proposed by a generative engine; undefined when it gives nothing usable. */
export async function subQuestionsFromModel(
  engine: AnswerEngine,
  question: string,
  count: number,
  signal?: AbortSignal,
): Promise<SubQuestion[] | undefined> {
  if (!engine.ask) return undefined;
  const reply = await engine.ask(
    `Plan research on this question: "${question}"\nWrite ${count} distinct sub-questions that together answer it, each a short search-engine style question. One per line, no numbering, nothing else.`,
    { maxTokens: 300, signal },
  );
  const lines = reply
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((l) => l.length > 5)
    .slice(0, count);
  if (!lines.length) return undefined;
  return lines.map((l) => ({ heading: l.replace(/\?$/, ''), question: l, query: l }));
}
