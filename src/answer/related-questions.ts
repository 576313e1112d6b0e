// `related_questions`: follow-up questions drawn from what the search found but the answer did not
// use — the other prominent articles and the people, places and organisations they name. With a
// generative engine the model proposes them from the same material; if it fails, the derived ones
// are used. Never a canned list: every question names something from the retrieved articles.
import type { SearchHit } from '../search/types.ts';
import type { AnswerEngine } from './engines/engine.ts';
import { entities, keywords, words } from './text/terms.ts';

const COUNT = 4;
/** Longest wait for the model's related questions (and follow-up rewrites, see standalone-query.ts). */
export const EXTRA_TIMEOUT_MS = 15_000;

export async function relatedQuestionsFor(
  question: string,
  hits: SearchHit[],
  citedUrls: Set<string>,
  engine: AnswerEngine,
  signal?: AbortSignal,
): Promise<string[]> {
  const derived = deriveRelatedQuestions(question, hits, citedUrls);
  if (!engine.generative || !engine.ask || !hits.length) return derived;
  const titles = hits
    .slice(0, 10)
    .map((h, i) => `${i + 1}. ${h.title}`)
    .join('\n');
  const prompt =
    `A reader asked: "${question}"\nArticles found in their news feeds:\n${titles}\n\n` +
    `Write ${COUNT} short follow-up questions the reader might ask next, each answerable from these articles. One question per line, no numbering.`;
  try {
    // An extra must not hold the answer's end for the full LLM timeout: derived ones are fine.
    const bounded = AbortSignal.any([AbortSignal.timeout(EXTRA_TIMEOUT_MS), ...(signal ? [signal] : [])]);
    const reply = await engine.ask(prompt, { maxTokens: 200, signal: bounded });
    const lines = reply
      .split('\n')
      .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
      .filter((l) => l.endsWith('?') && l.length > 8);
    return lines.length ? lines.slice(0, COUNT) : derived;
  } catch {
    return derived;
  }
}

export function deriveRelatedQuestions(question: string, hits: SearchHit[], citedUrls: Set<string>): string[] {
  const asked = new Set(words(question));
  const topicNames = entities(question);
  const topic = topicNames[0] ?? keywords(question).slice(0, 3).join(' ');
  const overlapsQuestion = (phrase: string) => words(phrase).some((w) => asked.has(w));
  // Names that recur across the found articles (titles count double) and the question does not
  // already name: what else the reader's feeds say around this topic.
  const counts = new Map<string, { name: string; score: number; title: string }>();
  // Only the best hits: lower ones are weak keyword matches whose names would lead off-topic.
  const top = hits.slice(0, 8);
  const uncitedFirst = [...top.filter((h) => !citedUrls.has(h.url)), ...top.filter((h) => citedUrls.has(h.url))];
  uncitedFirst.forEach((hit, rank) => {
    // Citations list every source the answer drew on (5-10), so being cited no longer means quoted.
    const weight = 1 / (1 + rank * 0.1);
    const add = (name: string, w: number) => {
      if (overlapsQuestion(name) || name.split(' ').length > 4 || name.length < 3) return;
      const key = name.toLowerCase();
      const e = counts.get(key) ?? { name, score: 0, title: hit.title };
      e.score += w;
      counts.set(key, e);
    };
    for (const n of entities(hit.title, { strict: true })) add(n, 2 * weight);
    for (const p of hit.passages.slice(0, 3)) for (const n of entities(p.text, { strict: true })) add(n, weight);
  });
  // A name must recur (or head a title) to count as prominent; lone single words are often adjectives.
  const ranked = [...counts.values()]
    .filter((e) => e.score >= 1.5 && (e.name.includes(' ') || e.score >= 2))
    .sort((a, b) => b.score - a.score);
  const out: string[] = [];
  for (const e of ranked) {
    if (out.length >= COUNT) break;
    // "How is Clubs connected to Sumatran?" was nonsense: a connection question only between two real names.
    out.push(
      topicNames[0]?.includes(' ') && e.name.includes(' ') && out.length % 2 === 0
        ? `How is ${e.name} connected to ${topic}?`
        : `What is the latest on ${e.name}?`,
    );
  }
  // Few names: fall back to the headlines of articles the answer did not use.
  for (const hit of hits.slice(3, 10)) {
    if (out.length >= COUNT) break;
    if (!hit.title) continue;
    out.push(`What is behind the report "${hit.title.replace(/["“”]/g, '')}"?`);
  }
  return [...new Set(out)];
}
