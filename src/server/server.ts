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
import cluster from 'node:cluster';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';

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

/**
 * Listening sockets per process (TIDINGS_ACCEPT_SOCKETS). libuv accepts one connection per
 * listening socket per event-loop turn (libuv PR 3696, Node >= 20), and a turn of a server busy
 * with 1,000 keep-alive connections lasts 100-400 ms: a plain Node server then accepted about 10
 * new connections a second, and half of wrk's 1,000 connections waited in the accept queue for
 * the whole 10 s run, the "p99 13-20 s while every route answered within 16 ms" of issue 25.
 * Several sockets bound to the port with SO_REUSEPORT, the kernel spreading new connections over
 * them, accept as many per turn (BENCHMARKS.md, "Connections"). Linux only (elsewhere
 * SO_REUSEPORT does not spread connections), and not in a round-robin cluster worker, whose
 * connections the supervisor accepts and hands over.
 */
function acceptSocketCount(app: App, listen: ListenOptions): number {
  const n = app.config.acceptSockets;
  if (n <= 1 || process.platform !== 'linux') return 1;
  if (cluster.isWorker && !listen.reusePort) return 1;
  return n;
}

function listenNet(s: NetServer, opts: { host: string; port: number; backlog: number; reusePort: boolean }) {
  return new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(opts, () => {
      s.off('error', reject);
      resolve();
    });
  });
}

async function probePort(host: string, port: number): Promise<void> {
  const probe = createNetServer();
  await listenNet(probe, { host, port, backlog: 1, reusePort: false });
  await new Promise((r) => probe.close(r));
}

/** More listening sockets on the port, each handing its connections to the HTTP server. */
async function extraAcceptors(server: FastifyInstance, app: App, port: number, count: number): Promise<NetServer[]> {
  const out: NetServer[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const s = createNetServer((socket) => server.server.emit('connection', socket));
      await listenNet(s, { host: app.config.host, port, backlog: app.config.listenBacklog, reusePort: true });
      out.push(s);
    }
  } catch (e) {
    // The main socket serves on its own; fewer acceptors only mean slower accepting under load.
    app.log.warn({ err: e, listening: out.length + 1 }, 'could not open every accept socket');
  }
  return out;
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
    backlog: app.config.listenBacklog,
  };
  const acceptors = acceptSocketCount(app, listen);
  if (listen.reusePort || acceptors > 1) options.reusePort = true;
  // SO_REUSEPORT would also let another server of the same user share a fixed port (taking some
  // of its connections): bind it once without, so a port in use fails as before.
  if (acceptors > 1 && !listen.reusePort && options.port) await probePort(app.config.host, options.port);
  await server.listen(options);
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (listen.port ?? app.config.port);
  const extra = await extraAcceptors(server, app, port, acceptors - 1);
  const url = `http://${app.config.host.includes(':') ? `[${app.config.host}]` : app.config.host}:${port}`;
  app.onClose(async () => {
    // Stop accepting on them; not awaited: a net.Server's close waits for every connection it
    // accepted to end, and these belong to the HTTP server, which closes them below.
    for (const s of extra) s.close();
    await server.close();
    await handlersSettled(server);
  });
  // A server lives long: it indexes what other processes left waiting (one killed mid-refresh).
  watchSearchBacklog(app);
  return { server, url };
}
