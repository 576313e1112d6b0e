// Builds the HTTP server: one Fastify instance, each API an encapsulated plugin with its own
// routes, hooks and error handling, so the reader API and the chat API cannot tangle.
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyBaseLogger,
  type FastifyListenOptions,
} from 'fastify';
import type { App } from '../runtime/app.ts';
import { readerApiErrors, readerApiPlugin } from '../reader-api/plugin.ts';
import { authRoutes } from '../auth/routes.ts';
import { chatApiErrors, chatApiPlugin } from '../chat-api/plugin.ts';
import { webApiErrors, webPlugin } from '../web/plugin.ts';
import { errorHandlers, MAX_PARAM_LENGTH } from './framework-errors.ts';
import { clientLoginErrors } from '../auth/http/client-login.ts';
import { oauthErrors } from '../auth/http/oauth-routes.ts';
import { installRequestObservability } from '../observability/http.ts';
import { feverErrors, feverPlugin } from '../fever/plugin.ts';
import { faviconErrors, faviconRoutes } from './favicon-routes.ts';
import { websubErrors, websubRoutes } from './websub-routes.ts';
import { healthRoutes } from './health.ts';
import { watchSearchBacklog } from '../search/indexing.ts';
import { createRequire } from 'node:module';

// Fastify builds its schema compilers (Ajv and fast-json-stringify, ~150 modules, ~5 MB of an
// idle server) when the server is created, although they serve only routes that declare a JSON
// schema, and none here does (requests are checked by zod or by hand). Built on first use instead:
// from Fastify's own dependencies, so the versions are the ones Fastify ships with.
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
type CompilerFactory = (...args: unknown[]) => unknown;
const lazyFactory = (pkg: string): CompilerFactory => {
  let factory: CompilerFactory | undefined;
  return (...args) => {
    factory ??= (requireFromFastify(pkg) as () => CompilerFactory)();
    return factory(...args);
  };
};

/**
 * The error shapes of the APIs mounted below, in the order a path is matched against their
 * prefixes (ClientLogin's /api/greader.php/accounts before the Reader API's /api/greader.php);
 * every other path is the chat API's.
 */
const API_ERRORS = [
  clientLoginErrors,
  readerApiErrors,
  oauthErrors,
  feverErrors,
  webApiErrors,
  faviconErrors,
  websubErrors,
];

export async function buildServer(app: App): Promise<FastifyInstance> {
  const { frameworkErrors, clientErrorHandler, notFoundHandler } = errorHandlers(API_ERRORS, chatApiErrors);
  const server = Fastify({
    loggerInstance: app.log.child({ component: 'http' }) as FastifyBaseLogger,
    // Fastify's own two lines per request are replaced by one line (observability/http.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024 * 1024,
    // Off unless proxies are named: a client could otherwise pick its own IP with X-Forwarded-For
    // and dodge the login throttle or lock another address out.
    trustProxy: app.config.trustProxy.length ? app.config.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    schemaController: {
      compilersFactory: {
        buildValidator: lazyFactory('@fastify/ajv-compiler') as never,
        buildSerializer: lazyFactory('@fastify/fast-json-stringify-compiler') as never,
      },
    },
  });
  trackHandlers(server);
  installRequestObservability(server, app);
  // Error texts quote the request (a Reader `Error=…`, a ClientLogin `Info=…`): no browser may read
  // any answer of this server as another type than the one it is sent as. On the raw response, so
  // streamed answers written past Fastify carry it too.
  server.addHook('onRequest', (_req, reply, done) => {
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    done();
  });
  healthRoutes(server, app);
  const worker = app.role.worker;
  if (worker !== null) {
    // Which worker of `serve --workers N` answered (debugging behind a balancer; the tests use it).
    // On the raw response, so streamed (SSE) answers written past Fastify carry it too.
    const value = String(worker);
    server.addHook('onRequest', (_req, reply, done) => {
      reply.raw.setHeader('x-tidings-worker', value);
      done();
    });
  }
  // API plugins are registered here (reader API, OAuth, chat completions).
  await server.register(readerApiPlugin, { app });
  await server.register(authRoutes, { app });
  await server.register(chatApiPlugin, { app, notFoundHandler });
  await server.register(feverPlugin, { app });
  await server.register(faviconRoutes, { app });
  await server.register(websubRoutes, { app });
  await server.register(webPlugin, { app });
  return server;
}

/** Route handlers still running, per server (trackHandlers). */
const handlersRunning = new WeakMap<FastifyInstance, Set<Promise<unknown>>>();

/**
 * Counts every route handler until it returns. Closing the HTTP server waits for open
 * connections, not for handlers: a client that gave up (a timeout, wrk at the end of its run)
 * closes its connection while its chat answer is still being worked out, the server closes, and
 * the store was closed under that handler ("Cannot use a pool after calling end", its usage row
 * lost). The drain waits for these too (startServer), within TIDINGS_DRAIN_SECONDS.
 */
function trackHandlers(server: FastifyInstance): void {
  const running = new Set<Promise<unknown>>();
  handlersRunning.set(server, running);
  server.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request, reply) {
      const result = handler.call(this, request, reply);
      if (!(result instanceof Promise)) return result;
      const done: Promise<unknown> = result.then(
        (): boolean => running.delete(done),
        (): boolean => running.delete(done),
      );
      running.add(done);
      return result;
    };
  });
}

/** Resolves when every route handler running now has returned. */
async function handlersSettled(server: FastifyInstance): Promise<void> {
  const running = handlersRunning.get(server);
  while (running?.size) await Promise.all(running);
}

/**
 * How this process listens. Under `serve --workers N` with reuse-port balancing every worker
 * binds the port itself (SO_REUSEPORT: the kernel spreads new connections over the workers, the
 * supervisor never touches them) and the port is the one the supervisor chose (--port 0).
 */
export interface ListenOptions {
  port?: number;
  reusePort?: boolean;
}

export async function startServer(
  app: App,
  listen: ListenOptions = {},
): Promise<{ server: FastifyInstance; url: string }> {
  const server = await buildServer(app);
  // reusePort is Node's (>= 22.12) net option, which Fastify's types do not list yet; Fastify
  // passes its listen options on to net.Server#listen.
  const options: FastifyListenOptions & { reusePort?: boolean } = {
    host: app.config.host,
    port: listen.port ?? app.config.port,
  };
  if (listen.reusePort) options.reusePort = true;
  await server.listen(options);
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (listen.port ?? app.config.port);
  const url = `http://${app.config.host.includes(':') ? `[${app.config.host}]` : app.config.host}:${port}`;
  app.onClose(async () => {
    await server.close();
    await handlersSettled(server);
  });
  // A server lives long: it indexes what other processes left waiting (one killed mid-refresh).
  watchSearchBacklog(app);
  return { server, url };
}
