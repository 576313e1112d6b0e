// Tidings' own web app: the page and its assets at /, and the JSON API it uses at /api/v1
// (documented at /api/v1/openapi.json). Registered with one line in src/server/server.ts. The outer
// function runs in the root context (wrapped with fastify-plugin) only to hook onListen (to print
// the first-run setup link of a single server process); routes, parsers and the error handler live in the encapsulated
// plugin below.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { App } from '../runtime/app.ts';
import { authenticateRequest, checkOrigin, errorReply, SECURITY_HEADERS } from './http.ts';
import { ROUTES, type WebContext } from './routes.ts';
import { openApiDocument } from './openapi.ts';
import { loadAssets, type Asset } from './assets.ts';
import { setupSecret } from './setup.ts';
import { announceSetupLink, setupBaseUrl, setupLink } from '../auth/setup-link.ts';
import { prettyLogs } from '../log/logger.ts';
import { allowedMethods, methodMessage } from '../http/allowed-methods.ts';
import { errorCodeOf, jsonError, type ApiErrorShape } from '../http/error-shape.ts';

export const API_PREFIX = '/api/v1';

/** Errors under the web API's prefix before a route runs: its JSON error. */
export const webApiErrors: ApiErrorShape = {
  prefixes: [API_PREFIX],
  shape: (status, message) => jsonError({ error: { code: errorCodeOf(status), message } }),
  endpointHint: `see ${API_PREFIX}/openapi.json`,
};

function sendAsset(
  req: { headers: Record<string, string | string[] | undefined> },
  reply: import('fastify').FastifyReply,
  a: Asset,
) {
  reply
    .headers(SECURITY_HEADERS)
    .header('content-type', a.type)
    .header('etag', a.etag)
    // Small files, always revalidated: a new version shows on the next load, a 304 costs nothing.
    .header('cache-control', 'no-cache')
    .header('vary', 'accept-encoding');
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (gz) return reply.header('content-encoding', 'gzip').send(a.gzip);
  return reply.send(a.body);
}

const webRoutes: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  const assets = loadAssets();
  for (const [path, asset] of assets) {
    server.get(path, (req, reply) => sendAsset(req, reply, asset));
  }
  // Browsers ask for /favicon.ico on every page whatever the page links to; a 404 there is noise.
  const ico = assets.get('/assets/favicon.ico');
  if (ico) server.get('/favicon.ico', (req, reply) => sendAsset(req, reply, ico));

  await server.register(
    async (api: FastifyInstance) => {
      // OPML uploads arrive as text; JSON bodies use Fastify's parser.
      api.addContentTypeParser(
        ['text/xml', 'application/xml', 'text/x-opml', 'application/octet-stream', 'text/plain'],
        { parseAs: 'string', bodyLimit: 5 * 1024 * 1024 },
        (_req, body, done) => done(null, body),
      );
      api.setErrorHandler((e, _req, reply) => errorReply(app, reply, e));
      api.addHook('onSend', async (_req, reply) => {
        reply.header('x-content-type-options', 'nosniff');
      });
      // Cross-site changes are refused before their body is even read.
      api.addHook('onRequest', async (req) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') checkOrigin(app, req);
      });
      api.setNotFoundHandler((req, reply) => {
        const path = req.url.split('?')[0] ?? '/';
        const allowed = allowedMethods(req, path);
        if (allowed.length)
          return reply
            .code(405)
            .header('allow', allowed.join(', '))
            .send({ error: { code: 'method_not_allowed', message: methodMessage(path, allowed, req.method) } });
        return reply.code(404).send({
          error: { code: 'not_found', message: `no endpoint ${req.method} ${path}: see ${API_PREFIX}/openapi.json` },
        });
      });
      const doc = openApiDocument(ROUTES, API_PREFIX);
      api.get('/openapi.json', async (_req, reply) => reply.header('cache-control', 'no-cache').send(doc));
      for (const r of ROUTES) {
        api.route({
          method: r.method,
          url: r.path,
          handler: async (req, reply) => {
            const auth = await authenticateRequest(app, req, r.access);
            const body =
              req.body && typeof req.body === 'object' && !Array.isArray(req.body)
                ? (req.body as Record<string, unknown>)
                : {};
            const ctx: WebContext = {
              app,
              req,
              reply,
              auth,
              body,
              query: (req.query ?? {}) as Record<string, string>,
              params: (req.params ?? {}) as Record<string, string>,
            };
            reply.header('cache-control', 'no-store');
            const out = await r.handler(ctx);
            if (reply.sent) return reply;
            if (out === undefined) return reply.code(reply.statusCode === 200 ? 204 : reply.statusCode).send();
            if (r.created && reply.statusCode === 200) reply.code(201);
            return reply.send(out);
          },
        });
      }
    },
    { prefix: API_PREFIX },
  );
};

export const webPlugin = fastifyPlugin<{ app: App }>(
  async (server, opts) => {
    const { app } = opts;
    // The single server process prints the link; under --workers N the supervisor does (src/web/setup.ts).
    if (app.role.worker === null)
      server.addHook('onListen', async () => {
        const secret = await setupSecret(app);
        if (!secret) return;
        const addr = server.server.address();
        const port = typeof addr === 'object' && addr ? addr.port : app.config.port;
        announceSetupLink(app.log, setupLink(setupBaseUrl(app.config, port), secret), prettyLogs(app.config.logFormat));
      });
    await server.register(webRoutes, opts);
  },
  { name: 'tidings-web', fastify: '5.x' },
);
