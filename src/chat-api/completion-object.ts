// Builds the wire objects of the spec (shared/spec/chat-completions.md, beside the checkout) from
// an AnswerResult: the completion object, the usage object with cost, and the SSE chunks. Shared
// with `tidings ask --json` so the CLI prints exactly what the API returns.
import { randomUUID } from 'node:crypto';
import type {
  AnswerResult,
  ImageRef,
  SearchContextSize,
  SearchResultRef,
  SonarModel,
  TokenUsage,
  FinishReason,
} from '../answer/types.ts';
import { computeCost, DEFAULT_PRICES, type PriceTable } from './prices.ts';
import type { CostBreakdown } from '../model/chat.ts';

export interface WireCost {
  input_tokens_cost: number;
  output_tokens_cost: number;
  request_cost?: number;
  reasoning_tokens_cost?: number;
  citation_tokens_cost?: number;
  search_queries_cost?: number;
  total_cost: number;
}

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  search_context_size: SearchContextSize;
  citation_tokens?: number;
  num_search_queries?: number;
  reasoning_tokens?: number;
  cost: WireCost;
}

export interface CompletionObject {
  id: string;
  model: SonarModel;
  object: 'chat.completion';
  created: number;
  citations: string[];
  search_results: SearchResultRef[];
  images?: ImageRef[];
  related_questions?: string[];
  choices: [{ index: 0; finish_reason: FinishReason; message: { role: 'assistant'; content: string } }];
  usage: WireUsage;
}

export interface CompletionOptions {
  searchContextSize?: SearchContextSize;
  prices?: PriceTable;
  /** Precomputed cost (the API computes it once for the response and the usage record). */
  cost?: CostBreakdown;
  id?: string;
  /** Unix seconds. */
  created?: number;
  /** `images` / `related_questions` appear only when requested (spec). */
  returnImages?: boolean;
  returnRelatedQuestions?: boolean;
}

/** Deep research bills reasoning, citations and search queries, and has no request fee. */
const usesDetailedBilling = (model: SonarModel): boolean => model === 'sonar-deep-research';

export function toWireUsage(
  model: SonarModel,
  usage: TokenUsage,
  size: SearchContextSize,
  cost: CostBreakdown,
): WireUsage {
  const out: WireUsage = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    search_context_size: size,
  } as WireUsage;
  if (usesDetailedBilling(model)) {
    out.citation_tokens = usage.citationTokens ?? 0;
    out.num_search_queries = usage.searchQueries;
    out.reasoning_tokens = usage.reasoningTokens ?? 0;
    out.cost = {
      input_tokens_cost: cost.input,
      output_tokens_cost: cost.output,
      citation_tokens_cost: cost.citation,
      reasoning_tokens_cost: cost.reasoning,
      search_queries_cost: cost.searchQueries,
      total_cost: cost.total,
    };
  } else {
    // Not in the vendor's sonar usage, but optional in every client schema: shows the searches billed.
    out.num_search_queries = usage.searchQueries;
    out.cost = {
      input_tokens_cost: cost.input,
      output_tokens_cost: cost.output,
      request_cost: cost.request,
      total_cost: cost.total,
    };
  }
  return out;
}

/**
 * How a completion ends: the same in the JSON object and in the last SSE chunk (the API builds it
 * once, in finishCompletion).
 */
export interface CompletionEnd {
  finishReason: FinishReason;
  usage: WireUsage;
  /** Present only when the request asked for them (spec), even if empty. */
  images?: ImageRef[];
  relatedQuestions?: string[];
}

export function toCompletionObject(
  result: AnswerResult,
  model: SonarModel,
  opts: CompletionOptions = {},
): CompletionObject {
  const size = opts.searchContextSize ?? 'low';
  const cost = opts.cost ?? computeCost(opts.prices ?? DEFAULT_PRICES, model, result.usage, size);
  const end: CompletionEnd = { finishReason: result.finishReason, usage: toWireUsage(model, result.usage, size, cost) };
  if (opts.returnImages ?? result.images !== undefined) end.images = result.images ?? [];
  if (opts.returnRelatedQuestions ?? result.relatedQuestions !== undefined)
    end.relatedQuestions = result.relatedQuestions ?? [];
  return completionObject(
    { id: opts.id ?? randomUUID(), model, created: opts.created ?? Math.floor(Date.now() / 1000) },
    result,
    end,
  );
}

/** What every chunk and the completion object start with. */
export interface CompletionHead {
  id: string;
  model: SonarModel;
  /** Unix seconds. */
  created: number;
}

/** The non-streamed response: the answer's text and sources, and how it ended. */
export function completionObject(
  head: CompletionHead,
  answer: Pick<AnswerResult, 'content' | 'citations' | 'searchResults'>,
  end: CompletionEnd,
): CompletionObject {
  const obj: CompletionObject = {
    id: head.id,
    model: head.model,
    object: 'chat.completion',
    created: head.created,
    citations: answer.citations,
    search_results: answer.searchResults,
    choices: [{ index: 0, finish_reason: end.finishReason, message: { role: 'assistant', content: answer.content } }],
    usage: end.usage,
  };
  if (end.images) obj.images = end.images;
  if (end.relatedQuestions) obj.related_questions = end.relatedQuestions;
  return obj;
}

/**
 * Serializes the chunks of one stream. The head (id, model, created, object, citations,
 * search_results) is the same in every chunk, so it is serialized once and the per-chunk part is
 * spliced in: a delta chunk costs one JSON.stringify of the text piece.
 */
export class ChunkWriter {
  private head = '';
  private readonly base: string;
  constructor(id: string, model: SonarModel, created: number) {
    this.base = `{"id":${JSON.stringify(id)},"model":${JSON.stringify(model)},"created":${created},"object":"chat.completion.chunk"`;
  }
  setSources(citations: string[], searchResults: SearchResultRef[]): void {
    this.head = `${this.base},"citations":${JSON.stringify(citations)},"search_results":${JSON.stringify(searchResults)}`;
  }
  /** `data: {chunk}\n\n` carrying one piece of text. */
  delta(text: string): string {
    return `data: ${this.head || this.base},"choices":[{"index":0,"delta":{"role":"assistant","content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
  }
  /** The last chunk: finish reason, full usage with cost, images/related questions when requested; then [DONE]. */
  final(end: CompletionEnd): string {
    let s = `data: ${this.head || this.base}`;
    if (end.images) s += `,"images":${JSON.stringify(end.images)}`;
    if (end.relatedQuestions) s += `,"related_questions":${JSON.stringify(end.relatedQuestions)}`;
    return `${s},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":${JSON.stringify(end.finishReason)}}],"usage":${JSON.stringify(end.usage)}}\n\ndata: [DONE]\n\n`;
  }
}
