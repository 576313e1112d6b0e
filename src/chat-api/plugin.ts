// The chat completions API as a Fastify plugin (Sonar-compatible wire format, see README.md here).
// Registered with one line in src/server/server.ts. The outer function runs in the root context
// (wrapped with fastify-plugin) only to install the server-wide not-found handler (the server's, built
// from every API it mounts, or the chat API's own when alone); all routes,
// hooks and the error handler live in the encapsulated `chatRoutes` below, so nothing here
// touches the reader API.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { AnswerService } from '../answer/types.ts';
import { createChatApi } from './context.ts';
import { ApiError, errorBody, toApiError } from './errors.ts';
import { authenticate, setRequestKey } from './request-key.ts';
import { registerCompletionRoutes, COMPLETION_PATHS } from './routes/completions.ts';
import { registerModelRoutes } from './routes/models.ts';
import { registerAsyncRoutes } from './routes/async.ts';
import { registerAccessForm, ACCESS_FORM_PATH } from './access-form.ts';
import { AsyncJobRunner } from './async-jobs.ts';
import { defaultAnswerService } from './default-answers.ts';
import { errorCodeOf, jsonError, type FallbackApiErrorShape } from '../http/error-shape.ts';

export interface ChatApiOptions {
  app: App;
  /** Replaces the App's answer pipeline (tests, benchmarks). */
  answerService?: AnswerService;
  /** SSE keep-alive interval while a stream waits for its first event (default 10 s). */
  keepAliveMs?: number;
  /**
   * The server-wide not-found handler, which the server builds from every API it mounts
   * (src/server/framework-errors.ts). Without it (the chat API alone) every unknown path gets the
   * chat API's own 404.
   */
  notFoundHandler?: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

const runners = perApp((): { runner?: AsyncJobRunner } => ({}));
/** The async job runner of the server built for `app` (tests wait on it). */
export function asyncJobRunner(app: App): AsyncJobRunner | undefined {
  return runners(app).runner;
}

const CHAT_ENDPOINTS = [
  ...COMPLETION_PATHS.map((p) => `POST ${p}`),
  'GET /models',
  'POST /async/chat/completions',
  'GET /async/chat/completions',
  'GET /async/chat/completions/{id}',
  `GET ${ACCESS_FORM_PATH}`,
];

/** The chat API's 404: the right method when the path is known, else the list of endpoints. */
function chatNotFoundMessage(method: string, path: string): string {
  const known = CHAT_ENDPOINTS.find((e) => e.split(' ')[1] === path.replace(/\/+$/, ''));
  return known
    ? `${method} is not supported on ${path}; use ${known}`
    : `Unknown path ${method} ${path}. Endpoints: ${CHAT_ENDPOINTS.join(', ')}`;
}

/** Every path no other API claims is the chat API's (as on Perplexity): its errors, its 404 wording. */
export const chatApiErrors: FallbackApiErrorShape = {
  prefixes: [],
  shape: (status, message) => jsonError(errorBody(new ApiError(status, errorCodeOf(status), message))),
  endpointHint: `the chat API's endpoints are ${CHAT_ENDPOINTS.join(', ')}`,
  notFoundMessage: chatNotFoundMessage,
};

/**
 * `curl -d '{…}'` sends JSON labelled as a form, and some callers send text/plain: a body that
 * parses as JSON is accepted whatever its Content-Type; anything else is a 415 saying what to send.
 */
function acceptJsonUnderAnyType(f: FastifyInstance): void {
  for (const t of ['text/plain', 'application/x-www-form-urlencoded'])
    if (f.hasContentTypeParser(t)) f.removeContentTypeParser(t);
  f.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(
        new ApiError(
          415,
          'unsupported_media_type',
          'The request body must be JSON, sent with "Content-Type: application/json".',
        ),
        undefined,
      );
    }
  });
}

const chatRoutes: FastifyPluginAsync<ChatApiOptions> = async (server, opts) => {
  const { app } = opts;
  const api = createChatApi(app, opts.answerService ?? (await defaultAnswerService(app)), opts.keepAliveMs);
  const runner = new AsyncJobRunner(api, app.config.asyncJobConcurrency);
  runners(app).runner = runner;

  server.setErrorHandler((e, request, reply) => {
    const err = toApiError(e);
    if (err.status >= 500 && !(e instanceof ApiError)) request.log.error({ err: e }, 'chat API request failed');
    return reply.code(err.status).headers(err.headers).send(errorBody(err));
  });

  await registerAccessForm(server, api);
  await server.register(async (f: FastifyInstance) => {
    acceptJsonUnderAnyType(f);
    f.addHook('onRequest', async (request) => {
      setRequestKey(request, await authenticate(api.store.keys, request.headers.authorization));
    });
    registerCompletionRoutes(f, api);
    registerModelRoutes(f);
    registerAsyncRoutes(f, api, runner);
  });

  server.addHook('onReady', async () => runner.start());
  server.addHook('onClose', async () => {
    await runner.close();
    await api.usage.flush();
  });
  // Fastify runs onClose hooks before its server has waited for the requests in flight, whose
  // usage rows come after. This closer runs after the server's (App closers run newest first, and
  // the listening server registers its own later), before the store closes.
  app.onClose(() => api.usage.flush());
};

// Not encapsulated, so the not-found handler is the server's fallback for every path.
export const chatApiPlugin = fastifyPlugin<ChatApiOptions>(
  async (server, opts) => {
    // Paths of the other APIs get their own error shapes (src/server/framework-errors.ts).
    server.setNotFoundHandler(
      opts.notFoundHandler ??
        ((request, reply) => {
          const shaped = chatApiErrors.shape(
            404,
            chatApiErrors.notFoundMessage(request.method, request.url.split('?')[0] ?? '/'),
          );
          return reply.code(404).type(shaped.contentType).send(shaped.body);
        }),
    );
    await server.register(chatRoutes, opts);
  },
  { name: 'tidings-chat-api', fastify: '5.x' },
);
