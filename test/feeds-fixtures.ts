// A real HTTP server on 127.0.0.1 (port 0) serving feeds for the feed engine tests, and an App on
// a temp SQLite file. Routes are plain handlers so each test states exactly what the server does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { tempDataDir } from './helpers.ts';
import { testSql } from '../src/store/testing.ts';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FeedServer {
  base: string;
  routes: Map<string, Handler>;
  hits: Map<string, number>;
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const requests: FeedServer['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    requests.push({ path, headers: req.headers });
    const h = routes.get(path);
    if (h) h(req, res);
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    routes,
    hits,
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export function testApp(overrides: Partial<Config> = {}): Promise<App> {
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir: tempDataDir('tidings-feeds-'),
      allowPrivateNetworks: true,
      fetchTimeoutMs: 3000,
      connectTimeoutMs: 2000,
      ...overrides,
    },
  });
  return createApp(config, silentLogger);
}

export interface Entry {
  guid: string;
  title: string;
  body?: string;
  date?: string;
}

export function rss(title: string, entries: Entry[], extra = ''): string {
  const items = entries
    .map(
      (e) =>
        `<item><title>${e.title}</title><link>https://example.org/${e.guid}</link><guid>${e.guid}</guid>` +
        `<pubDate>${e.date ?? 'Mon, 02 Nov 2026 10:00:00 GMT'}</pubDate><description>${e.body ?? 'Body of ' + e.title}</description></item>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>${title}</title><link>https://example.org/</link>${extra}${items}</channel></rss>`;
}

/** Serves a body with a fixed ETag and Last-Modified, answering 304 to matching validators. */
export function conditional(getBody: () => string, etag: () => string, contentType = 'application/rss+xml'): Handler {
  return (req, res) => {
    const tag = etag();
    if (req.headers['if-none-match'] === tag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('content-type', contentType);
    res.setHeader('etag', tag);
    res.setHeader('last-modified', 'Mon, 02 Nov 2026 10:00:00 GMT');
    res.end(getBody());
  };
}

export async function addUser(app: App, name: string): Promise<number> {
  return (await app.users.create(name, 'x')).id;
}

export function userItems(app: App, userId: number): Promise<{ item_id: number; read: number }[]> {
  return testSql(app).prepare('SELECT item_id, read FROM user_items WHERE user_id = ? ORDER BY item_id').all(userId);
}
