// The authentication HTTP API as one encapsulated Fastify plugin: ClientLogin and the OAuth 2.0
// authorization server. Its body parsers are registered here only, so they cannot clash with the
// reader API's own parser.
import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { parse as parseQueryString } from 'node:querystring';
import type { App } from '../app.ts';
import { clientLoginRoutes } from './http/client-login.ts';
import { oauthRoutes } from './http/oauth-routes.ts';

export async function authRoutes(server: FastifyInstance, opts: { app: App }): Promise<void> {
  // @fastify/formbody: the maintained form parser for Fastify (repeated keys become arrays).
  await server.register(formbody, { bodyLimit: 64 * 1024 });
  // Some ClientLogin clients post a form body with no or a wrong content type (text/plain):
  // read any other body as a form too.
  server.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, parseQueryString(body as string));
  });
  await server.register(clientLoginRoutes, opts);
  await server.register(oauthRoutes, opts);
}
