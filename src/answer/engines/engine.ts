// The engine interface: what turns a question plus numbered sources into answer text. Pipelines
// (../pipelines) do the searching and decide which sources ground the answer; an engine only
// writes. Implementations: ./extractive.ts (built in, offline, quotes sentences) and
// ./openai-compatible.ts (any /v1/chat/completions server). An in-process GGUF engine would be a
// third implementation of this same interface (not built yet).
import type { ChatMessage, FinishReason, Sampling } from '../types.ts';
import type { SearchHit } from '../../search/types.ts';
import type { TimeCue } from '../pipelines/time-cues.ts';
import type { FilteredOut } from '../pipelines/filters-in-time.ts';

export interface GroundingSource {
  /** 1-based number of this source in the engine's input (what `[n]` refers to in the prompt). */
  n: number;
  hit: SearchHit;
  /** Plain-text passages the engine may use, most relevant first (passages or whole article text). */
  texts: string[];
  /**
   * The whole article, when the pipeline read it (it reads those whose passages leave room): only
   * to tell the lines its feed repeats in every item (./feed-repeats.ts), never quoted from.
   */
  article?: string;
}

/** Shape of the answer the pipeline wants. */
export type AnswerStyle = 'concise' | 'detailed' | 'report';

export type { Sampling };

export interface EngineRequest {
  question: string;
  /**
   * The question as searched: for a follow-up ("where did it happen?") it carries the earlier
   * turns' topic. The extractive engine matches sentences against it; absent = the question.
   */
  searchQuery?: string;
  /** Today, unix seconds (the request's asOf, else the clock): what the question's time words count from. */
  asOf?: number;
  /** The period the question's time words name ("this week"), when it names one. */
  timeCue?: TimeCue;
  /**
   * The question names no topic ("what's new?", "what happened today?"): the sources are the
   * newest articles in the asker's scope, newest first, and the answer is a roundup of them.
   */
  roundup?: boolean;
  /**
   * The question names these feeds of the asker ("What has the Guardian published?"), by the
   * asker's names for them: the sources are their newest articles, newest first (with `roundup`).
   */
  feeds?: string[];
  /**
   * Told as a digest whatever its answer type: the question asks for the newest about a topic
   * ("What did NASA announce recently?"), and the newest articles about it lead the sources.
   */
  digest?: boolean;
  /** Earlier turns of the conversation (user/assistant), oldest first. */
  history: ChatMessage[];
  /** System messages the caller sent (instructions for generative engines). */
  system: string[];
  sources: GroundingSource[];
  /** Set when the request's filters left no article: what the same search finds without them. */
  filteredOut?: FilteredOut;
  /** False when the pipeline did not search (r1-1776, disable_search): answer without sources. */
  searched: boolean;
  style: AnswerStyle;
  /** Budget for the answer text in tokens (the service enforces the overall max_tokens too). */
  maxTokens?: number;
  sampling: Sampling;
  /**
   * Whether the model's own reasoning is shown (<think> of the reasoning models). False: a model
   * with a thinking mode is asked not to think, since its thoughts would be hidden yet cost tokens.
   */
  showsReasoning?: boolean;
  /** The caller's response_format (json_schema / regex), passed to generative engines as is. */
  responseFormat?: unknown;
  signal?: AbortSignal;
}

export interface EngineUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
}

/**
 * Output of an engine, in order: exactly one `cite` first, then `reasoning`/`text` pieces, then
 * exactly one `end`. `cite.order` lists the input source numbers that become citations 1..k, in
 * that order; the `[n]` markers in `text` already use the new numbering (1-based into `order`).
 */
export type EngineChunk =
  | { type: 'cite'; order: number[]; notes: string[] }
  | { type: 'reasoning'; text: string }
  | { type: 'text'; text: string }
  | { type: 'end'; finishReason: FinishReason; usage?: EngineUsage };

export interface AnswerEngine {
  readonly name: string;
  /** True for engines that write new text (an LLM); false for the extractive engine. */
  readonly generative: boolean;
  answer(req: EngineRequest): AsyncIterable<EngineChunk>;
  /** Generative engines: one non-streamed reply to a plain prompt (planning, related questions). */
  ask?(prompt: string, opts: { maxTokens: number; signal?: AbortSignal }): Promise<string>;
}
