// Serves stored favicons at /icons/<feed id>.<signature> (the URL Reader API clients get as
// iconUrl and the web app uses). No authentication: the icons are the sites' public images, and
// the signature keeps the list of feeds on this server from being enumerated.
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../app.ts';
import { faviconForPath } from '../feeds/favicons.ts';

export const faviconRoutes: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  server.get<{ Params: { name: string } }>('/icons/:name', async (req, reply) => {
    const icon = await faviconForPath(app, req.params.name);
    if (!icon) return reply.code(404).type('text/plain; charset=utf-8').send('no such icon');
    return reply
      .header('Content-Type', icon.mime)
      .header('Cache-Control', 'public, max-age=86400')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'")
      .header('Last-Modified', new Date(icon.fetchedAt * 1000).toUTCString())
      .send(Buffer.from(icon.data));
  });
};
