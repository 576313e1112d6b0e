// POST /chat/completions (and /v1/chat/completions, /v1/sonar): validate, admit (beta features,
// rate limit), run the answer pipeline, answer with one completion object or an SSE stream.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerEvent, AnswerRequest, TokenUsage } from '../../answer/types.ts';
import type { ApiKey } from '../../model/chat.ts';
import type { ChatApi } from '../context.ts';
import { parseChatRequest, scopeFor, type ParsedChatRequest } from '../request-schema.ts';
import { checkBetaFeatures, takeRateLimit } from '../admission.ts';
import { MODEL_INFO } from '../models.ts';
import { computeCost } from '../prices.ts';
import { toCompletionObject } from '../completion-object.ts';
import { filterImages } from '../image-filter.ts';
import { errorBody, toApiError } from '../errors.ts';
import { recordUsage } from '../usage.ts';
import { requestKey } from '../request-key.ts';
import { writeAnswerStream, SSE_HEADERS } from '../sse.ts';

export const COMPLETION_PATHS = ['/chat/completions', '/v1/chat/completions', '/v1/sonar'];

/** An AbortSignal that fires when the client goes away before the response is complete. */
function disconnectSignal(reply: FastifyReply): AbortController {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new Error('client disconnected'));
  });
  return ac;
}

export function registerCompletionRoutes(server: FastifyInstance, api: ChatApi): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const startedAt = performance.now();
    const key = requestKey(request);
    const body = request.body as Record<string, unknown> | undefined;
    let parsed: ParsedChatRequest | undefined;
    let disconnected: AbortSignal | undefined;
    try {
      parsed = parseChatRequest(body);
      await checkBetaFeatures(api, key, parsed.betaFeatures);
      const rl = await takeRateLimit(api, key, parsed.model, MODEL_INFO[parsed.model].rateFamily);
      const ac = disconnectSignal(reply);
      disconnected = ac.signal;
      const req: AnswerRequest = { ...parsed.answer, scope: scopeFor(key.userId, parsed.streamIds), signal: ac.signal };
      if (parsed.stream) return await stream(api, key, parsed, req, reply, rl, ac.signal, startedAt);

      const result = await api.answers.complete(req);
      const size = parsed.answer.searchContextSize;
      const cost = computeCost(api.prices, parsed.model, result.usage, size);
      if (result.images) result.images = filterImages(result.images, parsed.imageDomainFilter);
      const obj = toCompletionObject(result, parsed.model, {
        searchContextSize: size,
        cost,
        returnImages: parsed.answer.returnImages ?? false,
        returnRelatedQuestions: parsed.answer.returnRelatedQuestions ?? false,
      });
      recordUsage(api, key, {
        endpoint: 'chat',
        model: parsed.model,
        status: 200,
        usage: result.usage,
        cost,
        startedAt,
      });
      return reply.headers(rl).type('application/json; charset=utf-8').send(obj);
    } catch (e) {
      const model = parsed?.model ?? (typeof body?.model === 'string' ? body.model : '');
      if (disconnected?.aborted) {
        // The client left before the answer: nothing to send, not a server error.
        recordUsage(api, key, {
          endpoint: 'chat',
          model,
          status: 499,
          errorType: 'client_closed',
          stream: parsed?.stream,
          startedAt,
        });
        return reply.hijack();
      }
      const err = toApiError(e);
      if (err.status >= 500) request.log.error({ err: e }, 'chat completion failed');
      recordUsage(api, key, {
        endpoint: 'chat',
        model,
        status: err.status,
        errorType: err.type,
        stream: parsed?.stream,
        startedAt,
      });
      throw err;
    }
  };
  for (const path of COMPLETION_PATHS) server.post(path, handler);
}

async function stream(
  api: ChatApi,
  key: ApiKey,
  parsed: ParsedChatRequest,
  req: AnswerRequest,
  reply: FastifyReply,
  rateHeaders: Record<string, string>,
  signal: AbortSignal,
  startedAt: number,
): Promise<void> {
  const events = api.answers.stream(req)[Symbol.asyncIterator]();
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
  res.socket?.setNoDelay(true);
  res.writeHead(200, { ...SSE_HEADERS, ...rateHeaders });
  let first: IteratorResult<AnswerEvent>;
  if (early) first = early.r;
  else {
    res.write(': waiting for the first search results\n\n');
    const ping = setInterval(() => res.write(': keep-alive\n\n'), api.keepAliveMs);
    try {
      first = await firstP;
    } catch (e) {
      const err = toApiError(e);
      if (err.status >= 500) api.app.log.error({ err: e }, 'chat completion stream failed');
      if (!res.destroyed) res.end(`data: ${JSON.stringify(errorBody(err))}\n\n`);
      recordUsage(api, key, {
        endpoint: 'chat',
        model: parsed.model,
        status: err.status,
        errorType: err.type,
        stream: true,
        startedAt,
      });
      return;
    } finally {
      clearInterval(ping);
    }
  }
  if (first.done) {
    res.end(`data: ${JSON.stringify(errorBody(toApiError(new Error('the answer pipeline produced no events'))))}\n\n`);
    return;
  }
  const size = parsed.answer.searchContextSize;
  const outcome = await writeAnswerStream(
    res,
    first.value,
    events,
    {
      id: randomUUID(),
      created: Math.floor(Date.now() / 1000),
      model: parsed.model,
      searchContextSize: size,
      returnImages: parsed.answer.returnImages ?? false,
      returnRelatedQuestions: parsed.answer.returnRelatedQuestions ?? false,
      costOf: (u: TokenUsage) => computeCost(api.prices, parsed.model, u, size),
      filterImages: (imgs) => filterImages(imgs, parsed.imageDomainFilter),
      onError: (e) => {
        if (toApiError(e).status >= 500) api.app.log.error({ err: e }, 'chat completion stream failed');
      },
      keepAliveMs: api.keepAliveMs,
    },
    signal,
  );
  if (!res.writableEnded) res.end();
  const status = outcome.error?.status ?? (outcome.aborted ? 499 : 200);
  recordUsage(api, key, {
    endpoint: 'chat',
    model: parsed.model,
    status,
    stream: true,
    startedAt,
    errorType: outcome.error?.type ?? (outcome.aborted ? 'client_closed' : null),
    usage: outcome.usage,
    cost: outcome.cost,
  });
}
