// No refresh stalls on DNS (issue 26): after a first refresh the teaser check fetches a few article
// pages of each new feed; when their host never answers DNS (a lookup that never calls back,
// injected as the edge we do not own) the lookups are bounded by TIDINGS_DNS_TIMEOUT_MS, one
// lookup of the name is out at a time, the check gives up with the reason in the log, and the
// feeds' own fetches never wait for slots the hung pages hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { rmSync } from 'node:fs';
import pino from 'pino';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { refreshDue } from '../src/feeds/index.ts';
import { useDnsLookup } from '../src/feeds/services.ts';
import { fullTextStore } from '../src/feeds/fulltext/fulltext.ts';
import { importOpml } from '../src/feeds/opml/import-export.ts';
import { startFeedServer, addUser } from './feeds-fixtures.ts';
import { teaserRss } from './fulltext-fixtures.ts';
import { tempDataDir } from './helpers.ts';

const FEEDS = 12;

async function setUp(overrides: Partial<Config>, opts: { hostPerFeed?: boolean } = {}) {
  const server = await startFeedServer();
  const lines: { msg: string; reasons?: string[]; feedId?: number }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  const app: App = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir: tempDataDir('tidings-dns-'),
        allowPrivateNetworks: true,
        fullTextAuto: 'suggest',
        // Long connect and fetch limits: only the DNS deadline can end a hung lookup soon.
        connectTimeoutMs: 60_000,
        fetchTimeoutMs: 120_000,
        ...overrides,
      },
    }),
    pino({ level: 'info' }, sink),
  );
  const asked: string[] = [];
  // The name servers never answer: the article host's (gone.example) and the sites' (example.org,
  // whose icons are looked up at the end of the round); the feeds are on 127.0.0.1: no lookup.
  useDnsLookup(app, (hostname, _o, callback) => {
    asked.push(hostname);
    if (opts.hostPerFeed && hostname === 'example.org')
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  });
  for (let f = 0; f < FEEDS; f++) {
    const list = [1, 2, 3].map((i) => ({
      guid: `f${f}-${i}`,
      title: `Post ${i} of feed ${f}`,
      link: opts.hostPerFeed ? `http://gone-${f}.example/${i}` : `http://gone.example/${f}/${i}`,
      teaser: 'Read more on our site.',
    }));
    server.routes.set(`/feed${f}.xml`, (_q, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(teaserRss(`Feed ${f}`, list));
    });
  }
  const user = await addUser(app, 'dana');
  const opml = `<?xml version="1.0"?><opml version="2.0"><body>${Array.from({ length: FEEDS }, (_, f) => `<outline type="rss" text="F${f}" xmlUrl="${server.base}/feed${f}.xml"/>`).join('')}</body></opml>`;
  await importOpml(app, user, opml);
  return { app, server, lines, asked };
}

test('a teaser check whose article host never answers DNS gives up within the DNS deadline, with the reason logged', {
  timeout: 120_000,
}, async () => {
  const { app, server, lines, asked } = await setUp({ dnsTimeoutMs: 1000 });
  try {
    const t0 = performance.now();
    // The CLI's round: it waits for this round's full-text work, teaser checks included.
    const s = await refreshDue(app);
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(s.feeds, FEEDS);
    assert.equal(s.failed, 0);
    // Without a deadline each page waited for the connect limit (60 s here), three pages a feed.
    assert.ok(seconds < 30, `the round took ${seconds.toFixed(1)} s`);
    const gaveUp = lines.filter((l) => l.msg.startsWith('teaser check gave up'));
    assert.equal(gaveUp.length, FEEDS, 'every feed’s check gave up, and said so');
    assert.match(gaveUp[0]!.msg, /DNS lookup of gone\.example did not answer within 1 s/);
    assert.ok(
      gaveUp.every((l) => l.reasons?.some((r) => /gone\.example/.test(r))),
      'the reasons name the host',
    );
    const gone = asked.filter((h) => h === 'gone.example').length;
    assert.equal(gone, 1, `one lookup of the name was out, not one a page: ${gone}`);
    const st = await fullTextStore(app).status(gaveUp[0]!.feedId!);
    assert.equal(st.teaser, null, 'no verdict');
    assert.ok(st.teaserCheckedAt !== null, 'the attempt is remembered: checked again in a week, not every round');
  } finally {
    await app.close();
    await server.close();
    rmSync(app.config.dataDir, { recursive: true, force: true });
  }
});

test('hung article pages never hold the fetch slots the feeds of the next round need', {
  timeout: 120_000,
}, async () => {
  // Two fetches at once in all, each feed's articles on a host of its own whose DNS never answers,
  // and the time limits far away: the teaser checks (8 at once) hang in the background. The sites'
  // icons fail at once (example.org: not found).
  const { app, server, lines } = await setUp(
    { dnsTimeoutMs: 60_000, connectTimeoutMs: 20_000, fetchConcurrency: 2 },
    { hostPerFeed: true },
  );
  try {
    await refreshDue(app, { awaitFullText: false });
    // The checks are hanging on DNS now; the scheduler's next round (every feed due again) runs beside them.
    const t0 = performance.now();
    const s = await refreshDue(app, { all: true, awaitFullText: false });
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(s.feeds, FEEDS);
    assert.equal(s.failed, 0);
    // Before, the hung pages held both fetch slots until the connect limit (20 s) ended them.
    assert.ok(seconds < 10, `the round took ${seconds.toFixed(1)} s beside the hung checks`);
    assert.equal(lines.filter((l) => l.msg.startsWith('teaser check gave up')).length, 0, 'the checks are still out');
  } finally {
    // Closing cancels the hung checks; a cancelled check records nothing.
    await app.close();
    await server.close();
    rmSync(app.config.dataDir, { recursive: true, force: true });
  }
});
