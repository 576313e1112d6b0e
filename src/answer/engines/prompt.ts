// The grounded prompt sent to generative engines: numbered sources in the system message, the
// caller's own system messages after ours, the earlier turns, then the question.
import type { ChatMessage } from '../types.ts';
import type { AnswerStyle, EngineRequest } from './engine.ts';

const STYLE: Record<AnswerStyle, string> = {
  concise: 'Answer in one short paragraph (two to four sentences).',
  detailed: 'Answer thoroughly in a few paragraphs, covering every relevant aspect the sources give.',
  report: 'Write a structured research report in markdown: a short summary, then one "## " section per aspect, then a conclusion.',
};

export function buildPrompt(req: EngineRequest, today = new Date()): ChatMessage[] {
  const date = today.toISOString().slice(0, 10);
  let system: string;
  if (!req.searched) {
    system = `You are Tidings, a helpful assistant. Answer from your own knowledge. Today is ${date}. ${STYLE[req.style]}`;
  } else {
    const sources = req.sources.map((s) => {
      const day = s.hit.publishedAt ? `, ${new Date(s.hit.publishedAt * 1000).toISOString().slice(0, 10)}` : '';
      return `[${s.n}] ${s.hit.title} (${s.hit.sourceName}${day})\nURL: ${s.hit.url}\n${s.texts.join('\n')}`;
    }).join('\n\n');
    system = [
      `You are Tidings, an assistant that answers questions from the user's news feeds. Today is ${date}.`,
      'Use only the numbered sources below; do not add facts they do not contain.',
      'After each sentence that uses a source, cite it with its number in brackets, like [1] or [1][3]. Cite only the numbers listed below.',
      'If the sources do not answer the question, say so plainly.',
      STYLE[req.style],
      '',
      'Sources:',
      sources || '(no articles found)',
    ].join('\n');
  }
  return [
    { role: 'system', content: system },
    ...req.system.map((content) => ({ role: 'system' as const, content })),
    ...req.history,
    { role: 'user', content: req.question },
  ];
}
