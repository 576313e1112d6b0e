// The streamed answer of POST /chat/completions (`"stream": true`), as Server-Sent Events written
// straight to the socket: each chunk is flushed as it is produced (no compression, no proxy
// buffering, Nagle off), the first chunk carries citations and search_results, the last one the
// finish reason, the full usage with cost and the requested extras (finishCompletion, shared with
// the JSON answer), then [DONE]. Errors before the first event are ordinary JSON errors with their
// status; errors after it are an error event, then the end of the stream.
import type { FastifyReply } from 'fastify';
import type { AnswerEvent, AnswerRequest } from '../answer/types.ts';
import { ChunkWriter, type CompletionHead } from './completion-object.ts';
import { errorBody, toApiError } from './errors.ts';
import { type CompletionRun, failCompletion, finishCompletion, unfinished } from './finish-completion.ts';
import { openEventStream, writeEvents } from '../http/event-stream.ts';

export interface StreamCompletionOptions {
  run: CompletionRun;
  /** The pipeline request (scope, signal and all). */
  answer: AnswerRequest;
  reply: FastifyReply;
  /** x-ratelimit-* headers, sent with the 200. */
  rateHeaders: Record<string, string>;
  /** Fires when the client goes away. */
  signal: AbortSignal;
  /** Id, model and creation time of every chunk. */
  head: CompletionHead;
}

const errorEvent = (e: unknown) => `data: ${JSON.stringify(errorBody(toApiError(e)))}\n\n`;

/**
 * Answers with an SSE stream. Throws (for the route's JSON error) only while nothing was sent: if
 * the pipeline fails before its first event and within keepAliveMs. Records the usage row.
 */
export async function streamCompletion(o: StreamCompletionOptions): Promise<void> {
  const { run, reply, signal } = o;
  const { api } = run;
  const events = api.answers.stream(o.answer)[Symbol.asyncIterator]();
  // Wait for the first event before sending any byte, so validation and engine errors become
  // ordinary JSON errors with their status. A pipeline that is slow to start (deep research
  // searches for a long time) would leave the connection silent, and proxies drop silent
  // connections: after keepAliveMs the headers go out and SSE comments keep the line busy.
  const firstP = events.next();
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    firstP.then((r) => ({ r })),
    new Promise<null>((resolve) => {
      timer = setTimeout(resolve, api.keepAliveMs, null);
    }),
  ]).finally(() => clearTimeout(timer));

  reply.hijack();
  const res = reply.raw;
  openEventStream(res, o.rateHeaders);

  let lastWrite = performance.now();
  const send = (s: string) => {
    lastWrite = performance.now();
    return writeEvents(res, s);
  };
  let ping: NodeJS.Timeout | undefined;
  let finished = false;
  try {
    let first: IteratorResult<AnswerEvent>;
    if (early) first = early.r;
    else {
      res.write(': waiting for the first search results\n\n');
      ping = setInterval(() => res.write(': keep-alive\n\n'), api.keepAliveMs);
      try {
        first = await firstP;
      } finally {
        clearInterval(ping);
      }
    }
    if (first.done) throw new Error('the answer pipeline produced no events');
    // Long silences between events (a reasoning pipeline thinking) get SSE comments too.
    lastWrite = performance.now();
    ping = setInterval(() => {
      if (performance.now() - lastWrite >= api.keepAliveMs && !res.destroyed) {
        lastWrite = performance.now();
        res.write(': keep-alive\n\n');
      }
    }, api.keepAliveMs);

    const w = new ChunkWriter(o.head.id, o.head.model, o.head.created);
    let event: AnswerEvent | undefined = first.value;
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
      if (signal.aborted) break;
      if (event.type === 'delta') {
        if (event.text) await send(w.delta(event.text));
      } else if (event.type === 'done') {
        res.end(w.final(finishCompletion(run, event)));
        finished = true;
        return;
      }
      event = undefined;
    }
    if (!signal.aborted) throw new Error('the answer pipeline ended without a done event');
    failCompletion(unfinished(run), signal.reason, true);
  } catch (e) {
    const clientLeft = signal.aborted || res.destroyed;
    failCompletion(unfinished(run), e, clientLeft);
    if (!clientLeft) res.end(errorEvent(e));
  } finally {
    clearInterval(ping);
    if (!res.writableEnded) res.end();
    // Let the pipeline run its cleanup; a failure there must not mask the outcome.
    if (!finished) await Promise.resolve(events.return?.()).catch(() => {});
  }
}
