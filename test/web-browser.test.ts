// The web app end to end in real Chromium (Debian's package, driven by playwright-core): first run
// from the logged setup link, sign in/out, wrong password, expired session; subscribing through
// discovery, reading with the keyboard, starring, mark all read with undo; folders, OPML round
// trip, search, Ask with a streamed answer and a clicked citation; a phone-sized viewport; a forged
// cross-site POST; axe-core finds no serious accessibility violation. Screenshots go to
// SCREENSHOT_DIR (printed at the end).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
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
import { webStore } from '../src/web/repositories.ts';
import { testSql } from '../src/store/testing.ts';

// Functions passed to page.waitForFunction run in the page (strings would need eval, which the CSP forbids).
declare const document: any;

const skip = SKIP_NO_CHROMIUM;
let h: WebHarness;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
const PASSWORD = 'correct horse battery';

const NEWS = [
  [
    'NASA names the Artemis II crew',
    'NASA announced the four astronauts of Artemis II on Monday. The Artemis II mission will send the crew around the Moon and back. Reid Wiseman will command the Artemis II flight.',
  ],
  [
    'ESA tests the service module',
    'The European Space Agency finished tests of the Orion service module. The module provides power and propulsion for Artemis missions.',
  ],
  [
    'Rain expected over the weekend',
    'Forecasters expect heavy rain across the region on Saturday. Rivers may rise by Sunday evening.',
  ],
  [
    'City opens a new library',
    'The new central library opens its doors on Friday with a reading room and a music studio.',
  ],
  ['Stock markets close higher', 'Markets closed higher after the central bank kept interest rates unchanged.'],
  [
    'NASA delays a Moon lander test',
    'NASA said the lunar lander test for Artemis III moves to next year. Engineers need more time for the engine.',
  ],
];

/** Waits until the selector matches exactly n elements (the page renders asynchronously). */
async function waitCount(selector: string, n: number, p: Page = page) {
  await p
    .waitForFunction(([sel, want]) => document.querySelectorAll(sel).length === want, [selector, n] as const)
    .catch(async (e) => {
      throw new Error(
        `${selector}: expected ${n}, found ${await p.locator(selector).count()} (${(e as Error).message})`,
      );
    });
}

async function shot(name: string, p: Page = page) {
  await p.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

before(async () => {
  if (skip) return;
  h = await startWebHarness();
  h.site.feeds.set('space', {
    title: 'Space Desk',
    items: NEWS.filter(([t]) => /NASA|ESA/.test(t)).map(([title, body], i) => ({
      guid: `space-${i}`,
      title,
      date: new Date(Date.UTC(2026, 10, 20 + i, 9)).toUTCString(),
      html: `<p>${body}</p><p><img src="${'/img.svg'}" alt="A blue banner"></p><p><a href="https://example.org/more">More</a></p>`,
      enclosure: i === 0 ? '/audio.mp3' : undefined,
    })),
  });
  h.site.feeds.set('city', {
    title: 'City News',
    items: NEWS.filter(([t]) => !/NASA|ESA/.test(t)).map(([title, body], i) => ({
      guid: `city-${i}`,
      title,
      date: new Date(Date.UTC(2026, 10, 20 + i, 12)).toUTCString(),
      html: `<p>${body}</p>`,
    })),
  });
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  ctx.setDefaultTimeout(20_000);
  page = await ctx.newPage();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await h?.close();
  console.log(`# screenshots: ${SCREENSHOT_DIR}`);
});

test('first run: without the logged link the page only explains; the link creates the admin account', {
  skip,
}, async () => {
  await page.goto(h.url + '/');
  await page.getByRole('heading', { name: 'Welcome' }).waitFor();
  assert.match((await page.textContent('main')) ?? '', /setup link/);
  await shot('01-first-run');
  const link = await setupUrlFromLog(h.logLines);
  assert.ok(link.startsWith(h.url + '/#setup='), link);
  await page.goto(link);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await shot('02-setup-form');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.locator('#items').getByRole('heading', { name: 'No feeds yet' }).waitFor();
  assert.doesNotMatch(page.url(), /setup=/, 'the secret leaves the address bar');
});

test('sign out, wrong password, sign in', { skip }, async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are signed out.').waitFor();
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'wrong user name or password' }).waitFor();
  await shot('03-wrong-password');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: '+ Add feed' }).waitFor();
});

test('subscribe: a site URL shows its feeds to choose from; a feed URL subscribes directly', { skip }, async () => {
  await page.getByRole('link', { name: '+ Add feed' }).click();
  await page.getByLabel('Feed or site address').fill(h.site.base + '/site');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByText('This site offers several feeds:').waitFor();
  await shot('04-discovery');
  await page.locator('.cands li').filter({ hasText: 'Space Desk' }).getByRole('button', { name: 'Subscribe' }).click();
  await page.locator('#sidebar').getByText('Space Desk').waitFor();
  await page.getByLabel('Feed or site address').fill(h.site.url('city'));
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('#sidebar').getByText('City News').waitFor();
  await page.locator('table.health').getByText('City News').waitFor();
  await shot('05-feeds-health');
  assert.match((await page.locator('#sidebar').textContent()) ?? '', /All articles\s*6/);
});

test('read with the keyboard: j/k open, s stars, m toggles read, A marks all read with undo, g s goes to Starred', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/all');
  await page.locator('#items .row').first().waitFor();
  await waitCount('#items .row', 6);
  await page.keyboard.press('j');
  await page.locator('#pane .title').waitFor();
  const first = await page.locator('#pane .title').textContent();
  await page.keyboard.press('j');
  await page.waitForFunction((t) => document.querySelector('#pane .title')?.textContent !== t, first);
  await page.keyboard.press('k');
  await page.waitForFunction((t) => document.querySelector('#pane .title')?.textContent === t, first);
  // Opened articles are read (the default setting): the unread count went down.
  await page.waitForFunction(() => /All articles\s*4/.test(document.querySelector('#sidebar')?.textContent ?? ''));
  await page.keyboard.press('s');
  await page.locator('#items .row.selected .star').waitFor();
  await page.locator('#pane').getByRole('button', { name: '★ Starred' }).waitFor();
  await page.keyboard.press('m');
  await page.waitForFunction(() => !document.querySelector('#items .row.selected')?.classList.contains('read'));
  await shot('06-reading');
  await page.keyboard.press('A');
  await page.getByText(/Marked 5 articles as read/).waitFor();
  await page.waitForFunction(() => !/\d/.test(document.querySelector('#sidebar .nav-main')?.textContent ?? ''));
  await page.getByRole('button', { name: 'Undo' }).click();
  await page.getByText('Marked unread again.').waitFor();
  await page.waitForFunction(() => /All articles\s*5/.test(document.querySelector('#sidebar')?.textContent ?? ''));
  // Keys faster than the network: the pane ends on the article selected last.
  await page.goto(h.url + '/#/unread');
  await page.locator('#items .row').first().waitFor();
  for (let i = 0; i < 4; i++) await page.keyboard.press('j');
  const fourth = await page.locator('#items .row .row-title').nth(3).textContent();
  await page.waitForFunction(
    (t) =>
      document.querySelector('#pane .title')?.textContent === t &&
      document.querySelector('#items .row.selected .row-title')?.textContent === t,
    fourth,
  );
  await page.keyboard.press('?');
  await page.getByRole('heading', { name: 'Keyboard shortcuts' }).waitFor();
  await shot('07-help');
  await page.keyboard.press('Escape');
  await page.keyboard.press('g');
  await page.keyboard.press('s');
  await page.waitForURL(/#\/starred$/);
  await page.getByRole('heading', { name: 'Starred' }).waitFor();
  await waitCount('#items .row', 1);
});

test('article pane: sanitized HTML, lazy images, original link, audio player for the enclosure', { skip }, async () => {
  await page.goto(h.url + '/#/all');
  await page.locator('#items .row', { hasText: 'NASA names the Artemis II crew' }).click();
  await page.locator('#pane audio[controls]').waitFor();
  assert.equal(await page.locator('#pane .content img').first().getAttribute('loading'), 'lazy');
  const links = await page.locator('#pane a[target=_blank]').evaluateAll((as) => as.map((a) => a.getAttribute('rel')));
  assert.ok(links.length >= 2 && links.every((r) => r === 'noopener noreferrer'), JSON.stringify(links));
  // Tag it with the keyboard (t), find it under the tag, remove the tag.
  await page.keyboard.press('t');
  await page.getByRole('dialog', { name: 'Tag this article' }).getByLabel('Tag name').fill('Moon');
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  await page.locator('#pane .tag', { hasText: 'Moon' }).waitFor();
  await shot('08-article');
  await page.locator('#sidebar .nav-tags').getByRole('link', { name: 'Moon' }).click();
  await page.getByRole('heading', { name: 'Tag: Moon' }).waitFor();
  await waitCount('#items .row', 1);
  await page.locator('#items .row').first().click();
  await page.getByRole('button', { name: 'Remove tag Moon' }).click();
  await page.locator('#pane .tag').waitFor({ state: 'detached' });
});

test('move a feed into a folder, OPML export and import round trip', { skip }, async () => {
  await page.goto(h.url + '/#/manage');
  await page.getByLabel('New folder name').fill('Science');
  await page.getByRole('button', { name: 'Create folder' }).click();
  await page.locator('ul.plain').getByText('Science').waitFor();
  await page.getByLabel('Folder of Space Desk').selectOption('Science');
  await page.getByText('Moved Space Desk').waitFor();
  await page.locator('#sidebar .folder').getByText('Space Desk').waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export OPML' }).click(),
  ]);
  const opml = readFileSync((await download.path())!, 'utf8');
  assert.match(opml, /<outline[^>]*text="Science"[^>]*>\s*<outline[^>]*Space Desk/);
  // Unsubscribe both, then import the file back.
  page.on('dialog', (d) => d.accept());
  for (const name of ['City News', 'Space Desk']) {
    await page.locator('table.health tr', { hasText: name }).getByRole('button', { name: 'Unsubscribe' }).click();
    await page.locator('table.health').getByText(name).waitFor({ state: 'detached' });
  }
  await page.setInputFiles('#opml-file', { name: 'subs.opml', mimeType: 'text/xml', buffer: Buffer.from(opml) });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByText(/Imported 2 feed/).waitFor();
  await page.locator('#sidebar .folder').getByText('Space Desk').waitFor();
  // Imported feeds are fetched on the next refresh: "Refresh now" fetches one at once.
  await page.locator('table.health tr', { hasText: 'Space Desk' }).getByRole('button', { name: 'Refresh now' }).click();
  await page.getByText(/new, \d+ updated/).waitFor();
  await page.locator('table.health tr', { hasText: 'City News' }).getByRole('button', { name: 'Refresh now' }).click();
  await page.getByText(/new, \d+ updated/).waitFor();
  // Rename through the page's own dialog (labelled, not window.prompt).
  await page.locator('table.health tr', { hasText: 'City News' }).getByRole('button', { name: 'Rename' }).click();
  await page
    .getByRole('dialog', { name: /Rename/ })
    .getByLabel(/New title/)
    .fill('Local News');
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  await page.locator('#sidebar').getByText('Local News').waitFor();
  await shot('09-manage');
});

test('search highlights matches, scoped to the open folder', { skip }, async () => {
  await page.goto(h.url + '/#/folder/Science');
  await page.locator('#items .row').first().waitFor();
  await page.keyboard.press('/');
  await page.keyboard.type('lander engine');
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/search\?folder=Science&q=lander/);
  await page.locator('#items mark').first().waitFor();
  const titles = await page.locator('#items .row-title').allTextContents();
  assert.deepEqual(titles, ['NASA delays a Moon lander test']);
  await shot('10-search');
  await page.goto(h.url + '/#/search?q=rain');
  await page.locator('#items mark').first().waitFor();
  assert.match((await page.locator('#items .row-title').allTextContents()).join(), /Rain expected/);
});

test('Ask: the answer streams in with [n] citations; clicking one shows its source in the strip; the conversation is kept', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/ask');
  // No language model here: one line says the answers are quotes, with the command for written ones.
  assert.match(
    (await page.locator('#ask-note').textContent()) ?? '',
    /^These answers are quotes from your articles.*run npx tidings model pull \S+$/,
  );
  await page.getByRole('textbox', { name: 'Question' }).fill('Who will command the Artemis II flight?');
  await page.getByLabel('Search in').selectOption({ label: 'Science' });
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const cite = page.locator('.answer a.cite').first();
  await cite.waitFor();
  await page.waitForFunction(() => !document.querySelector('.answer[aria-busy]'));
  assert.match((await page.locator('.answer').first().textContent()) ?? '', /Wiseman/);
  await cite.click();
  await page.locator('.chip.flash').waitFor();
  assert.match((await page.locator('.chip.flash').textContent()) ?? '', /Space Desk.*Artemis II crew/s);
  await shot('11-ask');
  // A follow-up continues the thread; the conversation is listed and reopens.
  await page.getByRole('textbox', { name: 'Question' }).fill('And what about the lander?');
  await page.getByRole('button', { name: 'Ask follow-up' }).click();
  await page.locator('.turn').nth(1).locator('.answer a.cite').first().waitFor();
  await page.waitForURL(/#\/ask\/\d+$/);
  await page.goto(h.url + '/#/ask');
  await page.locator('#ask-history a', { hasText: 'Who will command' }).click();
  await page.locator('.turn').nth(1).waitFor();
  await waitCount('.turn', 2);
});

test('Ask: suggested first questions; "What\'s new?" is a roundup of the newest articles, a list with each day in bold, its markers linked', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/ask');
  // A new question's page suggests what to ask first, one of them about a feed by its name.
  await page.locator('#ask-try button').nth(2).waitFor();
  const tries = await page.locator('#ask-try button').allTextContents();
  assert.deepEqual(tries.slice(0, 2), ["What's new?", 'What happened this week?']);
  assert.match(tries[2] ?? '', /^What's new from (Science|Space Desk|Local News|City News)\?$/);
  await page.getByRole('button', { name: "What's new?", exact: true }).click();
  const answer = page.locator('.turn').last().locator('.answer');
  await answer.locator('ul > li a.cite').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.answer[aria-busy]'));
  const items = answer.locator('ul > li');
  assert.ok((await items.count()) >= 2, (await answer.textContent()) ?? '');
  // Newest first, each line opening with its day in bold: the Markdown is rendered, not shown.
  const days = await items.locator('strong').allTextContents();
  assert.deepEqual(days, [...days].sort().reverse());
  for (const d of days) assert.match(d, /^2026-11-\d\d$/);
  assert.doesNotMatch((await answer.textContent()) ?? '', /\*\*/);
  for (const li of await items.allTextContents()) assert.doesNotMatch(li, /^- /);
  await shot('11b-ask-roundup');
});

test('a phone-sized viewport: one column, the article covers the list, Back returns', { skip }, async () => {
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    colorScheme: 'dark',
  });
  phone.setDefaultTimeout(20_000);
  const p = await phone.newPage();
  await p.goto(h.url + '/');
  await p.getByLabel('User name').fill('admin');
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.locator('#items .row').first().waitFor();
  assert.equal(
    (await p.locator('#sidebar').isVisible()) && (await p.locator('#sidebar').boundingBox())!.x >= 0,
    false,
    'the sidebar is off screen',
  );
  await shot('12-phone-list', p);
  await p.locator('#items .row').first().tap();
  await p.locator('#pane .title').waitFor();
  assert.equal(await p.locator('.list').isVisible(), false);
  await shot('13-phone-article', p);
  await p.getByRole('button', { name: '← Back' }).tap();
  await p.locator('.list').waitFor();
  // The browser's own Back closes an open article too (it is a history entry on phones).
  await p.locator('#items .row').nth(1).tap();
  await p.locator('#pane .title').waitFor();
  await p.goBack();
  await p.locator('.list').waitFor();
  assert.match(p.url(), /#\/all$|\/$/);
  await p.getByRole('button', { name: 'Show feeds' }).tap();
  await p.waitForFunction(() => document.querySelector('#sidebar')!.getBoundingClientRect().x >= 0);
  await shot('14-phone-sidebar', p);
  await phone.close();
});

test('behind a reverse proxy under a sub-path (/tidings/), the page, its API calls and changes work', {
  skip,
}, async () => {
  const target = new URL(h.url);
  const proxy = createServer((req, res) => {
    if (!req.url!.startsWith('/tidings/')) {
      res.writeHead(404).end();
      return;
    }
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url!.slice('/tidings'.length),
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/tidings/`;
  const proxied = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  proxied.setDefaultTimeout(20_000);
  const p = await proxied.newPage();
  try {
    await p.goto(base);
    await p.getByLabel('User name').fill('admin');
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.locator('#items .row').first().click();
    await p.locator('#pane .title').waitFor();
    // A change (PATCH with the CSRF header, Origin = the proxy's) goes through and comes back.
    const starred = (await p.locator('#items .row.selected .star').count()) > 0;
    await p.keyboard.press('s');
    await p.waitForFunction((was) => Boolean(document.querySelector('#items .row.selected .star')) !== was, starred);
    await p.keyboard.press('s');
    await p.waitForFunction((was) => Boolean(document.querySelector('#items .row.selected .star')) === was, starred);
    await p
      .locator('#toast')
      .getByText(starred ? 'Starred' : 'Unstarred', { exact: true })
      .waitFor();
  } finally {
    await proxied.close();
    proxy.closeAllConnections();
    proxy.close();
  }
});

test('a forged cross-site POST is refused (the session cookie is sent, the Origin gives it away)', {
  skip,
}, async () => {
  // Another origin on the same host (a different port is the same *site*, so SameSite=Lax sends the cookie).
  let evil: Server | undefined;
  try {
    evil = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><form id=f method=post action="${h.url}/api/v1/folders" enctype="text/plain"><input name='{"name":"Evil","x":"' value='"}'></form>
      <script>fetch(${JSON.stringify(h.url + '/api/v1/feeds/1')}, {method:'DELETE', credentials:'include', mode:'no-cors'}).finally(() => document.getElementById('f').submit())</script>`),
    );
    await new Promise<void>((r) => evil!.listen(0, '127.0.0.1', r));
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
    const responses: number[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(h.url + '/api/v1/')) responses.push(r.status());
    });
    await page.goto(evilUrl);
    await page.waitForURL(h.url + '/api/v1/folders');
    assert.match((await page.textContent('body')) ?? '', /cross_origin/);
    await page.goto(h.url + '/#/manage');
    await page.locator('table.health').getByText('Space Desk').waitFor();
    assert.doesNotMatch((await page.locator('#sidebar').textContent()) ?? '', /Evil/);
    assert.equal(
      (await testSql(h.app).prepare("SELECT count(*) AS n FROM labels WHERE name = 'Evil'").get<{ n: number }>())!.n,
      0,
    );
    assert.equal((await testSql(h.app).prepare('SELECT count(*) AS n FROM subscriptions').get<{ n: number }>())!.n, 2);
  } finally {
    evil?.close();
  }
});

test('an expired session sends the page back to sign in with a message', { skip }, async () => {
  await page.goto(h.url + '/#/all');
  await page.locator('#items .row').first().waitFor();
  for (const u of await h.app.users.list())
    for (const s of await webStore(h.app).sessions.listForUser(u.id)) await webStore(h.app).sessions.expire(s.id, 1);
  await page.keyboard.press('r');
  await page.getByText('Your session has ended. Please sign in again.').waitFor();
  await shot('15-expired');
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#items .row').first().waitFor();
});

test('axe-core finds no serious or critical accessibility violations on the main screens', { skip }, async () => {
  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Injecting axe is an inline script: this context alone bypasses the page's CSP to allow it.
  const a11y = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
  a11y.setDefaultTimeout(20_000);
  const p = await a11y.newPage();
  await p.goto(h.url + '/');
  const audit = async (name: string) => {
    await p.addScriptTag({ content: axeSource });
    const result = await p.evaluate(async () =>
      (
        globalThis as unknown as {
          axe: {
            run: (
              o: unknown,
            ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
          };
        }
      ).axe.run({ resultTypes: ['violations'] }),
    );
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map(
        (v) =>
          `${name}: ${v.id} (${v.help}) at ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(', ')}`,
      ),
      [],
    );
  };
  await p.getByRole('button', { name: 'Sign in' }).waitFor();
  await audit('sign in');
  await p.getByLabel('User name').fill('admin');
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.locator('#items .row').first().click();
  await p.locator('#pane .title').waitFor();
  await audit('reader');
  for (const [hash, marker] of [
    ['#/manage', 'table.health'],
    ['#/ask', '#ask-q'],
    ['#/settings', '#pw'],
    ['#/admin', '#adduser'],
  ] as const) {
    await p.goto(h.url + '/' + hash);
    await p.locator(marker).waitFor();
    await audit(hash);
    await shot(`16-${hash.slice(2)}`, p);
  }
  await a11y.close();
});
