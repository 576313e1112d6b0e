// `related_questions`: follow-up questions drawn from what the search found but the answer did not
// use — the other prominent articles and the people, places and organisations they name. With a
// generative engine the model proposes them from the same material; if it fails, the derived ones
// are used. Never a canned list: every question names something from the retrieved articles.
import type { SearchHit } from '../search/types.ts';
import type { AnswerEngine } from './engines/engine.ts';
import { entities, keywords, words } from './text/terms.ts';

const COUNT = 4;

export async function relatedQuestionsFor(question: string, hits: SearchHit[], citedUrls: Set<string>, engine: AnswerEngine, signal?: AbortSignal): Promise<string[]> {
  const derived = deriveRelatedQuestions(question, hits, citedUrls);
  if (!engine.generative || !engine.ask || !hits.length) return derived;
  const titles = hits.slice(0, 10).map((h, i) => `${i + 1}. ${h.title}`).join('\n');
  const prompt = `A reader asked: "${question}"\nArticles found in their news feeds:\n${titles}\n\n` +
    `Write ${COUNT} short follow-up questions the reader might ask next, each answerable from these articles. One question per line, no numbering.`;
  try {
    const reply = await engine.ask(prompt, { maxTokens: 200, signal });
    const lines = reply.split('\n').map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim()).filter((l) => l.endsWith('?') && l.length > 8);
    return lines.length ? lines.slice(0, COUNT) : derived;
  } catch {
    return derived;
  }
}

export function deriveRelatedQuestions(question: string, hits: SearchHit[], citedUrls: Set<string>): string[] {
  const asked = new Set(words(question));
  const topicNames = entities(question);
  const topic = topicNames[0] ?? keywords(question).slice(0, 3).join(' ');
  const mentionedInQuestion = (phrase: string) => words(phrase).every((w) => asked.has(w));
  // Articles the answer did not use first: they are what the reader has not seen yet.
  const ordered = [...hits.filter((h) => !citedUrls.has(h.url)), ...hits.filter((h) => citedUrls.has(h.url))];
  const out: string[] = [];
  const usedNames = new Set<string>();
  for (const hit of ordered) {
    if (out.length >= COUNT) break;
    const name = entities(hit.title).find((e) => !mentionedInQuestion(e) && !usedNames.has(e.toLowerCase()) && e.split(' ').length <= 4);
    if (name) {
      usedNames.add(name.toLowerCase());
      out.push(topic && !name.toLowerCase().includes(topic.toLowerCase())
        ? `How is ${name} connected to ${topic}?`
        : `What is the latest on ${name}?`);
    } else if (hit.title && !mentionedInQuestion(hit.title)) {
      out.push(`What is behind the report "${hit.title.replace(/["“”]/g, '')}"?`);
    }
  }
  return [...new Set(out)];
}
