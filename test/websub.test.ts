// WebSub against a local hub that behaves like a real one (202 to the request, then a GET with a
// challenge to the callback, then signed pushes): subscribe when the feed announces a hub and
// TIDINGS_PUBLIC_URL is set, accept signed pushes into the feed, refuse forged ones, renew the
// lease, unsubscribe when no user follows the feed; polling still works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startHarness, addUser, clientLogin, ReaderClient, type Harness } from './reader-harness.ts';
import { refreshDue, unsubscribe } from '../src/feeds/index.ts';
import { websubStore, signatureValid } from '../src/feeds/websub/websub.ts';
import { findHub } from '../src/feeds/websub/discover.ts';
import { openSecret } from '../src/secrets/keys.ts';
import { testSql } from '../src/store/testing.ts';

let h: Harness;
let hub: Server;
let hubUrl = '';
const requests: URLSearchParams[] = [];
const verifications: { mode: string; status: number; body: string }[] = [];
let alice: ReaderClient;
let aliceId: number, bobId: number;

const feedXml = (
  entries: { id: string; title: string }[],
) => `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>Pushed</title><id>urn:pushed</id><updated>2026-11-02T10:00:00Z</updated>
<link rel="hub" href="${hubUrl}/hub"/><link rel="self" href="https://pushed.example/feed.atom"/><link rel="alternate" href="https://pushed.example/"/>
${entries.map((e) => `<entry><id>${e.id}</id><title>${e.title}</title><link href="https://pushed.example/${e.id}"/><updated>2026-11-02T10:00:00Z</updated><content type="html">Body of ${e.title}</content></entry>`).join('')}</feed>`;

before(async () => {
  hub = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      // Verification of intent before the hub answers the request (as synchronous PubSubHubbub
      // hubs do; asynchronous ones may be just as quick): the subscriber must have stored its
      // intent before it sent the request.
      const cb = new URL(form.get('hub.callback')!);
      cb.searchParams.set('hub.mode', form.get('hub.mode')!);
      cb.searchParams.set('hub.topic', form.get('hub.topic')!);
      cb.searchParams.set('hub.challenge', `ch-${requests.length}`);
      if (form.get('hub.mode') === 'subscribe') cb.searchParams.set('hub.lease_seconds', '3600');
      const r = await fetch(cb);
      verifications.push({ mode: form.get('hub.mode')!, status: r.status, body: await r.text() });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
  hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
  h = await startHarness();
  h.app.config.publicUrl = h.url;
  h.feeds.routes.set('/pushed.atom', (_q, res) => {
    res.setHeader('content-type', 'application/atom+xml');
    res.end(feedXml([{ id: 'e1', title: 'First' }]));
  });
  aliceId = await addUser(h.app, 'alice', 'pw-alice-secret');
  bobId = await addUser(h.app, 'bob', 'pw-bob-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  const bob = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'bob', 'pw-bob-secret')}`);
  await alice.post('subscription/quickadd', [['quickadd', `${h.feeds.base}/pushed.atom`]]);
  await bob.post('subscription/quickadd', [['quickadd', `${h.feeds.base}/pushed.atom`]]);
});
after(async () => {
  await h.close();
  await new Promise((r) => hub.close(r));
});

const feedId = async () =>
  (await testSql(h.app)
    .prepare('SELECT id FROM feeds WHERE url = ?')
    .get<{ id: number }>(`${h.feeds.base}/pushed.atom`))!.id;
const titles = async () =>
  (await alice.get('stream/contents', [['n', '100']]))
    .json()
    .items.map((i: any) => i.title)
    .sort();
const until = async (cond: () => boolean) => {
  const end = Date.now() + 5000;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
};

async function push(body: string, opts: { secret?: string; algo?: string; token?: string } = {}): Promise<Response> {
  const sub = (await websubStore(h.app).find(await feedId()))!;
  const secret = opts.secret ?? (await openSecret(h.app, sub.secretBox));
  const algo = opts.algo ?? 'sha256';
  const sig = `${algo}=${createHmac(algo, secret).update(body).digest('hex')}`;
  return fetch(`${h.url}/websub/${opts.token ?? sub.callbackToken}`, {
    method: 'POST',
    headers: { 'content-type': 'application/atom+xml', 'x-hub-signature': sig },
    body,
  });
}

test('the hub is discovered, the subscription requested and verified; one subscription for the feed', async () => {
  let sub = await websubStore(h.app).find(await feedId());
  assert.equal(sub?.state, 'discovered');
  assert.equal(sub?.hubUrl, `${hubUrl}/hub`);
  assert.equal(sub?.topicUrl, 'https://pushed.example/feed.atom', 'rel=self is the topic');
  await refreshDue(h.app);
  await until(() => verifications.length >= 1);
  assert.equal(requests.length, 1, 'two users, one feed, one subscription');
  const req = requests[0]!;
  assert.equal(req.get('hub.mode'), 'subscribe');
  assert.equal(req.get('hub.topic'), 'https://pushed.example/feed.atom');
  assert.match(req.get('hub.callback')!, new RegExp(`^${h.url}/websub/[A-Za-z0-9_-]{32}$`));
  assert.ok((req.get('hub.secret') ?? '').length >= 32);
  assert.deepEqual(verifications[0], { mode: 'subscribe', status: 200, body: 'ch-1' });
  sub = await websubStore(h.app).find(await feedId());
  assert.equal(sub?.state, 'active');
  assert.ok(Math.abs(sub!.leaseExpiresAt! - (Date.now() / 1000 + 3600)) < 60, 'the lease the hub granted');
  assert.ok(
    !JSON.stringify(await testSql(h.app).prepare('SELECT * FROM websub_subscriptions').all()).includes(
      req.get('hub.secret')!,
    ),
    'the secret is stored sealed',
  );
});

test('a signed push adds the items (sha1 and sha256); forged pushes are refused and change nothing', async () => {
  const r = await push(
    feedXml([
      { id: 'e1', title: 'First' },
      { id: 'e2', title: 'Pushed second' },
    ]),
  );
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { added: 1, updated: 0 });
  assert.deepEqual(await titles(), ['First', 'Pushed second']);
  assert.equal((await push(feedXml([{ id: 'e3', title: 'Third by sha1' }]), { algo: 'sha1' })).status, 200);
  const forged = await push(feedXml([{ id: 'evil', title: 'Forged' }]), { secret: 'not-the-secret' });
  assert.equal(forged.status, 403);
  assert.match(await forged.text(), /does not match/);
  const unknown = await push(feedXml([{ id: 'evil', title: 'Forged' }]), { token: 'A'.repeat(32) });
  assert.equal(unknown.status, 404);
  const sub = (await websubStore(h.app).find(await feedId()))!;
  const unsigned = await fetch(`${h.url}/websub/${sub.callbackToken}`, {
    method: 'POST',
    body: feedXml([{ id: 'evil', title: 'Forged' }]),
  });
  assert.equal(unsigned.status, 403);
  const notFeed = await push('this is not a feed');
  assert.equal(notFeed.status, 400);
  assert.deepEqual(await titles(), ['First', 'Pushed second', 'Third by sha1']);
  // A third party cannot cancel the subscription: unsubscribe verifications are refused unless we asked.
  const cancel = await fetch(
    `${h.url}/websub/${sub.callbackToken}?hub.mode=unsubscribe&hub.topic=${encodeURIComponent(sub.topicUrl)}&hub.challenge=x`,
  );
  assert.equal(cancel.status, 404);
  const wrongTopic = await fetch(
    `${h.url}/websub/${sub.callbackToken}?hub.mode=subscribe&hub.topic=https://other.example/&hub.challenge=x`,
  );
  assert.equal(wrongTopic.status, 404);
  assert.equal((await websubStore(h.app).find(await feedId()))?.state, 'active');
});

test('polling continues beside pushes; leases are renewed before they end', async () => {
  h.feeds.routes.set('/pushed.atom', (_q, res) => {
    res.setHeader('content-type', 'application/atom+xml');
    res.end(
      feedXml([
        { id: 'e1', title: 'First' },
        { id: 'e9', title: 'Polled' },
      ]),
    );
  });
  await testSql(h.app)
    .prepare('UPDATE websub_subscriptions SET lease_expires_at = ?')
    .run(Math.floor(Date.now() / 1000) + 600); // under half the 3600 s lease
  await refreshDue(h.app, { all: true });
  await until(() => verifications.length >= 2);
  assert.ok((await titles()).includes('Polled'));
  assert.equal(requests.length, 2);
  assert.equal(requests[1]!.get('hub.mode'), 'subscribe');
  const sub = (await websubStore(h.app).find(await feedId()))!;
  assert.equal(sub.state, 'active');
  assert.ok(sub.leaseExpiresAt! > Date.now() / 1000 + 3000, 'renewed');
});

test('unsubscribed when no user follows the feed any more', async () => {
  await unsubscribe(h.app, aliceId, await feedId());
  await refreshDue(h.app);
  assert.equal(requests.length, 2, 'bob still follows it');
  await unsubscribe(h.app, bobId, await feedId());
  await refreshDue(h.app);
  await until(() => verifications.length >= 3);
  assert.equal(requests[2]!.get('hub.mode'), 'unsubscribe');
  assert.deepEqual(verifications[2], { mode: 'unsubscribe', status: 200, body: 'ch-3' });
  assert.equal(await websubStore(h.app).find(await feedId()), undefined);
});

test('hub discovery and signatures', () => {
  const body = Buffer.from(
    '<rss><channel><atom:link rel="hub" href="https://hub.example/"/><atom:link rel="self" href="/feed"/><item><link rel="hub" href="https://evil.example/"/></item></channel></rss>',
  );
  assert.deepEqual(findHub(body, 'https://site.example/rss'), {
    hub: 'https://hub.example/',
    self: 'https://site.example/feed',
  });
  assert.deepEqual(
    findHub(
      Buffer.from('<rss/>'),
      'https://s.example/f',
      '<https://hub.example/h>; rel="hub", <https://s.example/self>; rel="self"',
    ),
    { hub: 'https://hub.example/h', self: 'https://s.example/self' },
  );
  assert.equal(findHub(Buffer.from('<rss><link rel="hub" href="javascript:x"/></rss>'), 'https://s.example/f'), null);
  const b = Buffer.from('payload');
  assert.ok(signatureValid('k', b, `sha512=${createHmac('sha512', 'k').update(b).digest('hex')}`));
  assert.ok(!signatureValid('k', b, 'md5=abc'));
  assert.ok(!signatureValid('k', b, `sha256=${'0'.repeat(64)}`));
});
