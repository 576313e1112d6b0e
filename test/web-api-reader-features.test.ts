// The reader features through the web API (/api/v1) over a real server on 127.0.0.1: filter rules
// (seen in the web app's lists and by a Google Reader client), webhooks (the SSRF guard on targets,
// a signed delivery to a local receiver, the delivery log), a subscription's full text (pages
// served locally) and the Fever password (checked against /fever/ itself). Every route is scoped
// to the signed-in user and needs the CSRF token with the session cookie.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientLogin, ReaderClient, S, startHarness, type Harness } from './reader-harness.ts';
import { Browser, setUp } from './web-api-client.ts';
import { articlePage, paragraph, sendHtml } from './fulltext-fixtures.ts';
import { webhooksIdle } from '../src/webhooks/webhooks.ts';
import { fullTextIdle } from '../src/feeds/fulltext/fulltext.ts';

/** The admin of setUp plus a second user, bob, each signed in with a session. */
async function twoUsers(h: Harness): Promise<{ admin: Browser; bob: Browser }> {
  const admin = await setUp(h);
  assert.equal((await admin.call('POST', '/admin/users', { username: 'bob', password: 'bobs password' })).status, 201);
  const bob = new Browser(h.url);
  assert.equal((await bob.call('POST', '/session', { username: 'bob', password: 'bobs password' })).status, 200);
  return { admin, bob };
}

async function subscribe(b: Browser, url: string): Promise<number> {
  const r = await b.call('POST', '/feeds', { url });
  assert.equal(r.status, 201, r.text);
  return r.json.feedId;
}

const titles = async (b: Browser, feedId: number): Promise<string[]> =>
  (await b.call('GET', `/articles?view=all&feed=${feedId}&limit=100`)).json.items
    .map((i: { title: string }) => i.title)
    .sort();

test('rules: create with the safe-regex check, applied retroactively and at ingest, seen by a Reader client; scoped per user', async () => {
  const h = await startHarness();
  try {
    const { admin, bob } = await twoUsers(h);
    h.feeds.addItems('news', 4, 'News');
    const feedId = await subscribe(admin, h.feeds.url('news'));
    await subscribe(bob, h.feeds.url('news'));
    assert.equal((await titles(admin, feedId)).length, 4);

    // Bad input: each refusal says what to fix, and nothing is stored.
    const hostile = await admin.call('POST', '/rules', {
      conditions: [{ field: 'title', kind: 'regex', pattern: '(a+)+$' }],
      action: 'block',
    });
    assert.equal(hostile.status, 400);
    assert.equal(hostile.json.error.code, 'bad_rule');
    assert.match(hostile.json.error.message, /exponential time/);
    const broken = await admin.call('POST', '/rules', {
      conditions: [{ field: 'title', kind: 'regex', pattern: 'post (' }],
      action: 'block',
    });
    assert.match(broken.json.error.message, /not a valid regular expression/);
    assert.match(
      (await admin.call('POST', '/rules', { conditions: [{ field: 'title', pattern: 'x' }], action: 'explode' })).json
        .error.message,
      /unknown action "explode"/,
    );
    assert.match(
      (await admin.call('POST', '/rules', { conditions: [], action: 'block' })).json.error.message,
      /at least one condition/,
    );
    assert.match(
      (
        await admin.call('POST', '/rules', {
          conditions: [{ field: 'colour', kind: 'words', pattern: 'red' }],
          action: 'block',
        })
      ).json.error.message,
      /unknown field "colour"/,
    );
    const noList = await admin.call('POST', '/rules', { conditions: 'title has rocket', action: 'block' });
    assert.equal(noList.json.error.field, 'conditions');
    assert.match(
      (
        await admin.call('POST', '/rules', {
          feed: 'https://not.followed.example/feed',
          conditions: [{ field: 'title', pattern: 'x' }],
          action: 'block',
        })
      ).json.error.message,
      /not subscribed/,
    );
    assert.deepEqual((await admin.call('GET', '/rules')).json.rules, []);

    // Block posts 2 and 3 of this feed, applied to the stored items at once.
    const block = await admin.call('POST', '/rules', {
      feed: feedId,
      conditions: [{ field: 'title', kind: 'regex', pattern: 'post [236]\\b' }],
      action: 'block',
      apply: true,
    });
    assert.equal(block.status, 201, block.text);
    assert.deepEqual(block.json.applied, { matched: 2, changed: 2 });
    assert.deepEqual(block.json.rule.scope, { kind: 'feed', feedId, url: h.feeds.url('news') });
    assert.deepEqual(await titles(admin, feedId), ['News post 1 & more', 'News post 4 & more']);
    assert.equal((await titles(bob, feedId)).length, 4, "bob's view of the shared feed is untouched");
    // A label rule (words form), applied on request.
    const label = await admin.call('POST', '/rules', {
      conditions: [{ field: 'title', kind: 'words', pattern: 'more' }],
      action: 'label',
      label: 'Digest',
    });
    assert.equal(label.status, 201, label.text);
    assert.equal(label.json.applied, null);
    assert.deepEqual((await admin.call('POST', `/rules/${label.json.rule.id}/apply`)).json, { matched: 2, changed: 2 });

    // New items at ingest: post 6 is hidden by the block rule, post 5 gets the label.
    h.feeds.addItems('news', 2, 'News');
    assert.equal((await admin.call('POST', `/feeds/${feedId}/refresh`)).json.added, 2);
    assert.deepEqual(await titles(admin, feedId), ['News post 1 & more', 'News post 4 & more', 'News post 5 & more']);

    // A Google Reader client sees the same: blocked items absent, the label as a category.
    const reader = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'admin', 'correct horse')}`);
    const stream = (await reader.get(`stream/contents/${encodeURIComponent(S.readingList)}`, [['n', '50']])).json();
    assert.deepEqual(stream.items.map((i: { title: string }) => i.title).sort(), [
      'News post 1 & more',
      'News post 4 & more',
      'News post 5 & more',
    ]);
    for (const item of stream.items)
      assert.ok(
        item.categories.some((c: string) => c.endsWith('/label/Digest')),
        `${item.title} carries the label`,
      );

    // Another user's rule is a 404, as an unknown one; bob sees none of admin's rules.
    const blockId = block.json.rule.id;
    assert.deepEqual((await bob.call('GET', '/rules')).json.rules, []);
    for (const [method, path] of [
      ['DELETE', `/rules/${blockId}`],
      ['POST', `/rules/${blockId}/apply`],
      ['DELETE', '/rules/9999'],
    ] as const) {
      const r = await bob.call(method, path);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.json.error.code, 'not_found');
    }
    assert.equal((await admin.call('DELETE', '/rules/abc')).status, 400);

    // Listing shows both; deleting the block rule brings its items back.
    const listed = (await admin.call('GET', '/rules')).json.rules;
    assert.deepEqual(
      listed.map((r: { action: string }) => r.action),
      ['block', 'label'],
    );
    assert.equal(listed[0].userId, undefined);
    assert.deepEqual((await admin.call('DELETE', `/rules/${blockId}`)).json, { restored: 3 });
    assert.equal((await titles(admin, feedId)).length, 6);
  } finally {
    await h.close();
  }
});

test('webhooks: private targets refused unless allowed; secret shown once; signed delivery and its log; scoped per user', async () => {
  // The guard as deployed: private networks refused.
  const guarded = await startHarness({ allowPrivateNetworks: false });
  try {
    const b = await setUp(guarded);
    for (const url of [
      'http://127.0.0.1:9000/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://localhost/hook',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const r = await b.call('POST', '/webhooks', { url, events: ['new-item'] });
      assert.equal(r.status, 400, url);
      assert.equal(r.json.error.code, 'bad_webhook');
      assert.match(r.json.error.message, /refusing a webhook target on/, url);
    }
    assert.match(
      (await b.call('POST', '/webhooks', { url: 'ftp://hooks.example/x', events: ['new-item'] })).json.error.message,
      /webhook targets are allowed/,
    );
    assert.match(
      (await b.call('POST', '/webhooks', { url: 'https://hooks.example/x', events: ['deleted'] })).json.error.message,
      /unknown event "deleted"/,
    );
    assert.match(
      (await b.call('POST', '/webhooks', { url: 'https://hooks.example/x', events: [] })).json.error.message,
      /which events/,
    );
    assert.match(
      (await b.call('POST', '/webhooks', { url: 'https://hooks.example/x', events: ['starred'], secret: 'short' })).json
        .error.message,
      /at least 16 characters/,
    );
    assert.equal((await b.call('POST', '/webhooks', {})).json.error.field, 'url');
    assert.deepEqual((await b.call('GET', '/webhooks')).json.webhooks, []);
    const ok = await b.call('POST', '/webhooks', { url: 'https://hooks.example/new', events: ['new-item', 'starred'] });
    assert.equal(ok.status, 201, ok.text);
    assert.match(ok.json.secret, /^[\w-]{32}$/);
  } finally {
    await guarded.close();
  }

  // With allowPrivateNetworks (the harness default), a local receiver gets signed deliveries.
  const h = await startHarness();
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const { admin, bob } = await twoUsers(h);
    h.feeds.addItems('hooked', 2, 'Hooked');
    const feedId = await subscribe(admin, h.feeds.url('hooked'));
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await admin.call('POST', '/webhooks', { url: target, events: 'new-item' });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.json;
    const listed = (await admin.call('GET', '/webhooks')).json.webhooks;
    assert.deepEqual(
      listed.map((w: { id: number; url: string; events: string[] }) => [w.id, w.url, w.events]),
      [[id, target, ['new-item']]],
    );
    assert.ok(!JSON.stringify(listed).includes(secret), 'the secret is never listed');

    h.feeds.addItems('hooked', 1, 'Hooked');
    await admin.call('POST', `/feeds/${feedId}/refresh`);
    await webhooksIdle(h.app);
    assert.equal(received.length, 1);
    const got = received[0]!;
    assert.equal(
      got.headers['x-tidings-signature-256'],
      `sha256=${createHmac('sha256', secret).update(got.body).digest('hex')}`,
      'signed with the secret shown at creation',
    );
    assert.deepEqual(
      JSON.parse(got.body).items.map((i: { title: string }) => i.title),
      ['Hooked post 3 & more'],
    );
    const log = (await admin.call('GET', `/webhooks/deliveries?webhook=${id}`)).json.deliveries;
    assert.equal(log.length, 1);
    assert.equal(log[0].status, 'delivered');
    assert.equal(log[0].lastStatus, 204);
    assert.equal(log[0].webhookId, id);
    assert.equal((await admin.call('GET', '/webhooks/deliveries?limit=0')).json.error.field, 'limit');

    // Another user's webhook is a 404, its log too; bob's own log is empty.
    assert.equal((await bob.call('DELETE', `/webhooks/${id}`)).status, 404);
    assert.equal((await bob.call('GET', `/webhooks/deliveries?webhook=${id}`)).status, 404);
    assert.deepEqual((await bob.call('GET', '/webhooks/deliveries')).json.deliveries, []);
    assert.equal((await admin.call('DELETE', `/webhooks/${id}`)).status, 204);
    assert.deepEqual((await admin.call('GET', '/webhooks')).json.webhooks, []);
    assert.equal((await admin.call('DELETE', `/webhooks/${id}`)).status, 404);
  } finally {
    await h.close();
    await new Promise((r) => receiver.close(r));
  }
});

test('full text: a subscription setting that round-trips and fetches the pages; only for your own subscriptions', async () => {
  const h = await startHarness();
  try {
    const { admin, bob } = await twoUsers(h);
    // Article pages on the local server, much longer than the feed's text.
    const items = h.feeds.addItems('teasers', 3, 'Teasers');
    items.forEach((it, i) => {
      it.link = `${h.feeds.base}/article/${i + 1}`;
      h.feeds.routes.set(`/article/${i + 1}`, (_req, res) =>
        sendHtml(
          res,
          articlePage(`Story ${i + 1}`, [
            paragraph('rocket', i),
            paragraph('rocket', i + 10),
            paragraph('rocket', i + 20),
          ]),
        ),
      );
    });
    const feedId = await subscribe(admin, h.feeds.url('teasers'));
    const initial = await admin.call('GET', `/feeds/${feedId}/settings`);
    assert.equal(initial.status, 200, initial.text);
    assert.equal(initial.json.fullText, 'auto');
    assert.equal(initial.json.feed, h.feeds.url('teasers'));

    const on = await admin.call('PATCH', `/feeds/${feedId}/settings`, { fullText: 'on' });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.json.fullText, 'on');
    assert.equal(on.json.active, true);
    await fullTextIdle(h.app);
    assert.equal(
      (await admin.call('GET', `/feeds/${feedId}/settings`)).json.articles.withFullText,
      3,
      'turning it on fetched the recent articles',
    );
    const article = (await admin.call('GET', `/articles?view=all&feed=${feedId}`)).json.items[0];
    assert.match((await admin.call('GET', `/articles/${article.id}`)).json.html, /rocket/);

    const bad = await admin.call('PATCH', `/feeds/${feedId}/settings`, { fullText: 'maybe' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.field, 'fullText');
    assert.match(bad.json.error.message, /on, off or auto/);
    assert.equal(
      (await admin.call('PATCH', `/feeds/${feedId}/settings`, { fullTxt: 'on' })).json.error.field,
      'fullTxt',
    );
    const off = await admin.call('PATCH', `/feeds/${feedId}/settings`, { fullText: 'off' });
    assert.equal(off.json.fullText, 'off');
    assert.equal(off.json.active, false);
    assert.equal((await admin.call('GET', `/feeds/${feedId}/settings`)).json.fullText, 'off');

    // Bob does not follow this feed: his view of it is a 404, and he cannot change admin's setting.
    assert.equal((await bob.call('GET', `/feeds/${feedId}/settings`)).status, 404);
    assert.equal((await bob.call('PATCH', `/feeds/${feedId}/settings`, { fullText: 'on' })).status, 404);
    assert.equal((await admin.call('GET', `/feeds/${feedId}/settings`)).json.fullText, 'off');
  } finally {
    await h.close();
  }
});

test('Fever password: set (never the account password), replace, disable, checked against /fever/; CSRF and bearer tokens', async () => {
  const h = await startHarness();
  try {
    const { admin, bob } = await twoUsers(h);
    const feverAuth = async (user: string, password: string): Promise<number> => {
      const key = createHash('md5').update(`${user}:${password}`).digest('hex');
      const r = await fetch(`${h.url}/fever/?api`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ api_key: key }),
      });
      return ((await r.json()) as { auth: number }).auth;
    };
    const status = await admin.call('GET', '/fever');
    assert.deepEqual(status.json, { enabled: false, username: 'admin', url: `${h.url}/fever/` });

    const same = await admin.call('PUT', '/fever', { password: 'correct horse' });
    assert.equal(same.status, 400);
    assert.equal(same.json.error.code, 'bad_fever_password');
    assert.equal(same.json.error.field, 'password');
    assert.match(same.json.error.message, /differ from the account password/);
    assert.match(
      (await admin.call('PUT', '/fever', { password: 'short' })).json.error.message,
      /at least 8 characters/,
    );
    assert.equal((await admin.call('GET', '/fever')).json.enabled, false);

    const generated = await admin.call('PUT', '/fever', {});
    assert.equal(generated.status, 200, generated.text);
    assert.match(generated.json.password, /^[\w-]{20}$/);
    assert.equal((await admin.call('GET', '/fever')).json.enabled, true);
    assert.equal(await feverAuth('admin', generated.json.password), 1);
    const chosen = await admin.call('PUT', '/fever', { password: 'my fever password' });
    assert.equal(chosen.json.password, undefined, 'a chosen password is not echoed');
    assert.equal(await feverAuth('admin', generated.json.password), 0, 'the replaced password stops working');
    assert.equal(await feverAuth('admin', 'my fever password'), 1);
    // Each user has their own: bob's is off, and turning his off leaves admin's alone.
    assert.equal((await bob.call('GET', '/fever')).json.enabled, false);
    assert.equal((await bob.call('DELETE', '/fever')).status, 204);
    assert.equal(await feverAuth('admin', 'my fever password'), 1);

    // With the session cookie, every change needs X-CSRF-Token; a bearer token needs none.
    for (const [method, path, body] of [
      ['PUT', '/fever', {}],
      ['DELETE', '/fever', undefined],
      ['POST', '/rules', { conditions: [{ field: 'title', pattern: 'x' }], action: 'block' }],
      ['POST', '/webhooks', { url: 'https://hooks.example/x', events: ['starred'] }],
      ['PATCH', '/feeds/1/settings', { fullText: 'on' }],
    ] as const) {
      const res = await fetch(`${h.url}/api/v1${path}`, {
        method,
        headers: {
          cookie: admin.cookie,
          origin: h.url,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'csrf');
    }
    assert.equal(await feverAuth('admin', 'my fever password'), 1, 'the refused DELETE changed nothing');
    const token = (await admin.call('POST', '/tokens', { label: 'script' })).json.token;
    const viaToken = await fetch(`${h.url}/api/v1/fever`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(viaToken.status, 204);
    assert.equal(await feverAuth('admin', 'my fever password'), 0);
    assert.equal((await admin.call('GET', '/fever')).json.enabled, false);
  } finally {
    await h.close();
  }
});

test('the OpenAPI document lists the reader features', async () => {
  const h = await startHarness();
  try {
    const doc = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [path, methods] of Object.entries({
      '/api/v1/rules': ['get', 'post'],
      '/api/v1/rules/{id}': ['delete'],
      '/api/v1/rules/{id}/apply': ['post'],
      '/api/v1/webhooks': ['get', 'post'],
      '/api/v1/webhooks/{id}': ['delete'],
      '/api/v1/webhooks/deliveries': ['get'],
      '/api/v1/feeds/{id}/settings': ['get', 'patch'],
      '/api/v1/fever': ['get', 'put', 'delete'],
    }))
      assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
  } finally {
    await h.close();
  }
});

test('rules: one disabled for running out of time is listed as such with why, and the user enables it again', async () => {
  const h = await startHarness();
  try {
    const { admin, bob } = await twoUsers(h);
    h.feeds.addItems('slow', 1, 'Slow');
    const feedId = await subscribe(admin, h.feeds.url('slow'));
    const created = await admin.call('POST', '/rules', {
      feed: feedId,
      conditions: [{ field: 'title', kind: 'regex', pattern: '^(a|a)*b$' }],
      action: 'block',
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.rule.id;
    assert.equal(created.json.rule.disabled, false);
    // Three batches in a row where the rule runs out of time (titles of 40 a's).
    for (let i = 0; i < 3; i++) {
      const [item] = h.feeds.addItems('slow', 1);
      item!.title = 'a'.repeat(40 + i);
      assert.equal((await admin.call('POST', `/feeds/${feedId}/refresh`)).status, 200);
    }
    const listed = (await admin.call('GET', '/rules')).json.rules.find((r: { id: number }) => r.id === id);
    assert.equal(listed.disabled, true);
    assert.match(listed.disabledReason, /ran out of time 3 times in a row: simplify it, then enable it again/);
    assert.ok(listed.disabledAt);
    assert.equal((await bob.call('POST', `/rules/${id}/enable`)).status, 404, "another user's rule");
    const enabled = await admin.call('POST', `/rules/${id}/enable`);
    assert.equal(enabled.status, 200, enabled.text);
    assert.deepEqual(
      [enabled.json.rule.disabled, enabled.json.rule.disabledReason, enabled.json.rule.lastError],
      [false, null, null],
    );
  } finally {
    await h.close();
  }
});
