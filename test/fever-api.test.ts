// A Fever client's sync sequence, written from the Fever API spec and from what Miniflux's and
// FreshRSS's Fever endpoints accept: authenticate with md5(username:fever-password), read groups,
// feeds, favicons, page items with since_id / max_id / with_ids, read the unread and saved id
// lists, mark items, feeds and groups. Two users share a feed: each sees and marks only their own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';
import { setFeverPassword } from '../src/auth/fever-credentials.ts';
import { runCli } from './helpers.ts';
import { testSql } from '../src/store/testing.ts';

let h: Harness;
let aliceKey: string, bobKey: string;
let alice: ReaderClient;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

async function fever(
  query: string,
  form: Record<string, string>,
  path = '/fever/',
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.url}${path}?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json() };
}
const as =
  (key: string) =>
  (query: string, form: Record<string, string> = {}) =>
    fever(query, { api_key: key, ...form });

before(async () => {
  h = await startHarness();
  h.feeds.addItems('shared', 60, 'Shared Feed');
  h.feeds.addItems('tech', 5, 'Tech Feed');
  await addUser(h.app, 'alice', 'account-pw-alice');
  await addUser(h.app, 'bob', 'account-pw-bob');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'account-pw-alice')}`);
  const bob = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'bob', 'account-pw-bob')}`);
  await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('shared')]]);
  const tech = (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('tech')]])).json().streamId;
  await alice.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', tech],
    ['a', S.label('Tech')],
  ]);
  await bob.post('subscription/quickadd', [['quickadd', h.feeds.url('shared')]]);
  await setFeverPassword(h.app, 'alice', 'fever-pw-alice');
  await setFeverPassword(h.app, 'bob', 'fever-pw-bob');
  aliceKey = md5('alice:fever-pw-alice');
  bobKey = md5('bob:fever-pw-bob');
});
after(async () => {
  await h.close();
});

test('auth: the Fever key authenticates; wrong keys, the account password and a missing key get auth 0', async () => {
  const ok = await as(aliceKey)('api');
  assert.equal(ok.status, 200);
  assert.equal(ok.body.api_version, 3);
  assert.equal(ok.body.auth, 1);
  assert.equal(typeof ok.body.last_refreshed_on_time, 'number');
  assert.ok(ok.body.last_refreshed_on_time > 0);
  for (const key of [md5('alice:wrong'), md5('alice:account-pw-alice'), 'not-hex', aliceKey.slice(1)]) {
    const r = await as(key)('api&items');
    assert.equal(r.status, 200);
    assert.equal(r.body.auth, 0, key);
    assert.equal(r.body.items, undefined, 'nothing is answered without auth');
    assert.match(r.body.error, /api_key/);
  }
  const none = await fever('api', {});
  assert.equal(none.body.auth, 0);
  assert.match(none.body.error, /missing api_key/);
  // Upper-case hex (some clients) and FreshRSS's path work too; the key may also come in the query string.
  assert.equal((await fever('api', { api_key: aliceKey.toUpperCase() }, '/api/fever.php')).body.auth, 1);
  const q = await fetch(`${h.url}/fever/?api&api_key=${aliceKey}`);
  assert.equal(((await q.json()) as any).auth, 1);
});

test('the stored credential is not the key: a database copy alone does not authenticate', async () => {
  const rows = await testSql(h.app).prepare('SELECT key_mac FROM fever_credentials').all<{ key_mac: string }>();
  assert.equal(rows.length, 2);
  for (const r of rows) {
    assert.notEqual(r.key_mac, aliceKey);
    assert.notEqual(r.key_mac, bobKey);
    assert.ok(!r.key_mac.includes(aliceKey));
  }
});

test('the Fever password must differ from the account password and be long enough', async () => {
  await assert.rejects(setFeverPassword(h.app, 'alice', 'account-pw-alice'), /differ from the account password/);
  await assert.rejects(setFeverPassword(h.app, 'alice', 'short'), /at least 8/);
  assert.equal((await as(aliceKey)('api')).body.auth, 1, 'a refused change keeps the old key');
});

test('groups, feeds and feeds_groups describe the subscriptions and folders', async () => {
  const g = (await as(aliceKey)('api&groups')).body;
  assert.deepEqual(
    g.groups.map((x: any) => x.title),
    ['Tech'],
  );
  const techGroup = g.groups[0].id;
  const f = (await as(aliceKey)('api&feeds')).body;
  assert.equal(f.feeds.length, 2);
  for (const feed of f.feeds) {
    assert.deepEqual(Object.keys(feed).sort(), [
      'favicon_id',
      'id',
      'is_spark',
      'last_updated_on_time',
      'site_url',
      'title',
      'url',
    ]);
    assert.equal(feed.is_spark, 0);
    assert.ok(feed.last_updated_on_time > 0);
  }
  const tech = f.feeds.find((x: any) => x.title === 'Tech Feed');
  assert.deepEqual(f.feeds_groups, [{ group_id: techGroup, feed_ids: String(tech.id) }]);
  assert.deepEqual(g.feeds_groups, f.feeds_groups);
  const b = (await as(bobKey)('api&feeds&groups')).body;
  assert.deepEqual(b.groups, []);
  assert.deepEqual(
    b.feeds.map((x: any) => x.title),
    ['Shared Feed'],
  );
  assert.ok(Array.isArray((await as(aliceKey)('api&favicons')).body.favicons));
  assert.deepEqual((await as(aliceKey)('api&links')).body.links, []);
});

test('items page forward with since_id and backward with max_id, 50 at a time, over every item once', async () => {
  const first = (await as(aliceKey)('api&items')).body;
  assert.equal(first.total_items, 65);
  assert.equal(first.items.length, 50);
  const it = first.items[0];
  assert.deepEqual(Object.keys(it).sort(), [
    'author',
    'created_on_time',
    'feed_id',
    'html',
    'id',
    'is_read',
    'is_saved',
    'title',
    'url',
  ]);
  assert.equal(typeof it.id, 'number');
  assert.equal(it.is_read, 0);
  assert.ok(!it.html.includes('<script'), 'html is the sanitized content');
  const forward: number[] = [];
  const techIds: number[] = [];
  for (let since = 0; ; ) {
    const page = (await as(aliceKey)(`api&items&since_id=${since}`)).body.items as { id: number; title: string }[];
    if (!page.length) break;
    assert.ok(page.length <= 50);
    forward.push(...page.map((x) => x.id));
    techIds.push(...page.filter((x) => x.title.startsWith('Tech')).map((x) => x.id));
    since = Math.max(...page.map((x) => x.id));
  }
  assert.equal(forward.length, 65);
  assert.deepEqual(
    forward,
    [...forward].sort((a, b) => a - b),
  );
  const backward: number[] = [];
  for (let max = 0; ; ) {
    const page = (await as(aliceKey)(`api&items&max_id=${max}`)).body.items as { id: number }[];
    if (!page.length) break;
    backward.push(...page.map((x) => x.id));
    max = Math.min(...page.map((x) => x.id));
  }
  assert.deepEqual(backward, [...forward].reverse());
  const some = (await as(aliceKey)(`api&items&with_ids=${forward[3]},${forward[1]}, ${forward[2]}`)).body.items.map(
    (x: any) => x.id,
  );
  assert.deepEqual(some, [forward[1], forward[2], forward[3]]);
  // Bob's items are the shared feed's 60 only; alice's Tech items are not visible to him even by id.
  assert.equal(techIds.length, 5);
  assert.deepEqual((await as(bobKey)(`api&items&with_ids=${techIds.join(',')}`)).body.items, []);
  assert.equal((await as(bobKey)('api&items')).body.total_items, 60);
});

test('unread and saved ids; mark item read/unread/saved/unsaved, shown to the Reader API too, per user', async () => {
  const unread = (await as(aliceKey)('api&unread_item_ids')).body.unread_item_ids as string;
  const ids = unread.split(',').map(Number);
  assert.equal(ids.length, 65);
  assert.equal((await as(aliceKey)('api&saved_item_ids')).body.saved_item_ids, '');
  const target = ids.find((id) => ids.includes(id))!;
  const r = await as(aliceKey)('api', { mark: 'item', as: 'read', id: String(target) });
  assert.equal(r.status, 200);
  assert.ok(!r.body.unread_item_ids.split(',').includes(String(target)), 'the answer carries the new unread list');
  const s = await as(aliceKey)('api', { mark: 'item', as: 'saved', id: String(target) });
  assert.equal(s.body.saved_item_ids, String(target));
  const contents = (await alice.get('stream/items/contents', [['i', String(target)]])).json();
  assert.ok(contents.items[0].categories.includes(S.read));
  assert.ok(contents.items[0].categories.includes(S.starred));
  // Bob follows the same feed: his copy of the item is untouched.
  assert.ok((await as(bobKey)('api&unread_item_ids')).body.unread_item_ids.split(',').includes(String(target)));
  assert.equal((await as(bobKey)('api&saved_item_ids')).body.saved_item_ids, '');
  // Bob marking alice's item changes nothing of alice's.
  await as(bobKey)('api', { mark: 'item', as: 'unsaved', id: String(target) });
  assert.equal((await as(aliceKey)('api&saved_item_ids')).body.saved_item_ids, String(target));
  await as(aliceKey)('api', { mark: 'item', as: 'unread', id: String(target) });
  await as(aliceKey)('api', { mark: 'item', as: 'unsaved', id: String(target) });
  assert.equal((await as(aliceKey)('api&unread_item_ids')).body.unread_item_ids.split(',').length, 65);
  assert.equal((await as(aliceKey)('api&saved_item_ids')).body.saved_item_ids, '');
});

test('mark feed and group read up to `before`; group 0 is everything; unknown ids are refused', async () => {
  const feeds = (await as(aliceKey)('api&feeds&groups')).body;
  const shared = feeds.feeds.find((x: any) => x.title === 'Shared Feed');
  const techGroup = feeds.groups[0].id;
  // before older than every crawl: nothing is marked.
  await as(aliceKey)('api', { mark: 'feed', as: 'read', id: String(shared.id), before: '1000000' });
  assert.equal((await as(aliceKey)('api&unread_item_ids')).body.unread_item_ids.split(',').length, 65);
  const now = String(Math.floor(Date.now() / 1000) + 1);
  const r = await as(aliceKey)('api', { mark: 'feed', as: 'read', id: String(shared.id), before: now });
  assert.equal(r.body.unread_item_ids.split(',').length, 5);
  assert.equal(
    (await as(bobKey)('api&unread_item_ids')).body.unread_item_ids.split(',').length,
    60,
    "bob's copy stays unread",
  );
  const counts = (await alice.get('unread-count')).json();
  assert.equal(counts.unreadcounts.find((c: any) => c.id === S.readingList).count, 5, 'unread counters follow');
  const g = await as(aliceKey)('api', { mark: 'group', as: 'read', id: String(techGroup), before: now });
  assert.equal(g.body.unread_item_ids, '');
  await as(bobKey)('api', { mark: 'group', as: 'read', id: '-1', before: now });
  assert.equal((await as(bobKey)('api&unread_item_ids')).body.unread_item_ids.split(',').length, 60, 'Sparks is empty');
  await as(bobKey)('api', { mark: 'group', as: 'read', id: '0', before: now });
  assert.equal((await as(bobKey)('api&unread_item_ids')).body.unread_item_ids, '');
  assert.equal((await as(bobKey)('api', { mark: 'feed', as: 'read', id: '999999' })).status, 404);
  assert.equal(
    (await as(bobKey)('api', { mark: 'group', as: 'read', id: String(techGroup) })).status,
    404,
    "alice's group is unknown to bob",
  );
});

test('bad input gets a clear error and changes nothing', async () => {
  const bad = [
    [{ mark: 'item', as: 'bogus', id: '1' }, /as=read, unread, saved or unsaved/],
    [{ mark: 'item', as: 'read' }, /needs id/],
    [{ mark: 'item', as: 'read', id: 'abc' }, /item ids/],
    [{ mark: 'feed', as: 'unread', id: '1' }, /as=read only/],
    [{ mark: 'nothing' }, /item, feed or group/],
  ] as const;
  for (const [form, msg] of bad) {
    const r = await as(aliceKey)('api', { ...form });
    assert.equal(r.status, 400, JSON.stringify(form));
    assert.match(r.body.error, msg);
  }
  const many = Array.from({ length: 51 }, (_, i) => i + 1).join(',');
  assert.match((await as(aliceKey)(`api&items&with_ids=${many}`)).body.error, /at most 50/);
  assert.equal((await as(aliceKey)('api&items&since_id=-4')).status, 400);
});

test('multipart form bodies (some iOS clients) are read', async () => {
  const form = new FormData();
  form.set('api_key', aliceKey);
  const res = await fetch(`${h.url}/fever/?api&groups`, { method: 'POST', body: form });
  const body = (await res.json()) as any;
  assert.equal(body.auth, 1);
  assert.deepEqual(
    body.groups.map((g: any) => g.title),
    ['Tech'],
  );
});

test('CLI: fever-password generates a password that works, refuses the account password, disables', async () => {
  const data = h.app.config.dataDir;
  const env = { TIDINGS_DATA: data };
  const gen = await runCli(['fever-password', 'bob'], env);
  assert.equal(gen.code, 0, gen.stderr);
  const password = gen.stdout.trim().split('\n').at(-1)!;
  assert.ok(password.length >= 16);
  assert.equal((await as(md5(`bob:${password}`))('api')).body.auth, 1);
  assert.equal((await as(bobKey)('api')).body.auth, 0, 'the previous key stops working');
  const same = await runCli(['fever-password', 'bob', '--password', 'account-pw-bob'], env);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /differ from the account password/);
  assert.equal((await runCli(['fever-password', 'nobody'], env)).code, 1);
  const off = await runCli(['fever-password', 'bob', '--disable'], env);
  assert.equal(off.code, 0, off.stderr);
  assert.equal((await as(md5(`bob:${password}`))('api')).body.auth, 0);
});

test('repeated wrong keys from one address are throttled (429), the right key still needs to wait', async () => {
  let last = 0;
  for (let i = 0; i < 12; i++) last = (await as(md5(`x:${i}`))('api')).status;
  assert.equal(last, 429);
  assert.equal((await as(aliceKey)('api')).status, 429, 'the address waits, whatever key it sends next');
});
