// Builds the HTTP server: one Fastify instance, each API an encapsulated plugin with its own
// routes, hooks and error handling, so the reader API and the chat API cannot tangle.
import Fastify, { LogController, type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import type { App } from '../app.ts';
import { readerApiPlugin } from '../reader-api/plugin.ts';
import { authRoutes } from '../auth/routes.ts';
import { chatApiPlugin } from '../chat-api/plugin.ts';
import { webPlugin } from '../web/plugin.ts';

export async function buildServer(app: App): Promise<FastifyInstance> {
  const server = Fastify({
    loggerInstance: app.log.child({ component: 'http' }) as FastifyBaseLogger,
    // Per-request lines only at debug/trace: at info they would drown the fetcher's events.
    logController: new LogController({ disableRequestLogging: app.config.logLevel !== 'debug' && app.config.logLevel !== 'trace' }),
    bodyLimit: 16 * 1024 * 1024,
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  server.get('/healthz', async () => ({ ok: true }));
  // API plugins are registered here (reader API, OAuth, chat completions).
  await server.register(readerApiPlugin, { app });
  await server.register(authRoutes, { app });
  await server.register(chatApiPlugin, { app });
  await server.register(webPlugin, { app });
  return server;
}

export async function startServer(app: App): Promise<{ server: FastifyInstance; url: string }> {
  const server = await buildServer(app);
  await server.listen({ host: app.config.host, port: app.config.port });
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : app.config.port;
  const url = `http://${app.config.host.includes(':') ? `[${app.config.host}]` : app.config.host}:${port}`;
  app.onClose(() => server.close());
  return { server, url };
}
