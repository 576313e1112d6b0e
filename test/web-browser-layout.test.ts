// The web app as a new user sees it (issue 23 §3-4), in real Chromium over the real-world feeds of
// ../shared/corpus/feeds/real-world served from 127.0.0.1: the empty states of a user with no
// feeds, a sidebar whose feed titles all start at the same x with icons Tidings serves itself
// (the page never contacts a publisher for its chrome), a compact list that fits twice the rows
// and is remembered, an Ask page whose answer is in view without scrolling on a desktop and a
// phone, whose text visibly grows and whose status says what the engine does, source chips under
// the name the user gave the feed, a reopened conversation printing its question once; an API key
// listed as soon as it is created, with a copy button; /favicon.ico.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  chromiumPath,
  SCREENSHOT_DIR,
  SKIP_NO_CHROMIUM,
  setupUrlFromLog,
  startWebHarness,
  type WebHarness,
} from './web-browser-harness.ts';
import { hasShared, SHARED } from './helpers.ts';
import { feedIcons } from '../src/feeds/favicons.ts';

// Functions passed to page.evaluate run in the page.
declare const document: any;
declare const window: any;
declare const navigator: any;
declare function requestAnimationFrame(f: () => void): number;
declare class MutationObserver {
  constructor(f: () => void);
  observe(el: unknown, o: unknown): void;
}

const FEEDS = join(SHARED, 'corpus/feeds/real-world');
const TELEGRAPH = '209824d01f039dde14e22fbd7155c86c-feed.xml';
const skip = SKIP_NO_CHROMIUM || (hasShared ? false : 'skipped: ../shared (corpus) is not present beside the checkout');
const PASSWORD = 'correct horse battery';
const DESKTOP = { width: 1366, height: 850 };
const PHONE = { width: 390, height: 844 };
// A 1×1 PNG: the icon Tidings would have fetched for a feed.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let h: WebHarness;
let feedServer: http.Server;
let feedBase = '';
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
/** Every request the page made to a host other than 127.0.0.1. */
const remote: string[] = [];

async function shot(name: string, p: Page = page) {
  await p.screenshot({ path: join(SCREENSHOT_DIR, `layout-${name}.png`), fullPage: false });
}

function watch(p: Page) {
  p.on('request', (r) => {
    const host = new URL(r.url()).hostname;
    if (host !== '127.0.0.1' && !r.url().startsWith('data:')) remote.push(r.url());
  });
}

before(async () => {
  if (skip) return;
  feedServer = http.createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\//, '');
    let body: Buffer | undefined;
    try {
      if (/^[\w.-]+\.xml$/.test(name)) body = readFileSync(join(FEEDS, name));
    } catch {
      /* 404 below */
    }
    if (body) res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => feedServer.listen(0, '127.0.0.1', r));
  feedBase = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
  h = await startWebHarness();
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  ctx = await browser.newContext({ viewport: DESKTOP });
  ctx.setDefaultTimeout(30_000);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
  page = await ctx.newPage();
  watch(page);
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await h?.close();
  feedServer?.close();
});

test('/favicon.ico is the app icon (200, an image), and the page links an icon', { skip }, async () => {
  const r = await fetch(h.url + '/favicon.ico');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/x-icon');
  const bytes = new Uint8Array(await r.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 4)], [0, 0, 1, 0], 'an ICO file');
  const html = await (await fetch(h.url + '/')).text();
  assert.match(html, /<link rel="icon" href="assets\/favicon\.svg"/);
  assert.equal((await fetch(h.url + '/assets/favicon.svg')).status, 200);
});

test('a new user with no feeds is shown how to add one, and the empty pane shows the keys', { skip }, async () => {
  await page.goto(await setupUrlFromLog(h.logLines));
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  const list = page.locator('#items');
  await list.getByRole('heading', { name: 'No feeds yet' }).waitFor();
  assert.doesNotMatch((await list.textContent()) ?? '', /All caught up/);
  await list.getByRole('link', { name: 'Add your first feed' }).waitFor();
  assert.match((await page.locator('#pane').textContent()) ?? '', /j \/ k.*next \/ previous article/s);
  await shot('01-no-feeds');
  await list.getByRole('link', { name: 'Add your first feed' }).click();
  await page.waitForURL(/#\/manage$/);
  await page.getByLabel('Feed or site address').waitFor();
});

test('real feeds: every feed title starts at the same x, icons are served by Tidings, no publisher is contacted', {
  skip,
}, async () => {
  const outlines = readdirSync(FEEDS)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => `<outline type="rss" xmlUrl="${feedBase}/${f}"/>`)
    .join('');
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>${outlines}</body></opml>`;
  const n = await page.evaluate(
    async ({ opml, telegraph }) => {
      const s = (await (await fetch('api/v1/session')).json()) as any;
      const H = { 'x-csrf-token': s.csrfToken };
      const r = await fetch('api/v1/opml', {
        method: 'POST',
        body: opml,
        headers: { ...H, 'content-type': 'text/xml' },
      });
      if (!r.ok) throw new Error(await r.text());
      const { feeds } = (await (await fetch('api/v1/feeds')).json()) as any;
      for (const f of feeds)
        if (f.url.endsWith(telegraph))
          await fetch(`api/v1/feeds/${f.id}`, {
            method: 'PATCH',
            body: JSON.stringify({ title: 'The Telegraph' }),
            headers: { ...H, 'content-type': 'application/json' },
          });
      for (const f of feeds) await fetch(`api/v1/feeds/${f.id}/refresh`, { method: 'POST', headers: H });
      return feeds.length;
    },
    { opml, telegraph: TELEGRAPH },
  );
  assert.ok(n >= 20, `${n} feeds`);
  // One feed has an icon Tidings fetched (the lookup itself is tested in favicons.test.ts).
  const guardian = await page.evaluate(
    async () =>
      ((await (await fetch('api/v1/feeds')).json()) as any).feeds.find((f: any) => /Guardian/.test(f.title)).id,
  );
  await feedIcons(h.app).store({ feedId: guardian, mime: 'image/png', data: PNG, sourceUrl: null, fetchedAt: 1 });
  remote.length = 0;
  await page.goto(h.url + '/#/all');
  await page.reload();
  await page.locator('#items .row').nth(10).waitFor();
  await page
    .locator('#sidebar .nav-feeds a')
    .nth(n - 1)
    .waitFor();
  const feeds = await page.evaluate(() =>
    [...document.querySelectorAll('#sidebar .nav-feeds > li > a')].map((a: any) => ({
      title: a.querySelector('.label').textContent,
      x: Math.round(a.querySelector('.label').getBoundingClientRect().left),
      slot: a.querySelector('.favicon')?.getBoundingClientRect().width ?? 0,
      img: a.querySelector('img')?.getAttribute('src') ?? null,
    })),
  );
  assert.equal(feeds.length, n);
  const xs = new Set(feeds.map((f: { x: number }) => f.x));
  assert.equal(xs.size, 1, `feed titles start at ${[...xs].join(', ')}:\n${JSON.stringify(feeds)}`);
  assert.ok(
    feeds.every((f: { slot: number }) => f.slot === 16),
    'every feed has the 16 px icon slot',
  );
  const imgs = feeds.filter((f: { img: string | null }) => f.img).map((f: { img: string }) => f.img);
  assert.equal(imgs.length, 1, `one served icon: ${imgs.join(', ')}`);
  assert.match(imgs[0], /^icons\/\d+\.[\w-]{16}$/, 'a relative URL of Tidings');
  assert.ok(
    await page.evaluate(() => [...document.querySelectorAll('#sidebar img')].every((i: any) => i.naturalWidth > 0)),
    'the served icon loads',
  );
  await shot('02-sidebar');
  // Open the Ask page too: nothing there reaches a publisher either.
  await page.goto(h.url + '/#/ask');
  await page.locator('#ask-q').waitFor();
  await page.waitForLoadState('networkidle');
  assert.deepEqual(remote, [], 'requests to hosts other than 127.0.0.1');
});

test('the compact list fits far more rows than the list, the magazine view shows images, the choice is kept', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/all');
  await page.locator('#items .row').nth(20).waitFor();
  const visibleRows = () =>
    page.evaluate(() => {
      const box = document.querySelector('#items').getBoundingClientRect();
      return [...document.querySelectorAll('#items .row')].filter((r: any) => {
        const b = r.getBoundingClientRect();
        return b.top >= box.top && b.bottom <= Math.min(box.bottom, window.innerHeight);
      }).length;
    });
  const list = await visibleRows();
  // The toolbar is one row (the Ask button did wrap to a second one).
  const toolTops = await page.evaluate(() =>
    [...document.querySelectorAll('.list-head .tools > *')].map((e: any) => Math.round(e.getBoundingClientRect().top)),
  );
  assert.ok(Math.max(...toolTops) - Math.min(...toolTops) <= 4, `toolbar on one row: ${toolTops.join(', ')}`);
  await page.getByRole('button', { name: 'Compact list' }).click();
  await page.locator('#items.view-compact .row').nth(20).waitFor();
  const compact = await visibleRows();
  assert.ok(compact >= 15, `${compact} rows in the compact list at 850 px`);
  assert.ok(compact >= list * 1.8, `compact ${compact} vs list ${list}`);
  await shot('03-compact');
  // Kept on the server for this user: a reload (or another browser) shows the compact list.
  await page.reload();
  await page.locator('#items.view-compact .row').first().waitFor();
  assert.equal(await page.getByRole('button', { name: 'Compact list' }).getAttribute('aria-pressed'), 'true');
  await page.getByRole('button', { name: 'Magazine (with images)' }).click();
  await page.locator('#items.view-cards .row .thumb').nth(5).waitFor();
  // Lead images come through Tidings (signed URLs), so this view contacts no publisher either.
  const srcs = await page
    .locator('#items img.thumb')
    .evaluateAll((imgs) => imgs.map((i: any) => i.getAttribute('src')));
  assert.ok(
    srcs.every((s) => /^api\/v1\/images\/[\w-]{22}\?u=https?%3A/.test(s)),
    srcs.join('\n'),
  );
  await page.waitForLoadState('networkidle');
  assert.deepEqual(remote, [], 'requests to hosts other than 127.0.0.1');
  await shot('04-magazine');
  await page.getByRole('button', { name: 'List', exact: true }).click();
  await page.locator('#items.view-list .row').first().waitFor();
});

test('a feed selected with no article open shows its description and fetch health', { skip }, async () => {
  await page.locator('#sidebar a', { hasText: 'The Telegraph' }).click();
  const card = page.locator('#pane .feed-card');
  await card.getByRole('heading', { name: 'The Telegraph' }).waitFor();
  assert.match((await card.textContent()) ?? '', /Fetched .*100 articles/s);
  // A feed's toolbar has one more control (Unread only), still on one row.
  const tops = await page.evaluate(() =>
    [...document.querySelectorAll('.list-head .tools > *')].map((e: any) => Math.round(e.getBoundingClientRect().top)),
  );
  assert.equal(tops.length, 4);
  assert.ok(Math.max(...tops) - Math.min(...tops) <= 4, `toolbar on one row: ${tops.join(', ')}`);
  await shot('05-feed-pane');
});

/** Asks in the page and records, on every animation frame, the answer's length and the status line. */
async function askAndRecord(p: Page, question: string) {
  await p.getByRole('textbox', { name: 'Question' }).fill(question);
  await p.evaluate(() => {
    const w = window as { lengths: number[]; statuses: string[] };
    w.lengths = [];
    w.statuses = [];
    const sample = () => {
      const a = document.querySelector('.turn:last-child .answer');
      w.lengths.push(a ? a.textContent.length : 0);
      const s = document.querySelector('.turn:last-child .status')?.textContent;
      if (s && w.statuses[w.statuses.length - 1] !== s) w.statuses.push(s);
      if (!a || a.hasAttribute('aria-busy') || w.lengths.length < 5) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
    // Status lines can last less than a frame: a mutation observer sees every one.
    new MutationObserver(() => {
      const s = document.querySelector('.turn:last-child .status')?.textContent;
      if (s && w.statuses[w.statuses.length - 1] !== s) w.statuses.push(s);
    }).observe(document.querySelector('#thread'), { subtree: true, childList: true, characterData: true });
  });
  await p.getByRole('button', { name: /^Ask/ }).click();
  await p.waitForFunction(
    () => (window as { lengths: number[] }).lengths.some((n) => n > 0) && !document.querySelector('.answer[aria-busy]'),
  );
  return p.evaluate(() => {
    const w = window as { lengths: number[]; statuses: string[] };
    return { lengths: w.lengths, statuses: w.statuses };
  });
}

/** The answer starts in the top 40 % of the screen, its first line above the question box. */
async function assertAnswerInView(p: Page, what: string) {
  const m = await p.evaluate(() => {
    const a = document.querySelector('.turn .answer > :is(p, ul, ol)').getBoundingClientRect();
    const box = document.querySelector('.ask-box').getBoundingClientRect();
    return {
      top: a.top,
      box: box.top,
      h: window.innerHeight,
      scrolled: document.querySelector('.ask-layout').scrollTop,
    };
  });
  assert.equal(m.scrolled, 0, `${what}: not scrolled`);
  assert.ok(m.top < m.h * 0.4, `${what}: the answer starts at ${Math.round(m.top)} px of ${m.h}`);
  assert.ok(m.top + 60 < m.box, `${what}: two lines of the answer above the question box (${m.top} vs ${m.box})`);
}

test('Ask: the answer is in view under a source strip, grows as it streams, and says what it is doing', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/ask');
  const seen = await askAndRecord(page, 'What did NASA announce?');
  const grown = [...new Set(seen.lengths.filter((n) => n > 0))];
  assert.ok(grown.length >= 4, `the text grew over several frames: ${grown.join(' ')}`);
  assert.deepEqual(
    grown,
    [...grown].sort((a, b) => a - b),
    'only grows',
  );
  assert.ok(
    seen.statuses.some((s) => /^Searching/.test(s)) && seen.statuses.some((s) => /^Reading \d+ articles?…$/.test(s)),
    `status lines: ${JSON.stringify(seen.statuses)}`,
  );
  await assertAnswerInView(page, '1366×850');
  // Ten sources in one strip of chips, one line tall; the full cards on demand.
  const strip = await page.locator('.strip').boundingBox();
  assert.ok(strip && strip.height < 70, `strip height ${strip?.height}`);
  assert.ok((await page.locator('.strip .chip').count()) >= 5);
  assert.equal(await page.locator('.sources .source').count(), 0);
  await shot('06-ask-desktop');
  await page.getByRole('button', { name: 'All sources' }).click();
  await page.locator('.sources .source').first().waitFor();
  // Every related question keeps its bullet (drawn beside the button, so a wrapped one keeps it too).
  const related = await page.evaluate(() =>
    [...document.querySelectorAll('.related li')].map((li: any) => ({
      bullet: window.getComputedStyle(li, '::before').content,
      indent: li.querySelector('button').getBoundingClientRect().left - li.getBoundingClientRect().left,
    })),
  );
  assert.ok(related.length >= 1);
  for (const r of related) assert.ok(r.bullet === '"→"' && r.indent > 8, JSON.stringify(related));
  // A citation flashes its chip in the strip.
  await page.locator('.answer a.cite').first().click();
  await page.locator('.chip.flash').waitFor();
});

test('Ask: sources carry the name the user gave the feed; a reopened conversation prints its question once', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/ask');
  await askAndRecord(page, 'What did Ellie Simmonds say about dwarfism?');
  const feeds = await page.locator('.strip .chip-feed').allTextContents();
  assert.ok(feeds.includes('The Telegraph'), feeds.join(' | '));
  assert.ok(!feeds.some((f) => /for the latest news/.test(f)), feeds.join(' | '));
  await page.waitForURL(/#\/ask\/\d+$/);
  await page.reload();
  await page.locator('.turn .answer > :is(p, ul, ol)').first().waitFor();
  const headings = await page.locator('h1, h2').allTextContents();
  assert.equal(
    headings.filter((t) => t === 'What did Ellie Simmonds say about dwarfism?').length,
    1,
    headings.join(' | '),
  );
});

test('a phone: the answer is in view without scrolling, and no "/" shortcut hint', { skip }, async () => {
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phone.setDefaultTimeout(30_000);
  const p = await phone.newPage();
  watch(p);
  await p.goto(h.url + '/');
  await p.getByLabel('User name').fill('admin');
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.locator('#items .row').first().waitFor();
  assert.doesNotMatch((await p.locator('#search').getAttribute('placeholder')) ?? '', /\//);
  assert.match((await page.locator('#search').getAttribute('placeholder')) ?? '', /\( \/ \)/, 'kept on a desktop');
  await p.goto(h.url + '/#/ask');
  await askAndRecord(p, 'What did NASA announce?');
  await assertAnswerInView(p, '390×844');
  await shot('07-ask-phone', p);
  // Reopened on the phone, too.
  await p.reload();
  await p.locator('.turn .answer > :is(p, ul, ol)').first().waitFor();
  await assertAnswerInView(p, '390×844 reopened');
  await phone.close();
});

test('Settings: a created API key is listed at once, with a button that copies the key', { skip }, async () => {
  await page.goto(h.url + '/#/settings');
  await page.getByText('No API keys.').waitFor();
  await page.getByLabel('Name for a new key').fill('my script');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const box = page.locator('.secret', { hasText: 'Your new API key' });
  const key = (await box.locator('code').textContent())!;
  assert.ok(key.length > 20, key);
  await page.locator('#key-list li', { hasText: 'my script' }).waitFor();
  assert.equal(await page.getByText('No API keys.').count(), 0);
  await box.getByRole('button', { name: 'Copy' }).click();
  await page.locator('#toast', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  // App tokens too.
  await page.getByLabel('Label for a new token').fill('my reader app');
  await page.getByRole('button', { name: 'Create app token' }).click();
  await page.locator('#token-list tr', { hasText: 'my reader app' }).waitFor();
  await shot('08-api-key');
});
