import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { hostname } from 'node:os';
import { openStore } from '../src/store/open-store.ts';
import { lookup } from 'node:dns/promises';
import { refusalReason } from '../src/net/address-guard.ts';
import {
  subscribe,
  unsubscribe,
  refreshFeed,
  refreshDue,
  feedEngine,
  onNewItems,
  type FeedError,
} from '../src/feeds/index.ts';
import { startScheduler } from '../src/feeds/scheduler/scheduler.ts';
import type { ItemChanges } from '../src/model/item.ts';
import {
  startFeedServer,
  testApp,
  rss,
  conditional,
  addUser,
  userItems,
  type FeedServer,
  type Entry,
} from './feeds-fixtures.ts';
import { testSql } from '../src/store/testing.ts';

const server: FeedServer = await startFeedServer();
after(async () => server.close());

const three = [
  { guid: 'a', title: 'A' },
  { guid: 'b', title: 'B' },
  { guid: 'c', title: 'C' },
];

test('subscribe fetches a new feed once, fans out to subscribers, and a 304 refresh stores nothing', async () => {
  const app = await testApp();
  try {
    let version = 1;
    server.routes.set(
      '/one.xml',
      conditional(
        () => rss('One', three),
        () => `"v${version}"`,
      ),
    );
    const alice = await addUser(app, 'alice'),
      bob = await addUser(app, 'bob');
    const changes: ItemChanges[] = [];
    app.itemChangeListeners.push((c) => changes.push(c));

    const r = await subscribe(app, alice, `${server.base}/one.xml`, { folders: ['Tech'] });
    assert.equal(r.streamId, `feed/${server.base}/one.xml`);
    assert.equal(r.title, 'One');
    assert.equal((await userItems(app, alice)).length, 3);
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.added.length, 3);

    // A known feed is not fetched again; the new subscriber gets its stored items.
    const hitsBefore = server.hits.get('/one.xml');
    const r2 = await subscribe(app, bob, `feed/${server.base}/one.xml`);
    assert.equal(r2.feedId, r.feedId);
    assert.equal(server.hits.get('/one.xml'), hitsBefore);
    assert.equal((await userItems(app, bob)).length, 3);

    const res = await refreshFeed(app, r.feedId);
    assert.equal(res.outcome, 'not_modified');
    const last = server.requests.at(-1)!;
    assert.equal(last.headers['if-none-match'], '"v1"');
    assert.equal(last.headers['if-modified-since'], 'Mon, 02 Nov 2026 10:00:00 GMT');
    assert.match(String(last.headers['user-agent']), /Tidings/);
    assert.equal(await feedEngine(app).items.countByFeed(r.feedId), 3);
    assert.equal(changes.length, 1, 'a 304 notifies nobody');
    const feed = (await feedEngine(app).feeds.findById(r.feedId))!;
    assert.equal(feed.lastStatus, 304);
    assert.ok(feed.nextFetchAt >= feed.lastFetchedAt! + 15 * 60, 'next fetch respects the minimum interval');

    const sub = (await feedEngine(app).subscriptions.find(alice, r.feedId))!;
    assert.deepEqual(sub.folders, ['Tech']);
    assert.equal(sub.unreadCount, 3);
    version = 2; // same content, new validator: parsed, but nothing added
    const again = await refreshFeed(app, r.feedId);
    assert.equal(again.outcome, 'not_modified', 'identical body is not parsed again');
    assert.equal(await feedEngine(app).items.countByFeed(r.feedId), 3);
  } finally {
    await app.close();
  }
});

test('a changed entry is updated in place, new ones added, nothing duplicated across refreshes', async () => {
  const app = await testApp();
  try {
    let entries: Entry[] = three;
    server.routes.set('/change.xml', (_q, s) => {
      s.setHeader('content-type', 'application/xml');
      s.end(rss('Change', entries));
    });
    const alice = await addUser(app, 'alice');
    const changes: ItemChanges[] = [];
    app.itemChangeListeners.push((c) => changes.push(c));
    const { feedId } = await subscribe(app, alice, `${server.base}/change.xml`);
    const before = (await testSql(app)
      .prepare("SELECT id, crawled_us, coalesce(content, summary) AS content FROM items WHERE guid = 'b'")
      .get()) as { id: number; crawled_us: number; content: string };

    entries = [
      { guid: 'd', title: 'D' },
      { guid: 'a', title: 'A' },
      { guid: 'b', title: 'B', body: 'Corrected body' },
      { guid: 'c', title: 'C' },
    ];
    const r = await refreshFeed(app, feedId);
    assert.deepEqual([r.outcome, r.added, r.updated], ['updated', 1, 1]);
    const afterRow = (await testSql(app)
      .prepare("SELECT id, crawled_us, coalesce(content, summary) AS content FROM items WHERE guid = 'b'")
      .get()) as { id: number; crawled_us: number; content: string };
    assert.equal(afterRow.id, before.id);
    assert.equal(afterRow.crawled_us, before.crawled_us);
    assert.match(afterRow.content ?? '', /Corrected/);
    assert.deepEqual(changes.at(-1)!.updated, [before.id]);

    const r2 = await refreshFeed(app, feedId);
    assert.deepEqual([r2.added, r2.updated], [0, 0]);
    assert.equal(await feedEngine(app).items.countByFeed(feedId), 4);
    assert.equal((await userItems(app, alice)).length, 4);
    const crawl = (await testSql(app).prepare('SELECT crawled_us FROM items ORDER BY crawled_us').all()) as {
      crawled_us: number;
    }[];
    assert.equal(new Set(crawl.map((c) => c.crawled_us)).size, 4, 'crawl times are distinct');
  } finally {
    await app.close();
  }
});

test('compressed bodies (gzip, deflate, br) and a Latin-1 Content-Type are decoded', async () => {
  const app = await testApp();
  try {
    const body = rss('Zipped', three);
    for (const [enc, fn] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ] as const) {
      server.routes.set(`/z-${enc}.xml`, (_q, s) => {
        s.setHeader('content-encoding', enc);
        s.setHeader('content-type', 'application/rss+xml');
        s.end(fn(Buffer.from(body)));
      });
    }
    server.routes.set('/latin1.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml; charset=ISO-8859-1');
      s.end(
        Buffer.from(
          rss('Café crème', [{ guid: 'x', title: 'Déjà vu' }]).replace('encoding="utf-8"', 'encoding="iso-8859-1"'),
          'latin1',
        ),
      );
    });
    const u = await addUser(app, 'u');
    for (const enc of ['gzip', 'deflate', 'br']) {
      const r = await subscribe(app, u, `${server.base}/z-${enc}.xml`);
      assert.equal(r.title, 'Zipped', enc);
      assert.equal(await feedEngine(app).items.countByFeed(r.feedId), 3, enc);
    }
    const l = await subscribe(app, u, `${server.base}/latin1.xml`);
    assert.equal(l.title, 'Café crème');
    assert.equal(
      ((await testSql(app).prepare("SELECT title FROM items WHERE guid = 'x'").get()) as { title: string }).title,
      'Déjà vu',
    );
  } finally {
    await app.close();
  }
});

test('a permanent redirect updates the stored URL, a temporary one does not, a loop is an error', async () => {
  const app = await testApp();
  try {
    server.routes.set('/moved.xml', (_q, s) => {
      s.statusCode = 301;
      s.setHeader('location', '/new-home.xml');
      s.end();
    });
    server.routes.set('/new-home.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.end(rss('Moved', three));
    });
    server.routes.set('/temp.xml', (_q, s) => {
      s.statusCode = 302;
      s.setHeader('location', `${server.base}/new-home.xml`);
      s.end();
    });
    server.routes.set('/loop-a', (_q, s) => {
      s.statusCode = 302;
      s.setHeader('location', '/loop-b');
      s.end();
    });
    server.routes.set('/loop-b', (_q, s) => {
      s.statusCode = 302;
      s.setHeader('location', '/loop-a');
      s.end();
    });
    const u = await addUser(app, 'u');
    const moved = await subscribe(app, u, `${server.base}/moved.xml`);
    assert.equal(moved.url, `${server.base}/new-home.xml`);

    const { feeds } = feedEngine(app);
    const old = await feeds.create(`${server.base}/old-later.xml`);
    await feedEngine(app).subscriptions.subscribe(u, old.id);
    server.routes.set('/old-later.xml', (_q, s) => {
      s.statusCode = 308;
      s.setHeader('location', '/later-home.xml');
      s.end();
    });
    server.routes.set('/later-home.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.end(rss('Later', three));
    });
    await refreshFeed(app, old.id);
    assert.equal((await feeds.findById(old.id))!.url, `${server.base}/later-home.xml`);

    // Moving onto the URL of another stored feed would break UNIQUE(url): the old URL is kept.
    const dup = await feeds.create(`${server.base}/dup.xml`);
    await feedEngine(app).subscriptions.subscribe(u, dup.id);
    server.routes.set('/dup.xml', (_q, s) => {
      s.statusCode = 301;
      s.setHeader('location', '/later-home.xml');
      s.end();
    });
    const dupResult = await refreshFeed(app, dup.id);
    assert.equal(dupResult.outcome, 'updated');
    assert.equal((await feeds.findById(dup.id))!.url, `${server.base}/dup.xml`);

    const temp = await subscribe(app, u, `${server.base}/temp.xml`);
    assert.equal(temp.url, `${server.base}/temp.xml`);

    await assert.rejects(
      subscribe(app, u, `${server.base}/loop-a`),
      (e: FeedError) => e.code === 'redirects' && /too many redirects \(more than 5; redirect loop\?\)/.test(e.message),
    );
    // Every hop is checked again: a redirect to another scheme is refused.
    server.routes.set('/to-file', (_q, s) => {
      s.statusCode = 302;
      s.setHeader('location', 'file:///etc/passwd');
      s.end();
    });
    await assert.rejects(
      subscribe(app, u, `${server.base}/to-file`),
      /redirected to an unusable location "file:\/\/\/etc\/passwd": refusing the file: URL scheme/,
    );
  } finally {
    await app.close();
  }
});

test('failures are recorded on the failing feed only; stored items are kept; Retry-After sets the next fetch', async () => {
  const app = await testApp();
  try {
    const statuses: Record<string, number> = {};
    const u = await addUser(app, 'u');
    const ids: Record<string, number> = {};
    for (const name of ['ok', 's404', 's410', 's429', 's500', 'html', 'empty', 'truncated']) {
      server.routes.set(`/f-${name}.xml`, (_q, s) => {
        const st = statuses[name];
        if (st) {
          s.statusCode = st;
          if (st === 429) s.setHeader('retry-after', '3600');
          s.end('error page');
          return;
        }
        if (name === 'html' && statuses.broken) {
          s.setHeader('content-type', 'text/html');
          s.end('<!doctype html><html><body>Sorry, maintenance</body></html>');
          return;
        }
        if (name === 'empty' && statuses.broken) {
          s.setHeader('content-type', 'application/rss+xml');
          s.end('');
          return;
        }
        // Cut in the middle of the second item: recovered, the first two items are kept as they were.
        if (name === 'truncated' && statuses.broken) {
          s.setHeader('content-type', 'application/rss+xml');
          const b = rss(
            name,
            three.map((e) => ({ ...e, guid: name + e.guid })),
          );
          s.end(b.slice(0, b.indexOf('truncatedb') + 5));
          return;
        }
        s.setHeader('content-type', 'application/rss+xml');
        s.end(
          rss(
            name,
            three.map((e) => ({ ...e, guid: name + e.guid })),
          ),
        );
      });
      ids[name] = (await subscribe(app, u, `${server.base}/f-${name}.xml`)).feedId;
    }
    Object.assign(statuses, { s404: 404, s410: 410, s429: 429, s500: 500, broken: 1 });
    const t0 = Math.floor(Date.now() / 1000);
    // Each feed's success or failure write ends its refresh claim: no release statement after it.
    const claims = app.store.refreshClaims;
    const release = claims.release.bind(claims);
    const releasedApart: number[] = [];
    claims.release = async (ids, owner) => {
      releasedApart.push(...ids);
      return release(ids, owner);
    };
    const summary = await refreshDue(app, { all: true });
    claims.release = release;
    assert.equal(summary.feeds, 8);
    assert.equal(summary.failed, 6);
    assert.deepEqual(releasedApart, [], 'claims ended by the feeds’ own writes');
    assert.equal(
      (
        await testSql(app)
          .prepare(
            'SELECT count(*) AS n FROM feeds WHERE refresh_claimed_by IS NOT NULL OR refresh_claimed_until IS NOT NULL',
          )
          .get<{ n: number }>()
      )?.n,
      0,
      'no claim left behind',
    );
    const { feeds, items } = feedEngine(app);
    const f = async (n: string) => (await feeds.findById(ids[n]!))!;
    assert.equal((await f('ok')).lastError, null);
    assert.equal((await f('ok')).errorCount, 0);
    assert.match((await f('s404')).lastError!, /^HTTP 404 Not Found/);
    assert.equal((await f('s404')).lastStatus, 404);
    assert.match((await f('s410')).lastError!, /HTTP 410 Gone: the feed was removed/);
    assert.match((await f('s429')).lastError!, /HTTP 429: rate limited, retrying after 3600 s/);
    assert.ok((await f('s429')).nextFetchAt >= t0 + 3600, 'Retry-After honoured');
    assert.match((await f('s500')).lastError!, /HTTP 500 Internal Server Error/);
    assert.match((await f('html')).lastError!, /not a feed/);
    assert.match((await f('empty')).lastError!, /empty/);
    assert.equal((await f('truncated')).lastError, null, 'a truncated document is recovered, not an error');
    for (const n of Object.keys(ids)) assert.equal(await items.countByFeed(ids[n]!), 3, `items of ${n} kept`);
    assert.equal((await userItems(app, u)).length, 24);

    // Consecutive failures back off exponentially but are never given up.
    const first = await f('s500');
    await refreshFeed(app, ids.s500!);
    const second = await f('s500');
    assert.equal(second.errorCount, 2);
    assert.ok(second.intervalSeconds! > first.intervalSeconds! * 1.1);
    assert.ok(second.nextFetchAt <= second.lastFetchedAt! + 24 * 3600);
  } finally {
    await app.close();
  }
});

test('the SSRF guard refuses loopback unless private networks are allowed, and non-http schemes always', async () => {
  server.routes.set('/guarded.xml', (_q, s) => {
    s.setHeader('content-type', 'application/rss+xml');
    s.end(rss('Guarded', three));
  });
  const closed = await testApp({ allowPrivateNetworks: false });
  try {
    const u = await addUser(closed, 'u');
    await assert.rejects(
      subscribe(closed, u, `${server.base}/guarded.xml`),
      (e: FeedError) =>
        e.code === 'refused_address' &&
        e.message === 'refusing to fetch loopback address 127.0.0.1 (set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow)',
    );
    await assert.rejects(
      subscribe(closed, u, 'http://localhost:1/feed'),
      /refusing to fetch loopback address localhost/,
    );
    await assert.rejects(
      subscribe(closed, u, 'http://[::ffff:10.0.0.5]/feed'),
      /refusing to fetch private address 10\.0\.0\.5/,
    );
    await assert.rejects(subscribe(closed, u, 'file:///etc/passwd'), /refusing the file: URL scheme/);
    // A host NAME is checked on the address it resolves to, inside the connection's DNS lookup.
    const host = hostname();
    const resolved = await lookup(host).catch(() => null);
    if (resolved && refusalReason(resolved.address)) {
      const port = new URL(server.base).port;
      await assert.rejects(
        subscribe(closed, u, `http://${host}:${port}/guarded.xml`),
        (e: FeedError) =>
          e.code === 'refused_address' && e.message.startsWith(`refusing to fetch `) && e.message.includes(`(${host})`),
      );
    }
    // A public URL redirecting to a private address is refused at the hop (simulated by an allowed
    // fetcher hop is not possible locally; the per-hop check is the same function).
    assert.equal(await feedEngine(closed).feeds.findByUrl(`${server.base}/guarded.xml`), undefined, 'nothing stored');
  } finally {
    await closed.close();
  }
  const open = await testApp({ allowPrivateNetworks: true });
  try {
    const r = await subscribe(open, await addUser(open, 'u'), `${server.base}/guarded.xml`);
    assert.equal(r.title, 'Guarded');
  } finally {
    await open.close();
  }
});

test('time and size limits: a silent server times out, big bodies and gzip bombs are refused', async () => {
  const app = await testApp({ fetchTimeoutMs: 600, maxBodyBytes: 64 * 1024 });
  try {
    server.routes.set('/silent.xml', () => {
      /* never answers */
    });
    server.routes.set('/big.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.write(rss('Big', three).slice(0, -20));
      s.end('x'.repeat(100 * 1024));
    });
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
    server.routes.set('/bomb.xml', (_q, s) => {
      s.setHeader('content-encoding', 'gzip');
      s.setHeader('content-type', 'application/rss+xml');
      s.end(bomb);
    });
    const u = await addUser(app, 'u');
    const t0 = performance.now();
    await assert.rejects(subscribe(app, u, `${server.base}/silent.xml`), /^FeedError: timed out after 600 ms$/);
    assert.ok(performance.now() - t0 < 3000, 'gave up within the limit');
    // Headers at once, then the body drips and stalls: the total limit still applies.
    server.routes.set('/drip.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.write('<?xml version="1.0"?><rss version="2.0"><channel>');
    });
    const t1 = performance.now();
    await assert.rejects(subscribe(app, u, `${server.base}/drip.xml`), /^FeedError: timed out after 600 ms$/);
    assert.ok(performance.now() - t1 < 3000);
    await assert.rejects(subscribe(app, u, `${server.base}/big.xml`), /feed is larger than 64 KiB/);
    assert.ok(bomb.length < 64 * 1024, 'the bomb itself is small');
    await assert.rejects(subscribe(app, u, `${server.base}/bomb.xml`), /feed is larger than 64 KiB once decompressed/);
  } finally {
    await app.close();
  }
});

test('discovery: a site page leads to its announced feed, or to a common path', async () => {
  const app = await testApp();
  try {
    server.routes.set('/blog/', (_q, s) => {
      s.setHeader('content-type', 'text/html; charset=utf-8');
      s.end(
        '<!doctype html><html><head><title>Blog</title><link rel="stylesheet" href="/s.css"><link type="application/atom+xml" rel="alternate" href="atom-feed.xml" title="Atom"></head><body></body></html>',
      );
    });
    server.routes.set('/blog/atom-feed.xml', (_q, s) => {
      s.setHeader('content-type', 'application/atom+xml');
      s.end(
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Blog</title><id>urn:x</id><updated>2026-11-02T10:00:00Z</updated><entry><id>urn:e1</id><title>E1</title><updated>2026-11-02T10:00:00Z</updated><content type="html">Hello</content></entry></feed>',
      );
    });
    server.routes.set('/site2/', (_q, s) => {
      s.setHeader('content-type', 'text/html');
      s.end('<html><head><title>No links</title></head><body>hi</body></html>');
    });
    server.routes.set('/site2/rss.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.end(rss('Guessed', three));
    });
    server.routes.set('/nothing/', (_q, s) => {
      s.setHeader('content-type', 'text/html');
      s.end('<html><body>no feed here</body></html>');
    });
    const u = await addUser(app, 'u');
    const a = await subscribe(app, u, `${server.base}/blog/`);
    assert.equal(a.url, `${server.base}/blog/atom-feed.xml`);
    assert.equal(a.title, 'Atom Blog');
    const b = await subscribe(app, u, `${server.base}/site2/`);
    assert.equal(b.url, `${server.base}/site2/rss.xml`);
    await assert.rejects(subscribe(app, u, `${server.base}/nothing/`), /no feed found at .*nothing/);
  } finally {
    await app.close();
  }
});

test('unsubscribe removes the subscription and unread items but keeps starred ones', async () => {
  const app = await testApp();
  try {
    server.routes.set('/unsub.xml', (_q, s) => {
      s.setHeader('content-type', 'application/rss+xml');
      s.end(rss('Unsub', three));
    });
    const u = await addUser(app, 'u');
    const r = await subscribe(app, u, `${server.base}/unsub.xml`);
    const starred = (await userItems(app, u))[0]!.item_id;
    await testSql(app).prepare('UPDATE user_items SET starred = 1 WHERE user_id = ? AND item_id = ?').run(u, starred);
    assert.equal(await unsubscribe(app, u, `feed/${r.url}`), true);
    assert.deepEqual(
      (await userItems(app, u)).map((x) => x.item_id),
      [starred],
    );
    assert.equal((await feedEngine(app).subscriptions.list(u)).length, 0);
    assert.equal(await unsubscribe(app, u, r.url), false);
    // Re-subscribing counts the kept starred (unread) item.
    await subscribe(app, u, r.url);
    assert.equal((await feedEngine(app).subscriptions.find(u, r.feedId))!.unreadCount, 3);
  } finally {
    await app.close();
  }
});

test('the background scheduler refreshes due feeds and stops with the app', async () => {
  const app = await testApp({ schedulerTickSeconds: 1 });
  let closed = false;
  try {
    server.routes.set(
      '/sched.xml',
      conditional(
        () => rss('Sched', three),
        () => '"s1"',
      ),
    );
    const { feedId } = await subscribe(app, await addUser(app, 'u'), `${server.base}/sched.xml`);
    const hits = server.hits.get('/sched.xml')!;
    await testSql(app).prepare('UPDATE feeds SET next_fetch_at = 0 WHERE id = ?').run(feedId);
    startScheduler(app);
    for (let i = 0; i < 100 && server.hits.get('/sched.xml') === hits; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.hits.get('/sched.xml'), hits + 1, 'the due feed was fetched');
    // The hit is seen before the refresh is stored: wait for the outcome, not a fixed time.
    for (let i = 0; i < 100 && (await feedEngine(app).feeds.findById(feedId))!.lastStatus !== 304; i++)
      await new Promise((r) => setTimeout(r, 50));
    const feed = (await feedEngine(app).feeds.findById(feedId))!;
    assert.equal(feed.lastStatus, 304);
    assert.ok(feed.nextFetchAt > Date.now() / 1000, 'rescheduled into the future');
    await app.close();
    closed = true;
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(server.hits.get('/sched.xml'), hits + 1, 'nothing fetched once not due, nor after close');
  } finally {
    if (!closed) await app.close();
  }
});

test('closing the app during a scheduled refresh cancels fetches without counting them as feed failures', async () => {
  const app = await testApp({ fetchTimeoutMs: 20_000 });
  server.routes.set('/hang.xml', () => {
    /* never answers */
  });
  const { feeds, subscriptions } = feedEngine(app);
  const feed = await feeds.create(`${server.base}/hang.xml`);
  await subscriptions.subscribe(await addUser(app, 'u'), feed.id);
  startScheduler(app);
  for (let i = 0; i < 100 && !server.hits.get('/hang.xml'); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(server.hits.get('/hang.xml'), 1);
  const t0 = performance.now();
  await app.close();
  assert.ok(performance.now() - t0 < 5000, 'close does not wait for the fetch time limit');
  const other = await openStore({ databaseUrl: app.config.databaseUrl, dataDir: app.config.dataDir });
  const row = await testSql(other)
    .prepare('SELECT error_count, last_error FROM feeds WHERE id = ?')
    .get<{ error_count: number; last_error: string | null }>(feed.id);
  await other.close();
  assert.deepEqual({ ...row }, { error_count: 0, last_error: null });
});

test("a refresh stores a feed's new title and site, and writes nothing to the feed when they did not change", async () => {
  const app = await testApp();
  try {
    let title = 'Before';
    let version = 1;
    server.routes.set(
      '/renamed.xml',
      conditional(
        () => rss(title, [{ guid: `g${version}`, title: `Post ${version}` }]),
        () => `"r${version}"`,
      ),
    );
    const user = await addUser(app, 'renamer');
    const { feedId } = await subscribe(app, user, `${server.base}/renamed.xml`);
    const { feeds } = feedEngine(app);
    const catalog = () => app.store.readerLabels.catalogVersion();
    assert.equal((await feeds.findById(feedId))!.title, 'Before');

    version++; // a new post, same title: the items change, the feed's metadata does not
    const unchanged = await catalog();
    assert.equal((await refreshFeed(app, feedId)).added, 1);
    assert.equal(await catalog(), unchanged, 'same metadata: the Reader catalog stays valid');

    version++;
    title = 'After';
    assert.equal((await refreshFeed(app, feedId)).added, 1);
    assert.equal((await feeds.findById(feedId))!.title, 'After');
    assert.ok((await catalog()) > unchanged, 'a renamed feed moves the catalog version');
  } finally {
    await app.close();
  }
});

test("a feed's place on its host ends with its fetch: the host's next feed is fetched while the first is still being stored", async () => {
  // One place on the host: feeds are fetched one at a time, whatever else the pass does.
  const app = await testApp({ perHostConcurrency: 1, fetchConcurrency: 4, fullTextAuto: 'off' });
  try {
    const u = await addUser(app, 'places');
    let active = 0,
      most = 0;
    const fetched: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) {
      server.routes.set(`/place-${name}.xml`, (_req, res) => {
        active++;
        most = Math.max(most, active);
        res.on('finish', () => {
          active--;
          fetched.push(name);
        });
        res.setHeader('content-type', 'application/rss+xml');
        res.end(rss(name, [{ guid: `${name}-1`, title: `${name} one` }]));
      });
    }
    // Subscribed without a fetch (the subscription rows alone), so the pass below fetches all three.
    const { feeds, subscriptions } = feedEngine(app);
    for (const name of ['p1', 'p2', 'p3'])
      await subscriptions.subscribe(u, (await feeds.create(`${server.base}/place-${name}.xml`)).id);
    // The first feed stored holds its step after the store until the other two were fetched (or 5 s
    // went by): with the place held through the parse and the store, they could not be.
    let allFetched: () => void = () => {};
    const others = new Promise<void>((r) => (allFetched = r));
    const waited: string[] = [];
    onNewItems(app, async () => {
      if (waited.length) return;
      waited.push('first');
      const check = setInterval(() => fetched.length === 3 && allFetched(), 10);
      const timeout = new Promise<string>((r) => setTimeout(() => r('timed out'), 5000));
      waited.push(await Promise.race([others.then(() => 'others fetched'), timeout]));
      clearInterval(check);
    });
    const summary = await refreshDue(app, { all: true });
    assert.equal(summary.updated, 3);
    assert.deepEqual(waited, ['first', 'others fetched'], 'the host was free for the next feeds during the store');
    assert.equal(most, 1, 'never more than the host limit of fetches at once');
    const left = await testSql(app)
      .prepare(
        'SELECT count(*) AS n FROM feeds WHERE refresh_claimed_by IS NOT NULL OR refresh_claimed_until IS NOT NULL',
      )
      .get<{ n: number }>();
    assert.equal(left?.n, 0, 'no claim left behind');
  } finally {
    await app.close();
  }
});
