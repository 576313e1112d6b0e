// The chat completions API as a Fastify plugin (Sonar-compatible wire format, see README.md here).
// Registered with one line in src/http/server.ts. The outer function runs in the root context
// (skip-override, like fastify-plugin) only to install the server-wide not-found handler; all
// routes, hooks and the error handler live in the encapsulated `chatRoutes` below, so nothing
// here touches the reader API.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import { perApp } from '../per-app.ts';
import type { AnswerService } from '../answer/types.ts';
import { createChatApi } from './context.ts';
import { ApiError, errorBody, toApiError } from './errors.ts';
import { authenticate } from './keys/api-keys.ts';
import { setRequestKey } from './request-key.ts';
import { registerCompletionRoutes, COMPLETION_PATHS } from './routes/completions.ts';
import { registerModelRoutes } from './routes/models.ts';
import { registerAsyncRoutes } from './routes/async.ts';
import { registerAccessForm, ACCESS_FORM_PATH } from './access-form.ts';
import { AsyncJobRunner } from './async-jobs.ts';
import { defaultAnswerService } from './default-answers.ts';

export interface ChatApiOptions {
  app: App;
  /** Replaces the App's answer pipeline (tests, benchmarks). */
  answerService?: AnswerService;
  /** SSE keep-alive interval while a stream waits for its first event (default 10 s). */
  keepAliveMs?: number;
}

const runners = perApp((): { runner?: AsyncJobRunner } => ({}));
/** The async job runner of the server built for `app` (tests wait on it). */
export function asyncJobRunner(app: App): AsyncJobRunner | undefined {
  return runners(app).runner;
}

/** Paths of the other API on this server: their 404s stay plain text, as Go-based Reader servers answer. */
const READER_PREFIXES = ['/reader/', '/api/greader.php', '/accounts/', '/oauth2/'];
const CHAT_ENDPOINTS = [
  ...COMPLETION_PATHS.map((p) => `POST ${p}`),
  'GET /models',
  'POST /async/chat/completions',
  'GET /async/chat/completions',
  'GET /async/chat/completions/{id}',
  `GET ${ACCESS_FORM_PATH}`,
];

function notFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0];
  if (READER_PREFIXES.some((p) => path.startsWith(p) || `${path}/` === p))
    return reply.code(404).type('text/plain; charset=utf-8').send('404 page not found');
  const known = CHAT_ENDPOINTS.find((e) => e.split(' ')[1] === path.replace(/\/+$/, ''));
  const message = known
    ? `${request.method} is not supported on ${path}; use ${known}`
    : `Unknown path ${request.method} ${path}. Endpoints: ${CHAT_ENDPOINTS.join(', ')}`;
  return reply.code(404).send(errorBody(new ApiError(404, 'not_found', message)));
}

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

  server.addHook('onReady', async () => runner.start(app.role.background));
  server.addHook('onClose', async () => {
    await runner.close();
    await api.usage.flush();
  });
};

export const chatApiPlugin: FastifyPluginAsync<ChatApiOptions> = async (server, opts) => {
  server.setNotFoundHandler(notFound);
  await server.register(chatRoutes, opts);
};
// Run in the parent (root) context so the not-found handler above is the server's fallback.
(chatApiPlugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
