// The one generative engine: a grounded prompt (prompt.ts) sent to a chat backend that streams
// tokens, `[n]` markers checked against the sources, reasoning (inline <think> or a separate
// reasoning channel) separated from the answer. The backend is where the model runs: an
// OpenAI-compatible server (openai-compatible.ts) or the local model runtime (../local/). Both
// answer the same chat call, so every pipeline (answers, related questions, follow-up rewriting,
// deep-research planning) works the same on either.
import type { AnswerEngine, EngineChunk, EngineRequest, EngineUsage } from './engine.ts';
import type { ChatMessage, FinishReason, Sampling } from '../types.ts';
import { CitationMarkerFilter } from './citation-markers.ts';
import { ThinkSplitter } from './think-splitter.ts';
import { buildPrompt } from './prompt.ts';
import { countTokens } from '../tokens.ts';

export interface ChatCall {
  messages: ChatMessage[];
  maxTokens?: number;
  sampling: Sampling;
  responseFormat?: unknown;
  /** False: the reply's reasoning would not be shown, so a thinking model should not think. */
  thinking?: boolean;
  signal?: AbortSignal;
}

/** One streamed piece of a chat reply. */
export interface ChatDelta {
  content?: string;
  /** Reasoning sent apart from the content (DeepSeek-style servers, thinking models run locally). */
  reasoning?: string;
  finishReason?: FinishReason;
  usage?: EngineUsage;
}

export interface ChatBackend {
  /** Names where the model runs, for engine names and error messages. */
  readonly name: string;
  /** Context window in tokens: the prompt is fitted into it. */
  readonly contextTokens: number;
  stream(call: ChatCall): AsyncIterable<ChatDelta>;
  /**
   * Tokens the messages take in the model's own tokenizer, when the backend can tell (the local
   * runtime can; a remote server cannot). The prompt is built with gpt-tokenizer's counts, which
   * a small model's vocabulary can exceed several times: the engine shrinks the budget until the
   * real count fits.
   */
  countTokens?(messages: ChatMessage[], signal?: AbortSignal): Promise<number>;
}

export class GenerativeEngine implements AnswerEngine {
  readonly name: string;
  readonly generative = true;
  readonly backend: ChatBackend;

  constructor(backend: ChatBackend) {
    this.backend = backend;
    this.name = backend.name;
  }

  async *answer(req: EngineRequest): AsyncIterable<EngineChunk> {
    yield { type: 'cite', order: req.sources.map((s) => s.n), notes: [] };
    const messages = await this.prompt(req);
    const markers = new CitationMarkerFilter(req.sources.length);
    const splitter = new ThinkSplitter();
    let finishReason: FinishReason = 'stop';
    let usage: EngineUsage | undefined;
    let generated = '';
    for await (const d of this.backend.stream({
      messages,
      maxTokens: req.maxTokens,
      sampling: req.sampling,
      responseFormat: req.responseFormat,
      thinking: req.showsReasoning ?? true,
      signal: req.signal,
    })) {
      if (d.reasoning) {
        generated += d.reasoning;
        yield { type: 'reasoning', text: d.reasoning };
      }
      if (d.content) {
        generated += d.content;
        for (const part of splitter.push(d.content)) yield* this.part(part.kind, part.text, markers);
      }
      if (d.finishReason) finishReason = d.finishReason;
      if (d.usage) usage = d.usage;
    }
    for (const part of splitter.flush()) yield* this.part(part.kind, part.text, markers);
    const rest = markers.flush();
    if (rest) yield { type: 'text', text: rest };
    yield {
      type: 'end',
      finishReason,
      usage: usage ?? {
        promptTokens: countTokens(messages.map((m) => m.content).join('\n')),
        completionTokens: countTokens(generated),
      },
    };
  }

  /**
   * buildPrompt's messages, rebuilt for a smaller budget until the backend's own token count leaves
   * room for the answer. buildPrompt counts with gpt-tokenizer; the ratio of the model's count to
   * that count says how much smaller the budget must be.
   */
  private async prompt(req: EngineRequest): Promise<ChatMessage[]> {
    const context = this.backend.contextTokens;
    let messages = buildPrompt(req, context);
    if (!this.backend.countTokens) return messages;
    const reserve = req.maxTokens ?? Math.min(2_048, Math.floor(context / 4));
    const limit = Math.max(1, context - reserve);
    let budget = context;
    for (let i = 0; i < 4; i++) {
      const n = await this.backend.countTokens(messages, req.signal);
      if (n <= limit) break;
      const ours = messages.reduce((sum, m) => sum + countTokens(m.content) + 8, 0);
      const next = reserve + Math.floor((limit * ours) / n) - 16 * (i + 1);
      if (next >= budget) break;
      budget = Math.max(reserve + 16, next);
      messages = buildPrompt({ ...req, maxTokens: reserve }, budget);
    }
    return messages;
  }

  private *part(kind: 'reasoning' | 'text', text: string, markers: CitationMarkerFilter): Generator<EngineChunk> {
    if (kind === 'reasoning') {
      yield { type: 'reasoning', text };
      return;
    }
    const t = markers.push(text);
    if (t) yield { type: 'text', text: t };
  }

  async ask(prompt: string, opts: { maxTokens: number; signal?: AbortSignal }): Promise<string> {
    const parts: string[] = [];
    for await (const d of this.backend.stream({
      messages: [{ role: 'user', content: prompt }],
      maxTokens: opts.maxTokens,
      sampling: {},
      // Planning, related questions, follow-up rewriting: short replies nobody sees the thoughts of.
      thinking: false,
      signal: opts.signal,
    }))
      if (d.content) parts.push(d.content);
    return new ThinkSplitter()
      .push(`${parts.join('')}\n`)
      .filter((p) => p.kind === 'text')
      .map((p) => p.text)
      .join('')
      .trim();
  }
}
