// Writes one answer as Server-Sent Events straight to the socket: each chunk is flushed as it is
// produced (no compression, no proxy buffering), the first chunk carries citations and
// search_results, the last one the finish reason and the full usage with cost, then [DONE].
import type { ServerResponse } from 'node:http';
import type {
  AnswerEvent,
  SearchContextSize,
  SonarModel,
  TokenUsage,
  FinishReason,
  ImageRef,
} from '../answer/types.ts';
import { ChunkWriter, toWireUsage } from './completion-object.ts';
import { errorBody, toApiError } from './errors.ts';
import type { CostBreakdown } from '../model/chat.ts';

export interface StreamOutcome {
  finishReason?: FinishReason;
  usage?: TokenUsage;
  cost?: CostBreakdown;
  /** Set when the stream failed after it started (the client got an error event). */
  error?: { status: number; type: string };
  aborted: boolean;
}

export interface StreamParams {
  id: string;
  created: number;
  model: SonarModel;
  searchContextSize: SearchContextSize;
  returnImages: boolean;
  returnRelatedQuestions: boolean;
  costOf(usage: TokenUsage): CostBreakdown;
  filterImages(images: ImageRef[]): ImageRef[];
  onError(e: unknown): void;
  keepAliveMs: number;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Resolves when the socket can take more (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams `first` (already pulled, so errors before any output became JSON errors) and the rest of
 * `events`. Headers must have been written by the caller.
 */
export async function writeAnswerStream(
  res: ServerResponse,
  first: AnswerEvent,
  events: AsyncIterator<AnswerEvent>,
  p: StreamParams,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const w = new ChunkWriter(p.id, p.model, p.created);
  const out: StreamOutcome = { aborted: false };
  let lastWrite = performance.now();
  const send = async (s: string) => {
    lastWrite = performance.now();
    if (!res.write(s) && !res.destroyed) await drained(res);
  };
  // Long silences between events (a reasoning pipeline thinking) get SSE comments, as before the first event.
  const ping = setInterval(() => {
    if (performance.now() - lastWrite >= p.keepAliveMs && !res.destroyed) {
      lastWrite = performance.now();
      res.write(': keep-alive\n\n');
    }
  }, p.keepAliveMs);
  let event: AnswerEvent | undefined = first;
  try {
    if (event.type === 'sources') {
      w.setSources(event.citations, event.searchResults);
      event = undefined;
    } else {
      w.setSources([], []);
    }
    // The first chunk: role, empty content, citations and search results.
    await send(w.delta(''));
    for (;;) {
      if (!event) {
        const n = await events.next();
        if (n.done) break;
        event = n.value;
      }
      if (signal.aborted) {
        out.aborted = true;
        return out;
      }
      if (event.type === 'delta') {
        if (event.text) await send(w.delta(event.text));
      } else if (event.type === 'done') {
        const cost = p.costOf(event.usage);
        out.finishReason = event.finishReason;
        out.usage = event.usage;
        out.cost = cost;
        const extra: { images?: ImageRef[]; related_questions?: string[] } = {};
        if (p.returnImages) extra.images = p.filterImages(event.images ?? []);
        if (p.returnRelatedQuestions) extra.related_questions = event.relatedQuestions ?? [];
        res.end(w.final(event.finishReason, toWireUsage(p.model, event.usage, p.searchContextSize, cost), extra));
        return out;
      }
      event = undefined;
    }
    throw new Error('the answer pipeline ended without a done event');
  } catch (e) {
    if (signal.aborted || res.destroyed) {
      out.aborted = true;
      return out;
    }
    p.onError(e);
    const err = toApiError(e);
    out.error = { status: err.status, type: err.type };
    res.end(`data: ${JSON.stringify(errorBody(err))}\n\n`);
    return out;
  } finally {
    clearInterval(ping);
    // Let the pipeline run its cleanup; a failure there must not mask the outcome.
    if (out.aborted || out.error) await Promise.resolve(events.return?.()).catch(() => {});
  }
}
