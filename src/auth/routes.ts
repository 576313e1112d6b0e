// The authentication HTTP API as one encapsulated Fastify plugin: ClientLogin and the OAuth 2.0
// authorization server. Its body parsers are registered here only, so they cannot clash with the
// reader API's own parser.
import type { FastifyInstance } from 'fastify';
import type { App } from '../runtime/app.ts';
import { FormBody } from '../http/params.ts';
import { clientLoginRoutes } from './http/client-login.ts';
import { oauthRoutes } from './http/oauth-routes.ts';

export async function authRoutes(server: FastifyInstance, opts: { app: App }): Promise<void> {
  // Forms are read by the shared lenient parser (src/http/params.ts), repeated keys kept so OAuth
  // can refuse them. Some ClientLogin clients post a form with no or a wrong content type
  // (text/plain): any other body is read as a form too. JSON keeps Fastify's parser.
  for (const t of ['application/x-www-form-urlencoded', 'text/plain'])
    if (server.hasContentTypeParser(t)) server.removeContentTypeParser(t);
  for (const t of ['application/x-www-form-urlencoded', '*']) {
    server.addContentTypeParser(t, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) =>
      done(null, new FormBody(body as string)),
    );
  }
  await server.register(clientLoginRoutes, opts);
  await server.register(oauthRoutes, opts);
}
