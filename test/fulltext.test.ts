// Full text from a local server: a teaser feed whose links are full article pages, and the bad
// pages readers meet (huge, slow, not HTML, redirecting, gone). The article text replaces the
// item's content (the teaser stays as summary), failures are recorded per article and never
// block the feed, the search index and every user of the feed see the text, per-host limits hold,
// and teaser feeds are detected.
import { test } from 'node:test';
import type { App } from '../src/runtime/app.ts';
import assert from 'node:assert/strict';
import { subscribe, refreshFeed } from '../src/feeds/index.ts';
import { fullTextIdle, fullTextStore } from '../src/feeds/fulltext/fulltext.ts';
import { searchService } from '../src/search/service.ts';
import { startFeedServer, testApp, addUser } from './feeds-fixtures.ts';
import { runCli } from './helpers.ts';
import { articlePage, paragraph, sendHtml, teaserRss, type TeaserItem } from './fulltext-fixtures.ts';
import { testSql } from '../src/store/testing.ts';

interface ItemRow {
  id: number;
  title: string;
  content: string | null;
  summary: string | null;
}
const items = (app: App, feedId: number) =>
  testSql(app)
    .prepare('SELECT id, title, content, summary FROM items WHERE feed_id = ? ORDER BY id')
    .all<ItemRow>(feedId);
const attempts = async (app: App) =>
  new Map(
    (
      await testSql(app)
        .prepare('SELECT i.title, ft.status, ft.error FROM item_full_text ft JOIN items i ON i.id = ft.item_id')
        .all<{ title: string; status: string; error: string | null }>()
    ).map((r) => [r.title, r]),
  );

test('full text on: articles replace teasers; bad pages are recorded per article; the feed is not blocked', async () => {
  const server = await startFeedServer();
  const app = await testApp({ fetchTimeoutMs: 1500, fullTextMaxBytes: 64 * 1024, perHostConcurrency: 2 });
  try {
    let inFlight = 0,
      maxInFlight = 0;
    const track =
      (fn: (res: import('node:http').ServerResponse) => void | Promise<void>) =>
      async (_req: unknown, res: import('node:http').ServerResponse) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        try {
          await fn(res);
        } finally {
          inFlight--;
        }
      };
    const body = [
      paragraph('artemis', 1),
      paragraph('artemis', 2),
      paragraph('quasarwobble', 3),
      paragraph('artemis', 4),
    ];
    const list: TeaserItem[] = [
      { guid: 'good', title: 'Good article', link: `${server.base}/a/good`, teaser: 'Artemis teaser sentence.' },
      { guid: 'moved', title: 'Moved article', link: `${server.base}/a/moved`, teaser: 'Moved teaser.' },
      { guid: 'huge', title: 'Huge page', link: `${server.base}/a/huge`, teaser: 'Huge teaser.' },
      { guid: 'slow', title: 'Slow page', link: `${server.base}/a/slow`, teaser: 'Slow teaser.' },
      { guid: 'pdf', title: 'PDF file', link: `${server.base}/a/pdf`, teaser: 'PDF teaser.' },
      { guid: 'gone', title: 'Gone page', link: `${server.base}/a/gone`, teaser: 'Gone teaser.' },
      { guid: 'loop', title: 'Redirect loop', link: `${server.base}/a/loop`, teaser: 'Loop teaser.' },
      { guid: 'stub', title: 'Empty stub', link: `${server.base}/a/stub`, teaser: 'Stub teaser.' },
    ];
    server.routes.set('/feed.xml', (_q, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(teaserRss('Teasers', list));
    });
    server.routes.set(
      '/a/good',
      track((res) => sendHtml(res, articlePage('Good article', body))),
    );
    server.routes.set(
      '/a/moved',
      track((res) => {
        res.statusCode = 301;
        res.setHeader('location', '/a/good2');
        res.end();
      }),
    );
    server.routes.set(
      '/a/good2',
      track((res) =>
        sendHtml(
          res,
          articlePage('Moved article', [
            paragraph('relocated', 5),
            paragraph('relocated', 6),
            paragraph('relocated', 7),
          ]),
        ),
      ),
    );
    server.routes.set(
      '/a/huge',
      track((res) =>
        sendHtml(
          res,
          articlePage(
            'Huge',
            Array.from({ length: 3000 }, (_, i) => paragraph('huge', i)),
          ),
        ),
      ),
    );
    server.routes.set(
      '/a/slow',
      track(async (res) => {
        await new Promise((r) => setTimeout(r, 3000));
        if (!res.destroyed) sendHtml(res, articlePage('Slow', body));
      }),
    );
    server.routes.set(
      '/a/pdf',
      track((res) => {
        res.setHeader('content-type', 'application/pdf');
        res.end('%PDF-1.4 ...');
      }),
    );
    server.routes.set(
      '/a/gone',
      track((res) => {
        res.statusCode = 404;
        res.end('gone');
      }),
    );
    server.routes.set(
      '/a/loop',
      track((res) => {
        res.statusCode = 302;
        res.setHeader('location', '/a/loop');
        res.end();
      }),
    );
    server.routes.set(
      '/a/stub',
      track((res) => sendHtml(res, '<html><body><p>Please enable JavaScript.</p></body></html>')),
    );

    const alice = await addUser(app, 'alice');
    const bob = await addUser(app, 'bob');
    const { feedId } = await subscribe(app, alice, `${server.base}/feed.xml`);
    await subscribe(app, bob, `${server.base}/feed.xml`);
    await fullTextIdle(app);
    assert.equal(
      (await attempts(app)).size,
      0,
      'off by default (auto with suggest only checks teasers, fetches no full text)',
    );
    await fullTextStore(app).setMode(alice, feedId, 'on');
    // New items arrive: full text is fetched for the feed's recent items.
    list.push({ guid: 'new', title: 'New article', link: `${server.base}/a/good`, teaser: 'New teaser.' });
    const r = await refreshFeed(app, feedId);
    assert.equal(r.error, null);
    assert.equal(r.outcome, 'updated');
    await fullTextIdle(app);
    const byTitle = new Map((await items(app, feedId)).map((i) => [i.title, i]));
    const good = byTitle.get('Good article')!;
    assert.match(good.content!, /quasarwobble/, 'the article text is the content');
    assert.doesNotMatch(good.content!, /Buy our newsletter|All rights reserved/, 'navigation, ads and footer are not');
    assert.doesNotMatch(good.content!, /<script|<nav/);
    assert.match(
      good.content!,
      new RegExp(`src="${server.base}/img/figure.png"`),
      'relative links are made absolute against the page',
    );
    assert.match(good.summary!, /Artemis teaser sentence/, "the feed's teaser is kept as summary");
    assert.match(
      byTitle.get('Moved article')!.content!,
      /relocated/,
      'redirects are followed (each hop through the guard)',
    );
    const a = await attempts(app);
    assert.equal(a.get('Good article')!.status, 'ok');
    assert.match(a.get('Huge page')!.error!, /larger than 64 KiB/);
    assert.match(a.get('Slow page')!.error!, /timed out/);
    assert.match(a.get('PDF file')!.error!, /not an HTML page \(Content-Type application\/pdf\)/);
    assert.match(a.get('Gone page')!.error!, /404/);
    assert.match(a.get('Redirect loop')!.error!, /too many redirects/);
    assert.match(a.get('Empty stub')!.error!, /no readable article text/);
    for (const t of ['Huge page', 'Slow page', 'PDF file', 'Gone page'])
      assert.match(byTitle.get(t)!.content ?? byTitle.get(t)!.summary!, /teaser/i, 'a failure keeps the teaser');
    const feed = await testSql(app)
      .prepare('SELECT last_error, error_count FROM feeds WHERE id = ?')
      .get<{ last_error: string | null; error_count: number }>(feedId);
    assert.deepEqual({ ...feed }, { last_error: null, error_count: 0 }, 'article failures never fail the feed');
    assert.ok(maxInFlight <= 2, `per-host limit held (max ${maxInFlight} pages at once)`);
    // Every user of the feed sees the text, and search finds words only the full text has.
    const hits = await searchService(app).search({
      text: 'quasarwobble',
      scope: { kind: 'subscriptions', userId: bob },
      filters: {},
      limit: 5,
    });
    assert.ok(
      hits.some((h) => h.title === 'Good article'),
      'the search index uses the full text',
    );
    // A second refresh does not fetch the pages again.
    const before = server.hits.get('/a/good') ?? 0;
    await refreshFeed(app, feedId);
    await fullTextIdle(app);
    assert.equal(server.hits.get('/a/good') ?? 0, before);
  } finally {
    await app.close();
    await server.close();
  }
});

test('teaser detection: a teaser feed is detected (and fetched with TIDINGS_FULL_TEXT_AUTO=enable), a full-content feed is not', async () => {
  const server = await startFeedServer();
  const app = await testApp({ fullTextAuto: 'enable' });
  try {
    const pages = [1, 2, 3].map((n) => [
      paragraph('nebula', n),
      paragraph('nebula', n + 1),
      paragraph('nebula', n + 2),
    ]);
    pages.forEach((p, i) => server.routes.set(`/p/${i}`, (_q, res) => sendHtml(res, articlePage(`Post ${i}`, p))));
    const teasers = pages.map((_, i) => ({
      guid: `t${i}`,
      title: `Teaser ${i}`,
      link: `${server.base}/p/${i}`,
      teaser: 'Read more on our site.',
    }));
    const full = pages.map((p, i) => ({
      guid: `f${i}`,
      title: `Full ${i}`,
      link: `${server.base}/p/${i}`,
      teaser: p.join(' '),
    }));
    server.routes.set('/teasers.xml', (_q, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(teaserRss('T', teasers));
    });
    server.routes.set('/full.xml', (_q, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(teaserRss('F', full));
    });
    const broken = pages.map((_, i) => ({
      guid: `b${i}`,
      title: `Broken ${i}`,
      link: `${server.base}/missing/${i}`,
      teaser: 'Read more.',
    }));
    server.routes.set('/broken.xml', (_q, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(teaserRss('B', broken));
    });
    const u = await addUser(app, 'carol');
    const t = await subscribe(app, u, `${server.base}/teasers.xml`);
    const f = await subscribe(app, u, `${server.base}/full.xml`);
    const b = await subscribe(app, u, `${server.base}/broken.xml`);
    await fullTextIdle(app);
    const unknown = await fullTextStore(app).status(b.feedId);
    assert.equal(unknown.teaser, null, 'no page could be read: no verdict');
    assert.ok(
      unknown.teaserCheckedAt !== null,
      'but the attempt is remembered (checked again a week later, not every refresh)',
    );
    assert.equal((await fullTextStore(app).status(t.feedId)).teaser, true);
    assert.equal((await fullTextStore(app).status(f.feedId)).teaser, false);
    assert.ok(
      (await items(app, t.feedId)).every((i) => /nebula/.test(i.content ?? '')),
      'detected teaser feed got its articles',
    );
    const tried = await attempts(app);
    assert.ok(
      (await items(app, f.feedId)).every((i) => tried.get(i.title) === undefined),
      'a full-content feed is left alone',
    );
    const env = { TIDINGS_DATA: app.config.dataDir, TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' };
    const show = await runCli(['feed', 'set', 'carol', `${server.base}/full.xml`], env);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /full text: auto/);
    assert.match(show.stdout, /teaser detection: full articles in the feed/);
    const on = await runCli(['feed', 'set', 'carol', `${server.base}/full.xml`, '--full-text', 'on', '--json'], env);
    assert.equal(on.code, 0, on.stderr);
    const st = JSON.parse(on.stdout);
    assert.equal(st.fullText, 'on');
    assert.equal(st.active, true);
    assert.equal(st.articles.withFullText, 3, 'turning it on fetches the recent articles at once');
    const bad = await runCli(['feed', 'set', 'carol', `${server.base}/full.xml`, '--full-text', 'maybe'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /on, off or auto/);
  } finally {
    await app.close();
    await server.close();
  }
});
