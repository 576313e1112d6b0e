// Favicons: found from the site's <link rel="icon">, else /favicon.ico, fetched with a size
// limit, checked by their bytes, stored, and served to Reader API clients (iconUrl), Fever
// clients (favicons) and at a URL the web app can use.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startHarness, addUser, clientLogin, ReaderClient, type Harness } from './reader-harness.ts';
import { refreshDue } from '../src/feeds/index.ts';
import { feedIcons, sniffImage, findIconLinks } from '../src/feeds/favicons.ts';
import { setFeverPassword } from '../src/auth/fever-credentials.ts';
import { testSql } from '../src/store/testing.ts';

// Smallest valid images of each kind (headers are what the sniffing checks).
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]);
const ICO = Buffer.concat([Buffer.from([0x00, 0x00, 0x01, 0x00, 0x01, 0x00]), Buffer.alloc(40, 2)]);

let h: Harness;
let alice: ReaderClient;

before(async () => {
  h = await startHarness();
  for (const n of ['linked', 'plain', 'huge', 'fake']) h.feeds.addItems(n, 1, n);
  const html = (head: string) => (_q: unknown, res: import('node:http').ServerResponse) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<html><head>${head}</head><body>hi</body></html>`);
  };
  const bytes =
    (b: Buffer, type = 'image/png') =>
    (_q: unknown, res: import('node:http').ServerResponse) => {
      res.setHeader('content-type', type);
      res.end(b);
    };
  h.feeds.routes.set(
    '/site/linked',
    html(
      '<link rel="apple-touch-icon" href="/touch.png"><link rel="shortcut icon" href="../static/icon.png" sizes="32x32">',
    ),
  );
  h.feeds.routes.set('/static/icon.png', bytes(PNG));
  h.feeds.routes.set('/touch.png', bytes(ICO));
  h.feeds.routes.set('/site/plain', html('<title>no icon link</title>'));
  h.feeds.routes.set('/favicon.ico', bytes(ICO, 'image/x-icon'));
  h.feeds.routes.set('/site/huge', html('<link rel="icon" href="/big.png">'));
  h.feeds.routes.set('/big.png', bytes(Buffer.concat([PNG, Buffer.alloc(300 * 1024)])));
  h.feeds.routes.set('/site/fake', html('<link rel="icon" href="/fake.png">'));
  h.feeds.routes.set('/fake.png', bytes(Buffer.from('<html>not an image</html>')));
  await addUser(h.app, 'alice', 'pw-alice-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  for (const n of ['linked', 'plain', 'huge', 'fake'])
    await alice.post('subscription/quickadd', [['quickadd', h.feeds.url(n)]]);
  await refreshDue(h.app, { all: true });
});
after(async () => {
  await h.close();
});

test('icons are found, checked and stored; bad ones are recorded as failures', async () => {
  const rows = await testSql(h.app)
    .prepare(
      `SELECT f.url, fi.mime, fi.source_url AS src, fi.error, length(fi.data) AS n FROM feed_icons fi JOIN feeds f ON f.id = fi.feed_id`,
    )
    .all<any>();
  const by = (n: string) => rows.find((r) => r.url === h.feeds.url(n));
  assert.equal(by('linked').mime, 'image/png');
  assert.equal(
    by('linked').src,
    `${h.feeds.base}/static/icon.png`,
    'rel=icon beats apple-touch-icon; relative hrefs resolved',
  );
  assert.equal(by('plain').mime, 'image/x-icon');
  assert.equal(by('plain').src, `${h.feeds.base}/favicon.ico`, 'no link: /favicon.ico');
  // The huge and fake icons are refused, then /favicon.ico is tried and found.
  assert.equal(by('huge').src, `${h.feeds.base}/favicon.ico`);
  assert.equal(by('fake').src, `${h.feeds.base}/favicon.ico`);
  h.feeds.routes.delete('/favicon.ico');
  await testSql(h.app).exec('DELETE FROM feed_icons');
  await refreshDue(h.app, { all: true });
  const err = (
    await testSql(h.app)
      .prepare(`SELECT fi.error FROM feed_icons fi JOIN feeds f ON f.id = fi.feed_id WHERE f.url = ?`)
      .get<any>(h.feeds.url('huge'))
  ).error;
  assert.match(err, /larger than 256 KiB/);
  assert.match(err, /favicon\.ico: HTTP 404/);
  const fake = (
    await testSql(h.app)
      .prepare(`SELECT fi.error FROM feed_icons fi JOIN feeds f ON f.id = fi.feed_id WHERE f.url = ?`)
      .get<any>(h.feeds.url('fake'))
  ).error;
  assert.match(fake, /not a PNG, ICO, GIF, JPEG or WebP image/);
  h.feeds.routes.set('/favicon.ico', (_q, res) => {
    res.setHeader('content-type', 'image/x-icon');
    res.end(ICO);
  });
  await testSql(h.app).exec('DELETE FROM feed_icons');
  await refreshDue(h.app, { all: true });
});

test('Reader iconUrl points at Tidings, which serves the bytes; forged or unknown icon URLs are 404', async () => {
  const subs = (await alice.get('subscription/list')).json().subscriptions as any[];
  const linked = subs.find((s) => s.url === h.feeds.url('linked'));
  assert.match(linked.iconUrl, new RegExp(`^${h.url}/icons/\\d+\\.[A-Za-z0-9_-]{16}$`));
  const res = await fetch(linked.iconUrl);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
  const forged = linked.iconUrl.replace(/\.[A-Za-z0-9_-]{16}$/, '.AAAAAAAAAAAAAAAA');
  assert.equal((await fetch(forged)).status, 404);
  const other = linked.iconUrl.replace(/\/icons\/\d+/, '/icons/999');
  assert.equal((await fetch(other)).status, 404, 'a signature is valid for its own feed only');
});

test('Fever favicons carry the stored image as data; feeds point at them', async () => {
  await setFeverPassword(h.app, 'alice', 'fever-pw-alice');
  const key = createHash('md5').update('alice:fever-pw-alice').digest('hex');
  const r = await fetch(`${h.url}/fever/?api&feeds&favicons`, {
    method: 'POST',
    body: new URLSearchParams({ api_key: key }),
  });
  const body = (await r.json()) as any;
  assert.equal(body.favicons.length, 4);
  const linkedFeed = body.feeds.find((f: any) => f.url === h.feeds.url('linked'));
  const icon = body.favicons.find((f: any) => f.id === linkedFeed.favicon_id);
  assert.equal(icon.data, `image/png;base64,${PNG.toString('base64')}`);
});

test('sniffing and link parsing', async () => {
  assert.equal(sniffImage(PNG), 'image/png');
  assert.equal(sniffImage(ICO), 'image/x-icon');
  assert.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined, 'SVG is refused');
  assert.deepEqual(
    findIconLinks(
      '<head><base href="https://cdn.example/x/"><link rel="icon" href="i.svg" type="image/svg+xml"><link rel=icon href="a.png" sizes="16x16"><link rel="icon" href="b.png" sizes="32x32"><link rel="icon" href="javascript:alert(1)"></head>',
      'https://example.org/',
    ),
    ['https://cdn.example/x/b.png', 'https://cdn.example/x/a.png'],
  );
  assert.equal(await feedIcons(h.app).get(123456), undefined);
});
