// The web app at 100k items: server time of the calls the page makes, and in Chromium the time from
// navigation start to the article list on screen and to open an article; the bytes shipped.
//
//   npm run bench:web                         # 500 feeds, 100,000 items, one user
//   options: --items N  --feeds N  --runs N (per API call, default 50)  --loads N (page loads, default 10)  --keep
//
// Generates the library directly in SQLite (bench/library.ts, the same as bench:reader's), starts the real server
// (src/main.ts) as a child process, signs in through POST /api/v1/session, then measures each call
// with an undici Pool; baseline in the same run: GET /healthz (the server's floor). The browser part
// drives Debian's chromium (playwright-core) and reads the marks the page sets
// (tidings:list-rendered, tidings:open-article); it is skipped when chromium is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { generateLibrary } from './library.ts';
import { waitForServingUrl } from './server-log.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { loadAssets } from '../src/web/assets.ts';
import { tempDataDir } from '../test/helpers.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/web-browser-harness.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ITEMS = arg('items', 100_000);
const FEEDS = arg('feeds', 500);
const RUNS = arg('runs', 50);
const LOADS = arg('loads', 10);
const USER = 'bench',
  PASS = 'bench-password';

/** The shared generated library (bench/library.ts): the same data as bench:reader. */
async function generate(dataDir: string): Promise<void> {
  generateLibrary(dataDir, { feeds: FEEDS, items: ITEMS, username: USER, passwordHash: await hashPassword(PASS) });
}

async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'src/main.ts')], {
    env: {
      ...process.env,
      TIDINGS_DATA: dataDir,
      TIDINGS_PORT: '0',
      TIDINGS_HOST: '127.0.0.1',
      TIDINGS_SCHEDULER: 'false',
      TIDINGS_LOG_LEVEL: 'info',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await waitForServingUrl(child);
  return { child, url };
}

const pct = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const dataDir = tempDataDir('tidings-bench-web-');
  await generate(dataDir);
  const { child, url } = await startServer(dataDir);
  const pool = new Pool(url, { connections: 4 });
  try {
    const login = await pool.request({
      method: 'POST',
      path: '/api/v1/session',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ username: USER, password: PASS }),
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    await login.body.json();
    const H = { cookie, accept: 'application/json' };
    const get = async (path: string) => {
      const r = await pool.request({ method: 'GET', path, headers: H });
      const b = await r.body.arrayBuffer();
      if (r.statusCode !== 200)
        throw new Error(`${path}: HTTP ${r.statusCode} ${Buffer.from(b).toString().slice(0, 200)}`);
      return b;
    };
    const firstPage = JSON.parse(Buffer.from(await get('/api/v1/articles?view=unread&limit=50')).toString()) as {
      items: { id: number }[];
    };
    const ids = firstPage.items.map((i) => i.id);
    let k = 0;
    let cursor: string | null = null;
    const calls: [string, () => Promise<unknown>][] = [
      ['baseline GET /healthz', () => get('/healthz')],
      ['GET /api/v1/unread-counts', () => get('/api/v1/unread-counts')],
      ['GET /api/v1/sidebar', () => get('/api/v1/sidebar')],
      ['GET /api/v1/articles (all, 50)', () => get('/api/v1/articles?view=all&limit=50')],
      ['GET /api/v1/articles (unread, 50)', () => get('/api/v1/articles?view=unread&limit=50')],
      ['GET /api/v1/articles (feed 3, 50)', () => get('/api/v1/articles?feed=3&limit=50')],
      [
        'GET /api/v1/articles (folder, 50)',
        () => get(`/api/v1/articles?folder=${encodeURIComponent('Folder 1')}&limit=50`),
      ],
      ['GET /api/v1/articles/:id', () => get(`/api/v1/articles/${ids[k++ % ids.length]}`)],
      // Each call the next page: snippets are made for articles not seen before (the cold path).
      [
        'GET /api/v1/articles (next pages, cold)',
        async () => {
          const page = JSON.parse(
            Buffer.from(await get(`/api/v1/articles?view=all&limit=50${cursor ? `&cursor=${cursor}` : ''}`)).toString(),
          ) as { next: string | null };
          cursor = page.next;
        },
      ],
    ];
    console.log(`\nserver time on loopback, ${RUNS} runs each (p50 / p95):`);
    for (const [name, fn] of calls) {
      for (let i = 0; i < 5; i++) await fn();
      const t: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await fn();
        t.push(performance.now() - s);
      }
      console.log(`  ${name.padEnd(36)} ${ms(pct(t, 0.5)).padStart(10)} ${ms(pct(t, 0.95)).padStart(10)}`);
    }

    const assets = loadAssets();
    let raw = 0,
      gz = 0;
    const parts: string[] = [];
    for (const [path, a] of assets) {
      if (!/\.(js|css)$/.test(path)) continue;
      raw += a.body.length;
      gz += a.gzip.length;
      parts.push(`${path.replace('/assets/', '')} ${a.gzip.length}`);
    }
    const html = assets.get('/')!;
    console.log(
      `\nJS+CSS shipped: ${raw} bytes, ${gz} bytes gzipped (${parts.join(', ')}); index.html ${html.gzip.length} bytes gzipped`,
    );

    const exe = chromiumPath();
    if (!exe) {
      console.log('\nchromium not installed: browser timings skipped');
      return;
    }
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: exe, headless: true, args: CHROMIUM_ARGS });
    try {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await ctx.addCookies([{ name: 'tidings_session', value: cookie.split('=')[1]!, url }]);
      const page = await ctx.newPage();
      const loads: number[] = [];
      for (let i = 0; i <= LOADS; i++) {
        await page.goto(`${url}/?load=${i}#/all`);
        await page.waitForFunction(
          () => (globalThis as any).performance.getEntriesByName('tidings:list-rendered').length > 0,
        );
        const t = await page.evaluate(
          () => (globalThis as any).performance.getEntriesByName('tidings:list-rendered')[0]!.startTime,
        );
        if (i > 0) loads.push(t); // the first load fills the HTTP cache, as a returning reader's has
      }
      console.log(
        `\nChromium, navigation start to article list rendered (${LOADS} loads): p50 ${ms(pct(loads, 0.5))}, p95 ${ms(pct(loads, 0.95))}`,
      );
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('j');
        await page.waitForFunction(
          (n) => (globalThis as any).performance.getEntriesByName('tidings:open-article').length >= n,
          i + 1,
        );
      }
      const opens = await page.evaluate(() =>
        (globalThis as any).performance
          .getEntriesByName('tidings:open-article')
          .map((e: { duration: number }) => e.duration),
      );
      console.log(
        `Chromium, opening an article (j, fetch + render; ${opens.length} opens): p50 ${ms(pct(opens, 0.5))}, p95 ${ms(pct(opens, 0.95))}`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    await pool.close();
    child.kill();
    if (!process.argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
  }
}

await main();
