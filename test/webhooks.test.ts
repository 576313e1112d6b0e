// Webhooks against a local receiver: new items (after the user's rules) and starring arrive as
// signed JSON, failed deliveries are retried with back-off and logged, and targets on private
// addresses are refused unless TIDINGS_ALLOW_PRIVATE_NETWORKS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';
import { refreshFeed } from '../src/feeds/index.ts';
import { addRule } from '../src/rules/rules.ts';
import { sealSecret } from '../src/secrets/keys.ts';
import {
  addWebhook,
  deliverDueWebhooks,
  webhookStore,
  webhooksIdle,
  retryDelaySeconds,
  WebhookInputError,
} from '../src/webhooks/webhooks.ts';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { runCli, tempDataDir } from './helpers.ts';
import { Browser } from './web-api-client.ts';
import { setFeverPassword } from '../src/auth/fever-credentials.ts';
import { testSql } from '../src/store/testing.ts';

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
let h: Harness;
let receiver: Server;
let receiverBase = '';
const received: Received[] = [];
let failuresLeft = 0;
let alice: ReaderClient;
let aliceId: number;
const SECRET = 'a-long-shared-secret-value';

const feedId = async (name: string) =>
  (await testSql(h.app).prepare('SELECT id FROM feeds WHERE url = ?').get<{ id: number }>(h.feeds.url(name)))!.id;
const verify = (r: Received) =>
  r.headers['x-tidings-signature-256'] === 'sha256=' + createHmac('sha256', SECRET).update(r.body).digest('hex');

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(500).end('receiver is down');
        return;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  h = await startHarness({ webhookRetrySeconds: 1 });
  h.feeds.addItems('news', 2, 'News');
  aliceId = await addUser(h.app, 'alice', 'pw-alice-secret');
  await addUser(h.app, 'bob', 'pw-bob-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  const bob = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'bob', 'pw-bob-secret')}`);
  await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('news')]]);
  await bob.post('subscription/quickadd', [['quickadd', h.feeds.url('news')]]);
});
after(async () => {
  await h.close();
  await new Promise((r) => receiver.close(r));
});

test('new items after rules, signed; starring; one delivery per change; other users get nothing', async () => {
  const { webhook } = await addWebhook(h.app, aliceId, `${receiverBase}/hook`, ['new-item,starred'], SECRET);
  await addRule(h.app, aliceId, {
    conditions: [{ field: 'title', kind: 'regex', pattern: 'post 4' }],
    action: 'block',
  });
  h.feeds.addItems('news', 3, 'News'); // posts 3, 4, 5
  await refreshFeed(h.app, await feedId('news'));
  await webhooksIdle(h.app);
  assert.equal(received.length, 1);
  const r = received[0]!;
  assert.equal(r.path, '/hook');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['x-tidings-event'], 'new-item');
  assert.match(String(r.headers['x-tidings-delivery']), /^\d+$/);
  assert.ok(verify(r), 'HMAC-SHA256 of the body under the secret');
  const body = JSON.parse(r.body);
  assert.equal(body.event, 'new-item');
  assert.equal(body.webhook_id, webhook.id);
  assert.deepEqual(
    body.items.map((i: any) => i.title).sort(),
    ['News post 3 & more', 'News post 5 & more'],
    "the blocked item is not sent: the user's view",
  );
  assert.equal(body.items[0].feed.url, h.feeds.url('news'));
  // Starring through the Reader API: one delivery with that item; starring it again sends nothing.
  const id = body.items[0].id;
  await alice.post('edit-tag', [
    ['i', id],
    ['a', S.starred],
  ]);
  await webhooksIdle(h.app);
  await alice.post('edit-tag', [
    ['i', id],
    ['a', S.starred],
  ]);
  await webhooksIdle(h.app);
  assert.equal(received.length, 2);
  assert.equal(received[1]!.headers['x-tidings-event'], 'starred');
  assert.deepEqual(
    JSON.parse(received[1]!.body).items.map((i: any) => i.id),
    [id],
  );
  assert.ok(verify(received[1]!));
});

test('failed deliveries are retried with back-off and logged; the log shows each outcome', async () => {
  received.length = 0;
  failuresLeft = 2;
  h.feeds.addItems('news', 1, 'News');
  await refreshFeed(h.app, await feedId('news'));
  await webhooksIdle(h.app);
  assert.equal(received.length, 1);
  let log = await webhookStore(h.app).deliveries(aliceId, null, 1);
  assert.equal(log[0]!.status, 'pending');
  assert.equal(log[0]!.attempts, 1);
  assert.match(log[0]!.lastError!, /HTTP 500: receiver is down/);
  // The retries go out by themselves (1 s, then 2 s), signed with the same body.
  const deadline = Date.now() + 10_000;
  while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  await webhooksIdle(h.app);
  assert.equal(received.length, 3);
  assert.equal(received[0]!.body, received[2]!.body);
  assert.ok(received.every(verify));
  log = await webhookStore(h.app).deliveries(aliceId, null, 1);
  assert.equal(log[0]!.status, 'delivered');
  assert.equal(log[0]!.attempts, 3);
  assert.equal(log[0]!.lastStatus, 204);
  assert.deepEqual(
    [1, 2, 3, 7].map((n) => retryDelaySeconds(30, n)),
    [30, 60, 120, 1920],
  );
  const cli = await runCli(['webhook', 'deliveries', 'alice', '--json'], { TIDINGS_DATA: h.app.config.dataDir });
  assert.equal(cli.code, 0, cli.stderr);
  assert.ok(JSON.parse(cli.stdout).every((d: any) => d.status === 'delivered'));
});

test('bad targets and bad input are refused with what to fix', async () => {
  const strict = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: tempDataDir(), logLevel: 'silent', schedulerEnabled: false } }),
    silentLogger,
  );
  try {
    const u = (await strict.users.create('carol', 'x')).id;
    // 1 MiB URLs and secrets were stored as given (issue 25).
    await assert.rejects(
      addWebhook(strict, u, `https://hooks.example/${'x'.repeat(1024 * 1024)}`, ['starred']),
      /the webhook URL is 1048598 characters long: at most 2048/,
    );
    await assert.rejects(
      addWebhook(strict, u, 'https://hooks.example/h', ['starred'], 's'.repeat(1024 * 1024)),
      /the secret is 1048576 characters long: at most 256/,
    );
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.0.0.5/hook',
      'http://[::1]/x',
      'http://localhost/hook',
      'http://169.254.169.254/latest',
    ]) {
      await assert.rejects(
        addWebhook(strict, u, url, ['new-item']),
        (e: Error) =>
          e instanceof WebhookInputError &&
          /refusing a webhook target on .* address/.test(e.message) &&
          /TIDINGS_ALLOW_PRIVATE_NETWORKS/.test(e.message),
        url,
      );
    }
    await assert.rejects(addWebhook(strict, u, 'ftp://example.org/x', ['new-item']), /scheme/);
    await assert.rejects(addWebhook(strict, u, 'https://hooks.example/x', ['deleted']), /unknown event "deleted"/);
    await assert.rejects(addWebhook(strict, u, 'https://hooks.example/x', ['']), /say which events/);
    await assert.rejects(addWebhook(strict, u, 'https://hooks.example/x', ['starred'], 'short'), /at least 16/);
    // A target stored earlier (or a name that resolves to a private address) is refused at delivery and logged.
    const w = await webhookStore(strict).create(
      {
        userId: u,
        url: 'http://localhost:9/hook',
        events: ['starred'],
        secretBox: await sealSecret(strict, 'x'.repeat(20)),
      },
      0,
    );
    await webhookStore(strict).enqueue(w.id, 'starred', '{}', 0);
    await deliverDueWebhooks(strict);
    const d = (await webhookStore(strict).deliveries(u, w.id, 1))[0]!;
    assert.equal(d.status, 'pending');
    assert.match(d.lastError!, /refusing to fetch loopback address localhost/);
  } finally {
    await strict.close();
  }
  const cli = await runCli(['webhook', 'add', 'alice', 'https://hooks.example/new', '--events', 'new-item'], {
    TIDINGS_DATA: h.app.config.dataDir,
  });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /signing secret \(shown once\): \S{20,}/);
  const list = JSON.parse(
    (await runCli(['webhook', 'list', 'alice', '--json'], { TIDINGS_DATA: h.app.config.dataDir })).stdout,
  );
  assert.equal(list.length, 2);
  assert.ok(!JSON.stringify(list).includes(SECRET), 'secrets are never listed');
  const stored = await testSql(h.app).prepare('SELECT secret_box FROM webhooks').all<{ secret_box: string }>();
  assert.ok(
    stored.every(
      (r) => !r.secret_box.includes(SECRET) && !r.secret_box.includes(Buffer.from(SECRET).toString('base64url')),
    ),
  );
  assert.equal(
    (await runCli(['webhook', 'remove', 'alice', String(list[1].id)], { TIDINGS_DATA: h.app.config.dataDir })).code,
    0,
  );
});

test('the starred webhook fires once when an article is starred from any client: web app, Reader API, Fever, a rule', async () => {
  const daveId = await addUser(h.app, 'dave', 'pw-dave-secret');
  const dave = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'dave', 'pw-dave-secret')}`);
  await dave.post('subscription/quickadd', [['quickadd', h.feeds.url('news')]]);
  await addWebhook(h.app, daveId, `${receiverBase}/dave`, ['starred'], SECRET);
  const items = (
    await testSql(h.app)
      .prepare('SELECT item_id FROM user_items WHERE user_id = ? ORDER BY item_id')
      .all<{ item_id: number }>(daveId)
  ).map((r) => r.item_id);
  assert.ok(items.length >= 3, 'dave has articles to star');
  const [viaWeb, viaReader, viaFever] = items as [number, number, number];
  const starredAt = async (): Promise<number[][]> => {
    await webhooksIdle(h.app);
    return received
      .filter((r) => r.path === '/dave')
      .map((r) => {
        assert.equal(r.headers['x-tidings-event'], 'starred');
        assert.ok(verify(r));
        return JSON.parse(r.body).items.map((i: any) => Number(i.id));
      });
  };

  const web = new Browser(h.url);
  assert.equal((await web.call('POST', '/session', { username: 'dave', password: 'pw-dave-secret' })).status, 200);
  const star = () => web.call('PATCH', `/articles/${viaWeb}`, { starred: true });
  assert.equal((await star()).status, 200);
  assert.deepEqual(await starredAt(), [[viaWeb]], 'the web app');
  assert.equal((await star()).status, 200); // already starred: nothing new
  assert.deepEqual(await starredAt(), [[viaWeb]]);

  await dave.post('edit-tag', [
    ['i', String(viaReader)],
    ['a', S.starred],
  ]);
  assert.deepEqual((await starredAt()).at(-1), [viaReader], 'the Reader API');

  await setFeverPassword(h.app, 'dave', 'fever-pw-dave');
  const fever = await fetch(`${h.url}/fever/?api`, {
    method: 'POST',
    body: new URLSearchParams({
      api_key: createHash('md5').update('dave:fever-pw-dave').digest('hex'),
      mark: 'item',
      as: 'saved',
      id: `${viaFever},${viaWeb}`,
    }),
  });
  assert.equal(fever.status, 200);
  assert.deepEqual((await starredAt()).at(-1), [viaFever], 'Fever (the item starred before is not sent again)');

  const next = (h.feeds.feeds.get('news')?.items.length ?? 0) + 1;
  await addRule(h.app, daveId, {
    conditions: [{ field: 'title', kind: 'regex', pattern: `post ${next} ` }],
    action: 'star',
  });
  h.feeds.addItems('news', 1, 'News');
  await refreshFeed(h.app, await feedId('news'));
  const byRule = (await starredAt()).at(-1)!;
  assert.equal(byRule.length, 1, 'a rule');
  assert.ok(!items.includes(byRule[0]!), 'the new article the rule starred');
  assert.equal((await starredAt()).length, 4, 'one delivery per client');
});

test("one user's receivers that never answer do not delay another user's delivery (per-user and per-host caps)", async () => {
  // carol's 6 webhooks point at a server that accepts and never answers: each attempt waits the
  // whole fetch time limit. Before the caps they took all 4 delivery slots, and dave's delivery
  // waited for them (99 s in the attack of issue 25).
  const sockets = new Set<import('node:net').Socket>();
  const silent = (await import('node:net')).createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const silentBase = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const h2 = await startHarness({ fetchTimeoutMs: 20_000 });
  try {
    const carol = await addUser(h2.app, 'carol', 'pw-carol-secret');
    const dave = await addUser(h2.app, 'dave', 'pw-dave-secret');
    const store = webhookStore(h2.app);
    const past = Math.floor(Date.now() / 1000) - 1;
    for (let i = 0; i < 6; i++) {
      const { webhook } = await addWebhook(h2.app, carol, `${silentBase}/stuck${i}`, ['starred']);
      await store.enqueue(webhook.id, 'starred', '{"n":' + i + '}', past);
    }
    const draining = deliverDueWebhooks(h2.app); // carol's deliveries now hang in flight
    await new Promise((r) => setTimeout(r, 300));
    const before = received.length;
    const { webhook } = await addWebhook(h2.app, dave, `${receiverBase}/dave`, ['starred'], SECRET);
    await store.enqueue(webhook.id, 'starred', '{"dave":true}', past);
    const t0 = Date.now();
    void deliverDueWebhooks(h2.app);
    while (!received.slice(before).some((r) => r.path === '/dave') && Date.now() - t0 < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    const waited = Date.now() - t0;
    assert.ok(
      received.slice(before).some((r) => r.path === '/dave'),
      "dave's delivery went out while carol's still hung",
    );
    assert.ok(waited < 5_000, `dave's delivery waited ${waited} ms behind carol's stuck receivers`);
    assert.equal(sockets.size, 2, "carol's receivers hold 2 slots, not all 4");
    void draining.catch(() => {});
  } finally {
    for (const s of sockets) s.destroy();
    await h2.close();
    await new Promise((r) => silent.close(r));
  }
});
