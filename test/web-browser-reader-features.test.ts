// The Settings screen's filter rules and webhooks in real Chromium (Debian's package, driven by
// playwright-core): a rule added in the page hides articles from the list at once, a hostile
// regular expression is refused with the server's message in the form, deleting the rule brings
// the articles back; a webhook shows its signing secret once, a non-http target is refused, and
// deleting it empties the list; the Fever password is set, shown once and turned off; the Feeds
// page switches a feed's full text. axe-core checks the Settings screen with the sections filled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  chromiumPath,
  SCREENSHOT_DIR,
  SKIP_NO_CHROMIUM,
  setupUrlFromLog,
  startWebHarness,
  type WebHarness,
} from './web-browser-harness.ts';
import { subscribe } from '../src/feeds/index.ts';

const skip = SKIP_NO_CHROMIUM;
let h: WebHarness;
let browser: Browser;
let page: Page;
const PASSWORD = 'correct horse battery';
const TITLES = ['Rocket launch delayed', 'Library opens downtown', 'Second rocket test passes', 'Rain expected'];

before(async () => {
  if (skip) return;
  h = await startWebHarness();
  h.site.feeds.set('mixed', {
    title: 'Mixed News',
    items: TITLES.map((title, i) => ({
      guid: `m-${i}`,
      title,
      date: new Date(Date.UTC(2026, 10, 20 + i)).toUTCString(),
      html: `<p>${title}.</p>`,
    })),
  });
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  // Injecting axe is an inline script: this context alone bypasses the page's CSP to allow it.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  ctx.setDefaultTimeout(20_000);
  page = await ctx.newPage();
  await page.goto(await setupUrlFromLog(h.logLines));
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('No feeds yet').waitFor();
  const admin = await h.app.users.findByName('admin');
  await subscribe(h.app, admin!.id, h.site.url('mixed'));
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await h?.close();
});

const listedTitles = async (): Promise<string[]> => {
  // A full load: the same hash would not re-render, and the sidebar must learn of new feeds.
  await page.goto(h.url + '/#/all');
  await page.reload();
  await page.locator('#items .row').first().waitFor();
  return (await page.locator('#items .row .row-title').allTextContents()).map((t) => t.trim()).sort();
};

test('filter rules in Settings: a hostile regex is refused in the form; a rule hides articles; deleting it brings them back', {
  skip,
}, async () => {
  assert.equal((await listedTitles()).length, 4);
  await page.goto(h.url + '/#/settings');
  await page.getByRole('heading', { name: 'Filter rules' }).waitFor();
  await page.getByText('No filter rules.').waitFor();
  await page.locator('#rule-kind').selectOption('regex');
  await page.locator('#rule-pattern').fill('(a+)+$');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.locator('#rule [role=alert]').filter({ hasText: 'exponential time' }).waitFor();

  await page.locator('#rule-kind').selectOption('words');
  await page.locator('#rule-pattern').fill('rocket');
  await page.locator('#rule-action').selectOption('block');
  await page.locator('#rule-feed').selectOption({ label: 'Mixed News' });
  await page.getByLabel('Also apply to the articles already here').check();
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.locator('#rule-list li').filter({ hasText: 'Title has "rocket" → Hide · in Mixed News' }).waitFor();
  await page.screenshot({ path: join(SCREENSHOT_DIR, '20-settings-rules.png') });
  assert.deepEqual(await listedTitles(), ['Library opens downtown', 'Rain expected']);

  await page.goto(h.url + '/#/settings');
  await page.getByRole('button', { name: /^Delete rule \d+$/ }).click();
  await page.getByText('No filter rules.').waitFor();
  assert.equal((await listedTitles()).length, 4);
});

test('webhooks in Settings: the secret is shown once, a bad target is refused, delete empties the list; no serious a11y violation', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/settings');
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
  await page.getByLabel('Address to POST to').fill('ftp://hooks.example/x');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  // The browser's own URL check passes ftp:, so the server's refusal shows in the form.
  await page.locator('#hook [role=alert]').filter({ hasText: 'webhook targets are allowed' }).waitFor();
  await page.getByLabel('Address to POST to').fill('https://hooks.example/new');
  await page.getByLabel('Starred articles').check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.locator('#hook-list li').filter({ hasText: 'https://hooks.example/new · new-item, starred' }).waitFor();
  const secret = (await page.locator('#hook-out .secret code').textContent())!;
  assert.match(secret, /^[\w-]{32}$/);

  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () =>
    (
      globalThis as unknown as {
        axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; help: string }[] }> };
      }
    ).axe.run({ resultTypes: ['violations'] }),
  );
  assert.deepEqual(
    result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`),
    [],
  );
  await page.screenshot({ path: join(SCREENSHOT_DIR, '21-settings-webhooks.png'), fullPage: true });

  await page.reload();
  await page.locator('#hook-list').waitFor();
  assert.ok(!(await page.textContent('main'))!.includes(secret), 'the secret is not shown again');
  await page.getByRole('button', { name: 'Delete webhook https://hooks.example/new' }).click();
  await page.getByText('No webhooks.').waitFor();
});

test('Fever in Settings: the account password is refused, a generated one is shown once and works at /fever/, turning off', {
  skip,
}, async () => {
  const { createHash } = await import('node:crypto');
  const feverAuth = async (password: string): Promise<number> => {
    const r = await fetch(`${h.url}/fever/?api`, {
      method: 'POST',
      body: new URLSearchParams({ api_key: createHash('md5').update(`admin:${password}`).digest('hex') }),
    });
    return ((await r.json()) as { auth: number }).auth;
  };
  await page.goto(h.url + '/#/settings');
  await page.locator('#fever-status').filter({ hasText: 'Off.' }).waitFor();
  await page.getByLabel(/Or choose a Fever password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Set Fever password' }).click();
  await page.locator('#fever [role=alert]').filter({ hasText: 'differ from the account password' }).waitFor();
  await page.getByRole('button', { name: 'Turn on with a generated password' }).click();
  await page.locator('#fever-status').filter({ hasText: `user admin` }).waitFor();
  const password = (await page.locator('#fever-out .secret code').textContent())!;
  assert.equal(await feverAuth(password), 1);
  await page.getByRole('button', { name: 'Turn off' }).click();
  await page.locator('#fever-status').filter({ hasText: 'Off.' }).waitFor();
  assert.equal(await feverAuth(password), 0);
});

test('full text on the Feeds page: the switch shows the current mode and changes it', { skip }, async () => {
  const { fullTextSettings } = await import('../src/feeds/fulltext/fulltext.ts');
  const admin = (await h.app.users.findByName('admin'))!;
  const feedId = (await h.app.store.subscriptions.list(admin.id))[0]!.feedId;
  await page.goto(h.url + '/#/manage');
  await page.getByRole('button', { name: 'Full text of Mixed News' }).click();
  const select = page.getByLabel('Full text for Mixed News');
  assert.equal(await select.inputValue(), 'auto');
  await select.selectOption('on');
  await page.getByText(/^Full text on: fetching articles/).waitFor();
  assert.equal((await fullTextSettings(h.app, admin.id, feedId))!.fullText, 'on');
  await page.reload();
  await page.getByRole('button', { name: 'Full text of Mixed News' }).click();
  assert.equal(await page.getByLabel('Full text for Mixed News').inputValue(), 'on');
});
