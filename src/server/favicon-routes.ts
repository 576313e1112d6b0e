// Serves stored favicons at /icons/<feed id>.<signature> (the URL Reader API clients get as
// iconUrl and the web app uses). No authentication: the icons are the sites' public images, and
// the signature keeps the list of feeds on this server from being enumerated.
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../runtime/app.ts';
import { faviconForPath } from '../feeds/favicons.ts';
import { plainTextErrorHandler } from '../http/plain-text-errors.ts';
import { textError, type ApiErrorShape } from '../http/error-shape.ts';

/** Where favicons are served; errors under it are plain text, like the icon's own 404. */
export const ICONS_PREFIX = '/icons';

export const faviconErrors: ApiErrorShape = {
  prefixes: [ICONS_PREFIX],
  shape: (_status, message) => textError(message),
  endpointHint: `favicons are GET ${ICONS_PREFIX}/<feed id>.<signature>, the iconUrl of a subscription`,
};

export const faviconRoutes: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  server.setErrorHandler(plainTextErrorHandler(app.log, 'favicon'));
  server.get<{ Params: { name: string } }>(`${ICONS_PREFIX}/:name`, async (req, reply) => {
    const icon = await faviconForPath(app, req.params.name);
    if (!icon)
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .header('X-Content-Type-Options', 'nosniff')
        .send('no such icon: this link is not the icon of a subscription on this server (see its iconUrl)');
    return reply
      .header('Content-Type', icon.mime)
      .header('Cache-Control', 'public, max-age=86400')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'")
      .header('Last-Modified', new Date(icon.fetchedAt * 1000).toUTCString())
      .send(Buffer.from(icon.data));
  });
};
