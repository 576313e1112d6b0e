// The WebSub callback: GET = the hub verifying intent (echo the challenge), POST = a push.
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../runtime/app.ts';
import { acceptPush, verifyIntent, WebSubError } from '../feeds/websub/websub.ts';
import { plainTextErrorHandler } from '../http/plain-text-errors.ts';
import { textError, type ApiErrorShape } from '../http/error-shape.ts';

/** Where hubs call back; errors under it are plain text (src/http/README.md, "Errors before a route runs"). */
export const WEBSUB_PREFIX = '/websub';

export const websubErrors: ApiErrorShape = {
  prefixes: [WEBSUB_PREFIX],
  shape: (_status, message) => textError(message),
  endpointHint: `WebSub callbacks are GET (verification) and POST (content) ${WEBSUB_PREFIX}/<token>, the callback URL Tidings gave the hub`,
};

export const websubRoutes: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: app.config.maxBodyBytes }, (_req, body, done) =>
    done(null, body),
  );
  server.setErrorHandler(
    plainTextErrorHandler(app.log, 'WebSub callback', (err) => (err instanceof WebSubError ? err.status : undefined)),
  );
  server.get<{ Params: { token: string }; Querystring: Record<string, string> }>(
    `${WEBSUB_PREFIX}/:token`,
    async (req, reply) => {
      const challenge = await verifyIntent(app, req.params.token, req.query);
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );
  server.post<{ Params: { token: string } }>(`${WEBSUB_PREFIX}/:token`, async (req, reply) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const sig = req.headers['x-hub-signature'];
    const r = await acceptPush(
      app,
      req.params.token,
      body,
      (req.headers['content-type'] as string | undefined) ?? null,
      Array.isArray(sig) ? sig[0] : sig,
    );
    return reply.code(200).send(r);
  });
};
