// Real parts for the browser tests of the web app: Debian's chromium driven by playwright-core
// (nothing downloads a browser), a Tidings server on 127.0.0.1 with a SQLite file whose log is
// captured (the first-run setup link is read from it), and a local site with feeds and a page
// announcing them.
import { createServer, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { startServer } from '../src/server/server.ts';
import { tempDataDir } from './helpers.ts';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The chromium binary (`which chromium`), or undefined when it is not installed. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      /* next */
    }
  }
  return undefined;
}

export const SKIP_NO_CHROMIUM = chromiumPath()
  ? false
  : 'skipped: chromium is not installed (apt-get install chromium; .ci/run does it)';

/** Where screenshots go (not committed): $TIDINGS_TEST_OUTPUT or <tmp>/tidings-test-output/web. */
export const SCREENSHOT_DIR = process.env.TIDINGS_TEST_OUTPUT
  ? join(process.env.TIDINGS_TEST_OUTPUT, 'web')
  : join(tmpdir(), 'tidings-test-output', 'web');

export interface Article {
  guid: string;
  title: string;
  html: string;
  date: string;
  enclosure?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A local web site: /site (a page announcing two feeds), /feeds/<name>.xml, /img.svg. */
export class Site {
  /** delayMs: the feed answers that much later (a slow server; a fetch still in flight while the page looks). */
  readonly feeds = new Map<string, { title: string; items: Article[]; delayMs?: number }>();
  private server!: Server;
  base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === '/site') {
        const links = [...this.feeds]
          .map(
            ([name, f]) =>
              `<link rel="alternate" type="application/rss+xml" title="${esc(f.title)}" href="/feeds/${name}.xml">`,
          )
          .join('');
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><html><head><title>Local site</title>${links}</head><body>Hello</body></html>`);
        return;
      }
      if (path === '/img.svg') {
        res
          .writeHead(200, { 'content-type': 'image/svg+xml' })
          .end(
            '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="200"><rect width="600" height="200" fill="#7aa7e0"/></svg>',
          );
        return;
      }
      const m = /^\/feeds\/([\w-]+)\.xml$/.exec(path);
      const feed = m && this.feeds.get(m[1]!);
      if (!feed) {
        res.writeHead(404).end('not found');
        return;
      }
      const items = feed.items
        .map(
          (i) =>
            `<item><guid>${esc(i.guid)}</guid><title>${esc(i.title)}</title><link>${this.base}/posts/${i.guid}</link>` +
            `<description>${esc(i.html)}</description><pubDate>${i.date}</pubDate>${i.enclosure ? `<enclosure url="${this.base}${i.enclosure}" type="audio/mpeg" length="1000"/>` : ''}</item>`,
        )
        .join('');
      const answer = () =>
        res
          .writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' })
          .end(
            `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>${esc(feed.title)}</title><link>${this.base}/site</link><description>x</description>${items}</channel></rss>`,
          );
      if (feed.delayMs) setTimeout(answer, feed.delayMs);
      else answer();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  url(name: string): string {
    return `${this.base}/feeds/${name}.xml`;
  }
  close(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}

export interface WebHarness {
  app: App;
  url: string;
  site: Site;
  logLines: string[];
  close(): Promise<void>;
}

/** A server whose warn-level log lines are kept (the setup link is printed there). */
export async function startWebHarness(overrides: Partial<Config> = {}): Promise<WebHarness> {
  const dataDir = tempDataDir('tidings-web-');
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const log = pino({ level: 'warn' }, sink);
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir,
      host: '127.0.0.1',
      port: 0,
      allowPrivateNetworks: true,
      schedulerEnabled: false,
      logLevel: 'warn',
      parseWorkers: 0,
      ...overrides,
    },
  });
  const app = await createApp(config, log);
  const { url } = await startServer(app);
  const site = await new Site().start();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    app,
    url,
    site,
    logLines,
    async close() {
      await app.close();
      await site.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The setup link from the server log (the line a person would copy). */
export async function setupUrlFromLog(logLines: string[]): Promise<string> {
  for (let i = 0; i < 50; i++) {
    for (const l of logLines) {
      const u = (JSON.parse(l) as { setupUrl?: string }).setupUrl;
      if (u) return u;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no setupUrl in the server log: ${logLines.join('\n')}`);
}

/**
 * Chromium on a fresh page that created the first (admin) account through the logged setup link,
 * as a new user does; the page shows the empty reader ("No feeds yet").
 */
export async function browserWithFirstAccount(
  h: WebHarness,
  opts: { user?: string; viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  const ctx = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    bypassCSP: opts.bypassCSP ?? false,
  });
  ctx.setDefaultTimeout(20_000);
  const page = await ctx.newPage();
  await page.goto(await setupUrlFromLog(h.logLines));
  await page.getByLabel('User name').fill(opts.user ?? 'admin');
  await page.getByLabel(/^Password/).fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('No feeds yet').waitFor();
  return { browser, page };
}
