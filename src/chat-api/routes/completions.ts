// POST /chat/completions (and /v1/chat/completions, /v1/sonar): validate, admit (beta features,
// rate limit), run the answer pipeline, answer with one completion object or an SSE stream
// (../completion-stream.ts). Both end through finishCompletion (../finish-completion.ts).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerRequest } from '../../answer/types.ts';
import type { ChatApi } from '../context.ts';
import { parseChatRequest, scopeFor, type ParsedChatRequest } from '../request-schema.ts';
import { checkBetaFeatures, takeRateLimit } from '../admission.ts';
import { MODEL_INFO } from '../models.ts';
import { completionObject, type CompletionHead } from '../completion-object.ts';
import { requestKey } from '../request-key.ts';
import { streamCompletion } from '../completion-stream.ts';
import { type CompletionRun, failCompletion, finishCompletion } from '../finish-completion.ts';

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
      const rateHeaders = await takeRateLimit(api, key, parsed.model, MODEL_INFO[parsed.model].rateFamily);
      const ac = disconnectSignal(reply);
      disconnected = ac.signal;
      const answer: AnswerRequest = {
        ...parsed.answer,
        scope: scopeFor(key.userId, parsed.streamIds),
        signal: ac.signal,
      };
      const run: CompletionRun = { api, key, parsed, log: request.log, startedAt };
      const head: CompletionHead = { id: randomUUID(), model: parsed.model, created: Math.floor(Date.now() / 1000) };
      if (parsed.stream) return await streamCompletion({ run, answer, reply, rateHeaders, signal: ac.signal, head });

      const result = await api.answers.complete(answer);
      const obj = completionObject(head, result, finishCompletion(run, result));
      return reply.headers(rateHeaders).type('application/json; charset=utf-8').send(obj);
    } catch (e) {
      const model = parsed?.model ?? (typeof body?.model === 'string' ? body.model : '');
      const clientLeft = disconnected?.aborted ?? false;
      const err = failCompletion(
        { api, key, log: request.log, startedAt, model, stream: parsed?.stream ?? false },
        e,
        clientLeft,
      );
      // The client left before the answer: nothing to send, not a server error.
      if (!err) return reply.hijack();
      throw err;
    }
  };
  for (const path of COMPLETION_PATHS) server.post(path, handler);
}
