// How one chat completion ends, shared by its two answers — the JSON object and the SSE stream —
// so they cannot drift: the cost, the wire usage, the finish reason, the requested extras (images
// through image_domain_filter, related questions) and the stored usage row are computed here once.
// A completion that does not finish (an error, a client that left) gets its usage row here too.
import type { FastifyBaseLogger } from 'fastify';
import type { AnswerEvent } from '../answer/types.ts';
import type { ApiKey } from '../model/chat.ts';
import type { ChatApi } from './context.ts';
import type { CompletionEnd } from './completion-object.ts';
import { toWireUsage } from './completion-object.ts';
import { toApiError, type ApiError } from './errors.ts';
import { filterImages } from './image-filter.ts';
import { computeCost } from './prices.ts';
import type { ParsedChatRequest } from './request-schema.ts';
import { recordUsage } from './usage.ts';

/** One chat completion request being answered, as both answer paths need it. */
export interface CompletionRun {
  api: ChatApi;
  key: ApiKey;
  parsed: ParsedChatRequest;
  /** The request's logger (carries the request id). */
  log: FastifyBaseLogger;
  /** performance.now() when the request arrived (the usage row's latency). */
  startedAt: number;
}

type Done = Omit<Extract<AnswerEvent, { type: 'done' }>, 'type'>;

/** The end of a completion that the pipeline finished: what the response ends with; records its usage row. */
export function finishCompletion(run: CompletionRun, done: Done): CompletionEnd {
  const { parsed } = run;
  const size = parsed.answer.searchContextSize;
  const cost = computeCost(run.api.prices, parsed.model, done.usage, size);
  const end: CompletionEnd = {
    finishReason: done.finishReason,
    usage: toWireUsage(parsed.model, done.usage, size, cost),
  };
  if (parsed.answer.returnImages) end.images = filterImages(done.images ?? [], parsed.imageDomainFilter);
  if (parsed.answer.returnRelatedQuestions) end.relatedQuestions = done.relatedQuestions ?? [];
  recordUsage(run.api, run.key, {
    endpoint: 'chat',
    model: parsed.model,
    status: 200,
    stream: parsed.stream,
    usage: done.usage,
    cost,
    startedAt: run.startedAt,
  });
  return end;
}

/** What is known of a request that failed, possibly before its body was understood. */
export interface UnfinishedRun {
  api: ChatApi;
  key: ApiKey;
  log: FastifyBaseLogger;
  startedAt: number;
  /** The requested model as sent (it may be invalid). */
  model: string;
  stream: boolean;
}

/**
 * Records a completion that did not finish and returns the error to answer with. A client that
 * left is recorded as 499 `client_closed` (not a server error, nothing to send); a server-side
 * failure (5xx) is logged with its cause.
 */
export function failCompletion(run: UnfinishedRun, e: unknown, clientLeft: boolean): ApiError | undefined {
  const err = clientLeft ? undefined : toApiError(e);
  if (err && err.status >= 500) run.log.error({ err: e, stream: run.stream }, 'chat completion failed');
  recordUsage(run.api, run.key, {
    endpoint: 'chat',
    model: run.model,
    status: err?.status ?? 499,
    errorType: err?.type ?? 'client_closed',
    stream: run.stream,
    startedAt: run.startedAt,
  });
  return err;
}

export const unfinished = (run: CompletionRun): UnfinishedRun => ({
  api: run.api,
  key: run.key,
  log: run.log,
  startedAt: run.startedAt,
  model: run.parsed.model,
  stream: run.parsed.stream,
});
