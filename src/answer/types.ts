// The contract between the answer pipelines (this folder, with ../search) and their callers (the
// chat completions API, the `tidings ask` CLI, async deep-research jobs). Nothing here knows HTTP.
import type { SearchFilters, SearchScope } from '../search/types.ts';

// The search contract's types, re-exported for the answer pipelines' callers.
export type { SearchFilters, SearchScope };

export const SONAR_MODELS = [
  'sonar',
  'sonar-pro',
  'sonar-reasoning',
  'sonar-reasoning-pro',
  'sonar-deep-research',
  'r1-1776',
] as const;
export type SonarModel = (typeof SONAR_MODELS)[number];

export type SearchContextSize = 'low' | 'medium' | 'high';
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Sampling parameters passed through to a generative engine (the extractive engine ignores them). */
export interface Sampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stop?: string[];
}

export interface AnswerRequest extends Sampling {
  model: SonarModel;
  messages: ChatMessage[];
  scope: SearchScope;
  filters: SearchFilters;
  searchContextSize: SearchContextSize;
  /** disable_search: answer without searching (generative engines only). */
  disableSearch?: boolean;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  returnImages?: boolean;
  returnRelatedQuestions?: boolean;
  responseFormat?: unknown;
  signal?: AbortSignal;
  /**
   * "Today" for the question's time words ("this week", "latest"), unix seconds; default the clock.
   * `tidings ask --as-of` sets it (asking an archive as of a past day; tests and benchmarks too).
   */
  asOf?: number;
  /** Progress of long pipelines (deep research): shown by the CLI, stored by async jobs. */
  onProgress?: (p: Progress) => void;
}

export interface Progress {
  stage: string;
  message: string;
  /** 0..1 when known. */
  fraction?: number;
}

/** One search result as the chat API returns it in `search_results`. */
export interface SearchResultRef {
  title: string;
  url: string;
  /** YYYY-MM-DD or null */
  date: string | null;
  last_updated: string | null;
  snippet: string;
  source: 'web' | 'attachment';
}

export interface ImageRef {
  image_url: string;
  origin_url: string;
  title: string;
  width: number;
  height: number;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
  citationTokens?: number;
  /** Searches performed (billed per search). */
  searchQueries: number;
}

export type FinishReason = 'stop' | 'length';

/**
 * Events of one answer, in this order: exactly one `sources` (before any text: clients read
 * citations from the first chunk), zero or more `delta`, exactly one `done`. `[n]` markers in the
 * text are 1-based indexes into `citations`. Reasoning models put `<think>\n…\n</think>\n\n`
 * at the start of the text.
 */
export type AnswerEvent =
  | { type: 'sources'; citations: string[]; searchResults: SearchResultRef[] }
  | { type: 'delta'; text: string }
  | { type: 'done'; finishReason: FinishReason; usage: TokenUsage; images?: ImageRef[]; relatedQuestions?: string[] };

export interface AnswerResult {
  content: string;
  citations: string[];
  searchResults: SearchResultRef[];
  finishReason: FinishReason;
  usage: TokenUsage;
  images?: ImageRef[];
  relatedQuestions?: string[];
}

export type AnswerErrorCode =
  /** The request is wrong (param names the parameter): HTTP 400. */
  | 'invalid_request'
  /** The model needs a generative engine that is not configured: HTTP 400 with how to configure. */
  | 'engine_unavailable'
  /** Upstream LLM or web search failed or returned garbage: HTTP 502/503, message names it. */
  | 'upstream_error'
  | 'upstream_timeout'
  /** Every sequence of the local model is busy and its queue is full: HTTP 429 with Retry-After. */
  | 'overloaded';

export class AnswerError extends Error {
  readonly code: AnswerErrorCode;
  readonly param?: string;
  constructor(code: AnswerErrorCode, message: string, param?: string) {
    super(message);
    this.code = code;
    this.param = param;
  }
}

export interface AnswerService {
  /** Streams the answer. Validation errors are thrown before the first event. */
  stream(req: AnswerRequest): AsyncIterable<AnswerEvent>;
  /** Collects stream() into one result. */
  complete(req: AnswerRequest): Promise<AnswerResult>;
}
