// A new user's first minutes in real Chromium (Debian's package, driven by playwright-core): the
// subscriptions of their old reader are imported as OPML, and the articles show without a reload.
// - The import wakes the refresh loop (its tick here is an hour, so only the wake can fetch in
//   time), the toast says the feeds are being fetched, and the Feeds page's rows turn from "Not
//   fetched yet" to OK on their own.
// - A list that is empty because the first fetch has not happened yet fills once it has.
// - The Ask page suggests a question about a feed by the name people say ("BuzzFeed", not
//   "BuzzFeed - Latest").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { browserWithFirstAccount, SKIP_NO_CHROMIUM, startWebHarness, type WebHarness } from './web-browser-harness.ts';
import { importOpml, refreshDue, startScheduler } from '../src/feeds/index.ts';

const skip = SKIP_NO_CHROMIUM;
let h: WebHarness;
let browser: Browser;
let page: Page;

function feedItems(prefix: string, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: `${prefix} story ${i}`,
    date: new Date(Date.UTC(2026, 10, 20 + i, 9)).toUTCString(),
    html: `<p>The ${prefix} desk reports story number ${i}.</p>`,
  }));
}

const opml = (feeds: { title: string; url: string }[]) =>
  `<?xml version="1.0"?><opml version="2.0"><head><title>old reader</title></head><body>${feeds
    .map((f) => `<outline type="rss" text="${f.title}" xmlUrl="${f.url}"/>`)
    .join('')}</body></opml>`;

before(async () => {
  if (skip) return;
  // The scheduler's tick is an hour: a feed fetched within the test was fetched because the import woke it.
  h = await startWebHarness({ schedulerTickSeconds: 3600 });
  h.site.feeds.set('buzz', { title: 'BuzzFeed - Latest', items: feedItems('Buzz', 3) });
  // Slow to answer: its row still says "Not fetched yet" when the page is drawn after the import.
  h.site.feeds.set('wire', { title: 'Wire Service', items: feedItems('Wire', 2), delayMs: 5000 });
  h.site.feeds.set('later', { title: 'Later Gazette', items: feedItems('Later', 4) });
  ({ browser, page } = await browserWithFirstAccount(h, { user: 'maria' }));
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await h?.close();
});

test('a list left empty until the first fetch fills by itself once the articles are there', { skip }, async () => {
  // Imported with no refresh loop running: the feeds wait for their first fetch.
  const user = (await h.app.users.findByName('maria'))!;
  const r = await importOpml(h.app, user.id, opml([{ title: 'Later Gazette', url: h.site.url('later') }]));
  assert.equal(r.fetching, false, 'no refresh loop in this process yet');
  // A fresh page load, as a user who opens Tidings after the import would have.
  await page.goto(h.url + '/#/all');
  await page.reload();
  await page.locator('#sidebar').getByText('Later Gazette').waitFor();
  await page.locator('#items .empty-list').filter({ hasText: 'No articles here yet' }).waitFor();
  await refreshDue(h.app);
  // No reload, no click: the empty list looks again and shows the four stories.
  await page.locator('#items .row').nth(3).waitFor({ timeout: 15_000 });
  assert.match((await page.locator('#items').textContent()) ?? '', /Later story 3/);
});

test('an OPML import on the Feeds page is fetched now, and its rows turn OK without a reload', { skip }, async () => {
  startScheduler(h.app);
  await page.goto(h.url + '/#/manage');
  await page.setInputFiles('#opml-file', {
    name: 'subscriptions.opml',
    mimeType: 'text/xml',
    buffer: Buffer.from(
      opml([
        { title: 'BuzzFeed - Latest', url: h.site.url('buzz') },
        { title: 'Wire Service', url: h.site.url('wire') },
      ]),
    ),
  });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.locator('#toast').filter({ hasText: 'Imported 2 feed(s)' }).waitFor();
  assert.match((await page.locator('#toast').textContent()) ?? '', /being fetched now/);
  const wire = page.locator('table.health tr', { hasText: 'Wire Service' }).locator('[data-cell=status]');
  await wire.filter({ hasText: 'Not fetched yet' }).waitFor();
  for (const name of ['BuzzFeed - Latest', 'Wire Service']) {
    const row = page.locator('table.health tr', { hasText: name });
    await row.locator('[data-cell=status]').filter({ hasText: /^OK/ }).waitFor({ timeout: 15_000 });
  }
  assert.match((await page.locator('table.health tr', { hasText: 'BuzzFeed - Latest' }).textContent()) ?? '', /OK.*3/s);
  // The sidebar's counts followed: 4 + 3 + 2 unread.
  await page.waitForFunction(() => /All articles\s*9/.test(document.querySelector('#sidebar')?.textContent ?? ''));
});

test("Ask suggests what is new from a feed by its spoken name, without the title's tagline, and answers it from that feed", {
  skip,
}, async () => {
  await page.goto(h.url + '/#/ask');
  await page.locator('#ask-try button').nth(2).waitFor();
  assert.equal(await page.locator('#ask-try button').nth(2).textContent(), "What's new from BuzzFeed?");
  // Asked, it is answered from that feed's newest stories, not from articles that mention the name.
  await page.locator('#ask-try button').nth(2).click();
  const answer = page.locator('.turn').last().locator('.answer');
  await answer.locator('a.cite').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.answer[aria-busy]'));
  assert.match((await answer.textContent()) ?? '', /Buzz story 2/);
  assert.doesNotMatch((await answer.textContent()) ?? '', /Wire|Later/);
});

// Functions passed to page.waitForFunction run in the page.
declare const document: { querySelector(s: string): { textContent: string | null } | null };
