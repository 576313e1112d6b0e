// Real parts for the Reader API tests: a Tidings server on 127.0.0.1 (port 0) over a SQLite file in
// a temp dir, feeds served by a local node:http server, users with real passwords, ClientLogin.
import { createServer, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger, type Logger } from '../src/log/logger.ts';
import { startServer } from '../src/server/server.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from './helpers.ts';
import { escapeHtmlText } from '../src/text/escape-html.ts';

export interface FeedItem {
  guid: string;
  title: string;
  link: string;
  html: string;
  pubDate: Date;
  enclosure?: { url: string; type: string; length: number };
}

/** RSS feeds kept in memory and served over HTTP; tests add items and the server refreshes. */
export class FeedServer {
  readonly feeds = new Map<string, { title: string; items: FeedItem[] }>();
  /** Other paths (site pages, icons, article pages): exact path -> handler. */
  readonly routes = new Map<
    string,
    (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
  >();
  private server!: Server;
  base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const route = this.routes.get((req.url ?? '').split('?')[0]!);
      if (route) {
        route(req, res);
        return;
      }
      const name = (req.url ?? '').replace(/^\/feeds\//, '').replace(/\.xml$/, '');
      const feed = this.feeds.get(name);
      if (!feed) {
        res.writeHead(404).end('no such feed');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' })
        .end(rss(this.base, name, feed.title, feed.items));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  url(name: string): string {
    return `${this.base}/feeds/${name}.xml`;
  }
  /** Creates the feed if needed and appends n items (newest last). */
  addItems(name: string, n: number, title = name): FeedItem[] {
    let feed = this.feeds.get(name);
    if (!feed) {
      feed = { title, items: [] };
      this.feeds.set(name, feed);
    }
    const added: FeedItem[] = [];
    for (let i = 0; i < n; i++) {
      const k = feed.items.length + 1;
      const it: FeedItem = {
        guid: `${name}-${k}`,
        title: `${title} post ${k} &amp; more`,
        link: `https://example.org/${name}/${k}`,
        html: `<p>Body of <b>${name}</b> ${k}</p><script>alert(1)</script>`,
        pubDate: new Date(Date.UTC(2025, 0, 1) + k * 3600_000),
        ...(k === 1
          ? { enclosure: { url: `https://example.org/${name}/a.mp3`, type: 'audio/mpeg', length: 123 } }
          : {}),
      };
      feed.items.push(it);
      added.push(it);
    }
    return added;
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const esc = escapeHtmlText;

function rss(base: string, name: string, title: string, items: FeedItem[]): string {
  const body = [...items]
    .reverse()
    .map(
      (i) => `<item><guid>${esc(i.guid)}</guid><title>${i.title}</title><link>${esc(i.link)}</link>
    <description>${esc(i.html)}</description><pubDate>${i.pubDate.toUTCString()}</pubDate>
    ${i.enclosure ? `<enclosure url="${esc(i.enclosure.url)}" type="${i.enclosure.type}" length="${i.enclosure.length}"/>` : ''}</item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>${esc(title)}</title>
    <link>${base}/site/${name}</link><description>${esc(title)} feed</description>${body}</channel></rss>`;
}

export interface Harness {
  app: App;
  url: string;
  feeds: FeedServer;
  close(): Promise<void>;
}

export async function startHarness(overrides: Partial<Config> = {}, log: Logger = silentLogger): Promise<Harness> {
  const dataDir = tempDataDir('tidings-reader-');
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir,
      host: '127.0.0.1',
      port: 0,
      allowPrivateNetworks: true,
      schedulerEnabled: false,
      logLevel: 'silent',
      ...overrides,
    },
  });
  const app = await createApp(config, log);
  const { url } = await startServer(app);
  const feeds = await new FeedServer().start();
  return {
    app,
    url,
    feeds,
    async close() {
      await app.close();
      await feeds.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function addUser(app: App, name: string, password: string): Promise<number> {
  return (await app.users.create(name, await hashPassword(password), `${name}@example.org`)).id;
}

/** ClientLogin as apps do it: POST form, the token is on the Auth= line. */
export async function clientLogin(base: string, email: string, password: string, prefix = ''): Promise<string> {
  const res = await fetch(`${base}${prefix}/accounts/ClientLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Email: email, Passwd: password }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ClientLogin failed: ${res.status} ${text}`);
  const line = text.split('\n').find((l) => l.startsWith('Auth='));
  if (!line) throw new Error(`no Auth= line in ${text}`);
  return line.slice(5);
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json<T = any>(): T;
}

/** A Reader API client bound to one base path and Authorization header. */
export class ReaderClient {
  readonly api: string;
  readonly authorization: string | undefined;
  constructor(base: string, authorization: string | undefined, prefix = '') {
    this.api = `${base}${prefix}/reader/api/0/`;
    this.authorization = authorization;
  }
  private async send(path: string, init: RequestInit): Promise<Reply> {
    const headers = new Headers(init.headers);
    if (this.authorization !== undefined) headers.set('authorization', this.authorization);
    const res = await fetch(this.api + path, { ...init, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  }
  get(path: string, query: [string, string][] = []): Promise<Reply> {
    const qs = query.length ? (path.includes('?') ? '&' : '?') + new URLSearchParams(query).toString() : '';
    return this.send(path + qs, { method: 'GET' });
  }
  /** POST form; pairs may repeat keys. `raw` sends the body as given (unencoded clients). */
  post(
    path: string,
    form: [string, string][] | string,
    contentType = 'application/x-www-form-urlencoded',
  ): Promise<Reply> {
    const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
    return this.send(path, { method: 'POST', headers: { 'content-type': contentType }, body });
  }
}

export const S = {
  readingList: 'user/-/state/com.google/reading-list',
  read: 'user/-/state/com.google/read',
  starred: 'user/-/state/com.google/starred',
  like: 'user/-/state/com.google/like',
  label: (n: string) => `user/-/label/${n}`,
};
