import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addFeed, ingest, testApp } from '../testing/fixtures.ts';
import { searchService } from '../service.ts';
import type { SearchQuery } from '../types.ts';
import type { Config } from '../../config/config.ts';

/**
 * A SearXNG stand-in speaking its JSON API (GET /search?q=…&format=json -> {query, results:[{url,
 * title, content, engine, publishedDate …}], answers, suggestions …}; HTTP 403 when the format is
 * not enabled, as SearXNG does), whose results point at article pages served by the same server.
 */
async function searxngStub(): Promise<{ url: string; requests: URL[]; close(): Promise<void> }> {
  const requests: URL[] = [];
  let base = '';
  const page = (title: string, paragraphs: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><nav>Home | World | Sports</nav>
     <article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article>
     <footer>Copyright footer text</footer></body></html>`;
  const pages: Record<string, string> = {
    '/news/comet': page('Comet visible tonight', [
      'Astronomers say the comet will be visible to the naked eye after sunset this week, low in the western sky.',
      'The comet last passed Earth eighty thousand years ago, long before any written record of the sky existed.',
      'Observers in dark places should look for its long tail with binoculars, scientists at the observatory said.',
    ]),
    '/news/weather': page('Clear skies expected', [
      'Forecasters expect clear skies across the region for most of the week, good news for anyone watching the comet.',
      'Temperatures will fall below freezing at night, so dress warmly when you go outside to look at the sky.',
    ]),
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const u = new URL(req.url ?? '/', base);
    if (u.pathname === '/search') {
      requests.push(u);
      if (u.searchParams.get('format') !== 'json') {
        res.writeHead(403).end('Forbidden');
        return;
      }
      const results = [
        {
          url: `${base}/news/comet`,
          title: 'Comet visible tonight',
          content: 'Comet snippet from the engine',
          engine: 'duckduckgo',
          publishedDate: '2025-06-01T10:00:00',
        },
        {
          url: `${base}/news/weather`,
          title: 'Clear skies expected',
          content: 'Weather snippet',
          engine: 'bing',
          publishedDate: null,
        },
        {
          url: 'https://blocked.example.org/comet',
          title: 'Blocked comet story',
          content: 'A comet story from a denied domain',
          engine: 'bing',
        },
        { url: 'ftp://files.example.org/x', title: 'Not http', content: 'ignored' },
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: u.searchParams.get('q'),
          number_of_results: 0,
          results,
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        }),
      );
      return;
    }
    const html = pages[u.pathname];
    if (!html) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, requests, close: () => new Promise((r) => server.close(() => r())) };
}

async function appWith(t: { after(fn: () => unknown): void }, config: Partial<Config>) {
  const app = await testApp(config);
  t.after(() => app.close());
  const feed = await addFeed(app, 'https://local.example/feed', 'Local Paper');
  await ingest(app, feed, [
    {
      url: 'https://local.example/comet',
      title: 'Local club watches the comet',
      content: '<p>The astronomy club met to watch the comet in the western sky after sunset.</p>',
    },
  ]);
  return app;
}

const query = (filters: SearchQuery['filters'] = {}): SearchQuery => ({
  text: 'When is the comet visible in the sky?',
  scope: { kind: 'instance' },
  filters,
  limit: 10,
});

test('web results from SearXNG are fetched, reduced to readable passages and fused with local hits', async (t) => {
  const stub = await searxngStub();
  t.after(() => stub.close());
  const app = await appWith(t, { searxngUrl: stub.url, allowPrivateNetworks: true, webResultsFetched: 2 });
  const report = await searchService(app).searchWithReport(query());
  assert.deepEqual(report.degraded, []);
  const hits = report.hits;
  const byUrl = new Map(hits.map((h) => [h.url, h]));
  assert.equal(byUrl.get('https://local.example/comet')?.origin, 'local');
  const comet = byUrl.get(`${stub.url}/news/comet`);
  assert.equal(comet?.origin, 'web');
  assert.equal(comet?.itemId, null);
  assert.equal(comet?.publishedAt, Date.parse('2025-06-01T10:00:00') / 1000);
  assert.match(comet!.passages[0]!.text, /comet will be visible/, 'passages come from the fetched page');
  assert.ok(
    !comet!.passages.some((p) => /Copyright footer|Home \| World/.test(p.text)),
    'boilerplate is not in the readable text',
  );
  assert.ok(byUrl.has(`${stub.url}/news/weather`));
  const blocked = byUrl.get('https://blocked.example.org/comet');
  assert.equal(
    blocked?.passages[0]?.text,
    'A comet story from a denied domain',
    'a result not fetched keeps the engine snippet',
  );
  assert.ok(!hits.some((h) => h.url.startsWith('ftp:')));
  // Fusion interleaves by rank: the first local hit and the first web hit lead.
  assert.deepEqual(new Set(hits.slice(0, 2).map((h) => h.origin)), new Set(['local', 'web']));
  assert.equal(stub.requests.length, 1, 'one SearXNG call per search');
  assert.equal(stub.requests[0]!.searchParams.get('q'), 'When is the comet visible in the sky?');
});

test('filters reach the web: recency as time_range, one allowed domain as site:, deny list on results', async (t) => {
  const stub = await searxngStub();
  t.after(() => stub.close());
  const app = await appWith(t, { searxngUrl: stub.url, allowPrivateNetworks: true });
  const svc = searchService(app);
  const denied = await svc.search(query({ domainFilter: ['-blocked.example.org'] }));
  assert.ok(!denied.some((h) => h.url.includes('blocked.example.org')));
  assert.ok(denied.some((h) => h.origin === 'web'));

  const allowed = await svc.search(query({ domainFilter: ['blocked.example.org'] }));
  assert.deepEqual(
    allowed.map((h) => h.url),
    ['https://blocked.example.org/comet'],
    'the local article is on another domain too',
  );
  assert.match(stub.requests.at(-1)!.searchParams.get('q')!, / site:blocked\.example\.org$/);

  await svc.search(query({ recency: 'hour' }));
  assert.equal(stub.requests.at(-1)!.searchParams.get('time_range'), 'day');
  const dated = await svc.search(query({ publishedAfter: Date.parse('2025-05-01') / 1000 }));
  assert.deepEqual(
    dated.filter((h) => h.origin === 'web').map((h) => h.url),
    [`${stub.url}/news/comet`],
    'undated results cannot pass a date bound',
  );
});

test('pages on private addresses are not fetched unless allowed (SSRF guard): the snippet is used', async (t) => {
  const stub = await searxngStub();
  t.after(() => stub.close());
  const app = await appWith(t, { searxngUrl: stub.url, allowPrivateNetworks: false });
  const hits = await searchService(app).search(query());
  const comet = hits.find((h) => h.url === `${stub.url}/news/comet`);
  assert.deepEqual(
    comet?.passages.map((p) => p.text),
    ['Comet snippet from the engine'],
  );
});

test('when SearXNG is down or answers garbage, local results still come back with a warning', async (t) => {
  const stub = await searxngStub();
  const deadUrl = stub.url;
  await stub.close();
  for (const searxngUrl of [deadUrl, `${deadUrl}/not-searxng`]) {
    const app = await appWith(t, { searxngUrl, allowPrivateNetworks: true });
    const report = await searchService(app).searchWithReport(query());
    assert.deepEqual(
      report.hits.map((h) => h.url),
      ['https://local.example/comet'],
    );
    assert.equal(report.degraded.length, 1);
    assert.match(report.degraded[0]!, /searxng web search failed/);
  }
  const wrong = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'),
  );
  await new Promise<void>((r) => wrong.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => wrong.close(() => r())));
  const app = await appWith(t, {
    searxngUrl: `http://127.0.0.1:${(wrong.address() as AddressInfo).port}`,
    allowPrivateNetworks: true,
  });
  const report = await searchService(app).searchWithReport(query());
  assert.equal(report.hits.length, 1);
  assert.match(report.degraded[0]!, /did not answer JSON/);
});
