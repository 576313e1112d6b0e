// The built-in extractive engine: answers by quoting the sentences of the sources that best answer
// the question (see ./extractive-select.ts), each followed by its `[n]` marker. It never writes a
// claim of its own, needs no model weights and runs offline, which makes it the default.
import type { AnswerEngine, AnswerStyle, EngineChunk, EngineRequest } from './engine.ts';
import { selectSentences, type SelectOptions } from './extractive-select.ts';
import { CitationNumbers, renderQuotes, selectionNotes, type RenderBudget } from './extractive-render.ts';
import { AnswerError } from '../types.ts';
import { countTokens } from '../tokens.ts';
import { entities, keywords } from '../text/terms.ts';
import { queryTail } from '../conversation.ts';

const SHAPE: Record<AnswerStyle, Omit<SelectOptions, 'avoid'>> = {
  concise: { maxSentences: 4, maxPerSource: 2, poolPerSource: 80 },
  detailed: { maxSentences: 9, maxPerSource: 3, poolPerSource: 120 },
  report: { maxSentences: 5, maxPerSource: 3, poolPerSource: 200 },
};

/** "I found no articles about X in your feeds." — X named from the question's entities or keywords. */
export function noArticlesMessage(question: string): string {
  const names = entities(question);
  const topic = names.length ? joinAnd(names.slice(0, 3)) : keywords(question).slice(0, 5).join(' ');
  return topic ? `I found no articles about ${topic} in your feeds.` : 'I found no articles in your feeds that answer this question.';
}

export function joinAnd(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Word-level pieces (each word with the space before it) so streaming clients see real progress. */
export function* wordChunks(text: string): Generator<string> {
  const re = /\s*\S+/g;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(text))) { yield m[0]; last = re.lastIndex; }
  if (last < text.length) yield text.slice(last);
}

export class ExtractiveEngine implements AnswerEngine {
  readonly name = 'extractive';
  readonly generative = false;

  async *answer(req: EngineRequest): AsyncIterable<EngineChunk> {
    if (!req.searched) {
      throw new AnswerError('engine_unavailable', 'answering without search needs a generative engine: set TIDINGS_LLM_BASE_URL and TIDINGS_LLM_MODEL (the built-in extractive engine can only quote retrieved articles)');
    }
    const promptTokens = countTokens([req.question, ...req.sources.flatMap((s) => s.texts)].join('\n'));
    // A pasted document is not a question: sentences are scored against its end, as searched.
    const selection = selectSentences(queryTail(req.question), req.sources, SHAPE[req.style]);
    if (!selection.found) {
      const text = noArticlesMessage(queryTail(req.question));
      yield { type: 'cite', order: [], notes: [req.sources.length
        ? `None of the ${selection.considered} sentences of the ${req.sources.length} articles found covers enough of the question's terms (${selection.queryTerms.join(', ')}) to quote.`
        : 'The search returned no articles.'] };
      yield* this.emit(text);
      yield { type: 'end', finishReason: 'stop', usage: { promptTokens, completionTokens: countTokens(text) } };
      return;
    }
    const numbers = new CitationNumbers();
    const budget: RenderBudget = { remaining: req.maxTokens, cut: false };
    const text = renderQuotes(selection.picked, req.style, numbers, budget).join('\n\n');
    const notes = [
      `Ranked ${selection.considered} sentences of ${req.sources.length} articles by how well they match ${keywords(queryTail(req.question)).slice(0, 12).join(', ')} (BM25 and term coverage), then picked ${selection.picked.length} that add something new (MMR, near-duplicates skipped).`,
      ...selectionNotes(selection.picked, req.sources.map((s) => ({ n: s.n, title: s.hit.title })), numbers),
    ];
    yield { type: 'cite', order: numbers.order, notes };
    yield* this.emit(text);
    yield { type: 'end', finishReason: budget.cut ? 'length' : 'stop', usage: { promptTokens, completionTokens: countTokens(text) } };
  }

  private *emit(text: string): Generator<EngineChunk> {
    for (const piece of wordChunks(text)) yield { type: 'text', text: piece };
  }
}
