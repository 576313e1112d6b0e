// From a chat conversation to what the pipelines need: the question (the last user message), the
// earlier turns, the caller's system instructions, and a search query that carries the topic of a
// follow-up ("what about Boeing?" after a question on Airbus delivery delays).
import type { ChatMessage } from './types.ts';
import { entities, keywords, words } from './text/terms.ts';

export interface Conversation {
  question: string;
  /** User/assistant turns before the question, oldest first. */
  history: ChatMessage[];
  system: string[];
}

export function readConversation(messages: ChatMessage[]): Conversation {
  const last = messages[messages.length - 1];
  return {
    question: last.content.trim(),
    history: messages.slice(0, -1).filter((m) => m.role !== 'system'),
    system: messages.filter((m) => m.role === 'system').map((m) => m.content),
  };
}

const FOLLOW_UP_START =
  /^(and|but|also|so|then|what about|how about|why|how come|what else|tell me more|more on|and what|is that|was that|were they|did they|does it|did it)\b/i;
const PRONOUNS = new Set([
  'it',
  'its',
  'they',
  'them',
  'their',
  'this',
  'that',
  'these',
  'those',
  'he',
  'she',
  'his',
  'her',
  'there',
]);

/** Whether a question leans on the conversation before it for its topic. */
export function isFollowUp(question: string): boolean {
  const w = words(question);
  if (FOLLOW_UP_START.test(question.trim())) return true;
  if (w.length <= 6 && w.some((x) => PRONOUNS.has(x))) return true;
  return keywords(question).length <= 1;
}

/**
 * The search query for a question: the question itself, plus — for a follow-up — the entities and
 * keywords of the previous user question that the follow-up does not already mention (its names
 * only when the follow-up does not bring a name of its own in their place).
 */
export function searchQueryFor(conv: Conversation): string {
  const previous = [...conv.history].reverse().find((m) => m.role === 'user');
  if (conv.question.length > MAX_QUERY_CHARS) return queryTail(conv.question);
  if (!previous || !isFollowUp(conv.question)) return conv.question;
  const have = new Set(words(conv.question));
  // "And in Germany?" after a question on France: a name of its own and no pronoun substitutes
  // the earlier names ("what about Boeing?" replaces Airbus); only the rest of the topic carries.
  // With a pronoun ("did Zelensky comment on it?") the earlier names are what it points to.
  const own = entities(conv.question).filter((e) => !/^(and|but|what|how|where|when|who|why|is|was)$/i.test(e));
  const substitutes = own.length > 0 && !words(conv.question).some((w) => PRONOUNS.has(w) && w !== 'there');
  const earlierNames = entities(previous.content);
  const nameWords = new Set(earlierNames.flatMap((n) => words(n)));
  const carried = [
    ...(substitutes ? [] : earlierNames),
    ...keywords(previous.content).filter((k) => !(substitutes && nameWords.has(k))),
  ].filter((t) => !words(t).every((w) => have.has(w)));
  const unique = [...new Set(carried.map((t) => t.toLowerCase()))].slice(0, 6);
  return unique.length ? `${conv.question} ${unique.join(' ')}` : conv.question;
}

/** Longest search query sent to the index: a pasted document is not a query, its end usually asks. */
export const MAX_QUERY_CHARS = 1_000;

/** The last MAX_QUERY_CHARS characters of a long text, starting at a word boundary. */
export function queryTail(text: string): string {
  if (text.length <= MAX_QUERY_CHARS) return text;
  const tail = text.slice(-MAX_QUERY_CHARS);
  return tail.slice(tail.search(/\s/) + 1).trim();
}
