// The search query for a conversation. A follow-up ("and what about inflation?") needs the topic
// of the earlier turns: a generative engine rewrites it as a standalone search query; without
// one (or if the model fails), the previous question's names and keywords are carried over
// (conversation.ts). Either way the reasoning trace says what was searched and why.
import type { AnswerEngine } from '../engines/engine.ts';
import { EXTRA_TIMEOUT_MS } from '../related-questions.ts';
import { isFollowUp, MAX_QUERY_CHARS, searchQueryFor, type Conversation } from '../conversation.ts';

export async function standaloneQuery(
  conv: Conversation,
  engine: AnswerEngine,
  steps: string[],
  signal?: AbortSignal,
): Promise<string> {
  const carried = searchQueryFor(conv);
  if (carried === conv.question) return carried;
  if (conv.question.length > MAX_QUERY_CHARS) {
    steps.push(
      `The question is ${conv.question.length} characters long; searching with its last ${carried.length}, ending "…${carried.slice(-120).replace(/\s+/g, ' ')}".`,
    );
    return carried;
  }
  if (engine.generative && engine.ask && isFollowUp(conv.question)) {
    const turns = conv.history
      .slice(-4)
      .map((m) => `${m.role}: ${m.content.slice(0, 500)}`)
      .join('\n');
    try {
      const bounded = AbortSignal.any([AbortSignal.timeout(EXTRA_TIMEOUT_MS), ...(signal ? [signal] : [])]);
      const reply = await engine.ask(
        `Rewrite the last question of this conversation as one standalone search query (keywords, no explanation).\n${turns}\nuser: ${conv.question}`,
        { maxTokens: 48, signal: bounded },
      );
      const query = reply
        .split('\n')
        .map((l) => l.replace(/^["'\s]+|["'\s]+$/g, ''))
        .find((l) => l.length > 1);
      if (query) {
        steps.push(`It follows up on the conversation; the model rewrote it as "${query}".`);
        return query;
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      steps.push(
        `The model could not rewrite the follow-up (${(e as Error).message}); carrying the earlier topic instead.`,
      );
    }
  }
  steps.push(`It follows up on the conversation, so the search carries its topic: "${carried}".`);
  return carried;
}
