// Two users side by side on one server: a user never sees, counts or changes another user's
// subscriptions, item states or tags, while a feed both follow is fetched and stored once.
// Also: unread counters stay exact under concurrent writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';
import { check, ItemIds, StreamContents, SubscriptionList, TagList, UnreadCount } from './reader-schemas.ts';
import { testSql } from '../src/store/testing.ts';

let h: Harness;
let alice: ReaderClient, bob: ReaderClient;
let shared: string, secret: string;

before(async () => {
  h = await startHarness();
  h.feeds.addItems('shared', 20, 'Shared Feed');
  h.feeds.addItems('secret', 10, 'Alice Only');
  await addUser(h.app, 'alice', 'pw-alice-secret');
  await addUser(h.app, 'bob', 'pw-bob-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  bob = new ReaderClient(
    h.url,
    `GoogleLogin auth=${await clientLogin(h.url, 'bob', 'pw-bob-secret')}`,
    '/api/greader.php',
  );
  shared = (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('shared')]])).json().streamId;
  secret = (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('secret')]])).json().streamId;
  assert.equal(
    (await bob.post('subscription/quickadd', [['quickadd', h.feeds.url('shared')]])).json().streamId,
    shared,
  );
  await alice.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', secret],
    ['a', S.label('Private')],
  ]);
});
after(async () => {
  await h.close();
});

const ids = async (c: ReaderClient, q: [string, string][]) =>
  check(ItemIds, (await c.get('stream/items/ids', [...q, ['n', '10000']])).json(), 'ids').itemRefs.map((r) => r.id);
const counts = async (c: ReaderClient) => check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
const unreadOf = (uc: { unreadcounts: { id: string; count: number }[] }, id: string) =>
  uc.unreadcounts.find((u) => u.id === id)?.count;

test('a feed followed by two users is stored once; each user sees only their own subscriptions', async () => {
  const feeds = (await testSql(h.app)
    .prepare('SELECT count(*) AS n FROM feeds WHERE url = ?')
    .get(h.feeds.url('shared'))) as { n: number };
  assert.equal(feeds.n, 1);
  const items = (await testSql(h.app)
    .prepare('SELECT count(*) AS n FROM items i JOIN feeds f ON f.id = i.feed_id WHERE f.url = ?')
    .get(h.feeds.url('shared'))) as { n: number };
  assert.equal(items.n, 20);
  const bobSubs = check(SubscriptionList, (await bob.get('subscription/list')).json(), 'list');
  assert.deepEqual(
    bobSubs.subscriptions.map((s) => s.id),
    [shared],
  );
  assert.equal((await ids(bob, [['s', S.readingList]])).length, 20);
  assert.equal((await ids(alice, [['s', S.readingList]])).length, 30);
  assert.equal(unreadOf(await counts(bob), S.readingList), 20);
  assert.deepEqual(check(TagList, (await bob.get('tag/list')).json(), 'tags').tags, [{ id: S.starred }]);
});

test("another user's feed, label and items are unknown: 404, empty, unchanged", async () => {
  assert.equal((await bob.get(`stream/contents/${encodeURIComponent(secret)}`)).status, 404);
  assert.equal((await bob.get(`stream/contents/${encodeURIComponent(S.label('Private'))}`)).status, 404);
  assert.equal(
    (
      await bob.post('rename-tag', [
        ['s', S.label('Private')],
        ['dest', S.label('Mine')],
      ])
    ).status,
    404,
  );
  assert.equal((await bob.post('disable-tag', [['s', S.label('Private')]])).status, 404);
  assert.equal(
    (
      await bob.post('subscription/edit', [
        ['ac', 'unsubscribe'],
        ['s', secret],
      ])
    ).status,
    404,
  );
  // user/<alice's id>/… from bob is not bob's namespace.
  assert.equal((await bob.get('stream/items/ids', [['s', 'user/1/label/Private']])).status, 400);

  const secretIds = await ids(alice, [['s', secret]]);
  // Contents by id: bob gets nothing for alice's items; his edit-tag on them changes nothing.
  const contents = check(
    StreamContents,
    (
      await bob.post(
        'stream/items/contents',
        secretIds.map((i): [string, string] => ['i', i]),
      )
    ).json(),
    'contents',
  );
  assert.deepEqual(contents.items, []);
  assert.equal(
    (
      await bob.post('edit-tag', [
        ...secretIds.map((i): [string, string] => ['i', i]),
        ['a', S.read],
        ['a', S.starred],
        ['a', S.label('Stolen')],
      ])
    ).text,
    'OK',
  );
  assert.equal(unreadOf(await counts(alice), secret), 10);
  assert.deepEqual(await ids(alice, [['s', S.starred]]), []);
  assert.equal(
    (await bob.get('stream/items/ids', [['s', S.label('Stolen')]])).status,
    404,
    'no tag is created from ids that are not his',
  );
  assert.deepEqual(await ids(bob, [['s', S.starred]]), []);
});

test('states on a shared feed are per user', async () => {
  const sharedIds = await ids(alice, [['s', shared]]);
  assert.equal(
    (
      await alice.post('edit-tag', [
        ...sharedIds.slice(0, 5).map((i): [string, string] => ['i', i]),
        ['a', S.read],
        ['a', S.starred],
        ['a', S.label('Keep')],
      ])
    ).text,
    'OK',
  );
  assert.equal(unreadOf(await counts(alice), shared), 15);
  assert.equal(unreadOf(await counts(bob), shared), 20);
  assert.deepEqual(await ids(bob, [['s', S.starred]]), []);
  const bobView = check(
    StreamContents,
    (await bob.post('stream/items/contents', [['i', sharedIds[0]]])).json(),
    'contents',
  );
  assert.deepEqual(bobView.items[0].categories, [S.readingList], "no trace of alice's read/starred/tag");
  // Bob marks everything read: alice's counts do not move.
  assert.equal((await bob.post('mark-all-as-read', [['s', S.readingList]])).text, 'OK');
  assert.equal(unreadOf(await counts(bob), S.readingList), 0);
  assert.equal(unreadOf(await counts(alice), S.readingList), 25);
  // Bob's own label of the same name is his own.
  await bob.post('edit-tag', [
    ['i', sharedIds[9]],
    ['a', S.label('Keep')],
  ]);
  assert.deepEqual(await ids(bob, [['s', S.label('Keep')]]), [sharedIds[9]]);
  assert.deepEqual((await ids(alice, [['s', S.label('Keep')]])).sort(), sharedIds.slice(0, 5).sort());
});

test('unread counters stay exact under concurrent writes from several clients', async () => {
  const all = await ids(alice, [['s', S.readingList]]);
  // 40 overlapping requests in flight: marking read and unread, single and batched.
  const requests = Array.from({ length: 40 }, (_, k) => {
    const batch = all.filter((_, j) => (j + k) % 3 === 0).slice(0, 1 + (k % 7));
    return alice.post('edit-tag', [...batch.map((i): [string, string] => ['i', i]), [k % 2 ? 'a' : 'r', S.read]]);
  });
  const replies = await Promise.all([...requests, bob.post('mark-all-as-read', [['s', shared]])]);
  // Each refused reply with its status and body: a CI run saw one once (PostgreSQL pass, not
  // reproduced in 11 runs here), and "a falsy value" said nothing about which or why.
  assert.deepEqual(
    replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 300)}`),
    [],
    'every concurrent edit-tag and mark-all-as-read answers 200',
  );
  const unreadIds = await ids(alice, [
    ['s', S.readingList],
    ['xt', S.read],
  ]);
  const uc = await counts(alice);
  assert.equal(unreadOf(uc, S.readingList), unreadIds.length);
  assert.equal(
    unreadOf(uc, shared),
    (
      await ids(alice, [
        ['s', shared],
        ['xt', S.read],
      ])
    ).length,
  );
  assert.equal(
    unreadOf(uc, S.label('Private')),
    (
      await ids(alice, [
        ['s', S.label('Private')],
        ['xt', S.read],
      ])
    ).length,
  );
});

test('origins and folder categories follow renames at once, also when another process changes the database', async () => {
  const first = async () =>
    check(
      StreamContents,
      (await alice.get(`stream/contents/${encodeURIComponent(secret)}`, [['n', '1']])).json(),
      'contents',
    ).items[0];
  assert.equal((await first()).origin.title, 'Alice Only');
  await alice.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', secret],
    ['t', 'Renamed'],
    ['a', S.label('Moved')],
    ['r', S.label('Private')],
  ]);
  const it = await first();
  assert.equal(it.origin.title, 'Renamed');
  assert.ok(it.categories.includes(S.label('Moved')) && !it.categories.includes(S.label('Private')));
  // A second connection to the same file, as the CLI would open: the server sees its change.
  const { openStore } = await import('../src/store/open-store.ts');
  const other = await openStore({ databaseUrl: h.app.config.databaseUrl, dataDir: h.app.config.dataDir });
  await testSql(other).prepare("UPDATE labels SET name = 'Elsewhere' WHERE name = 'Moved'").run();
  await other.close();
  assert.ok((await first()).categories.includes(S.label('Elsewhere')));
  const uc = await counts(alice);
  assert.equal(unreadOf(uc, S.label('Elsewhere')), unreadOf(uc, secret));
});

test('an item edited by its feed is served with its new content, never a stale cached copy', async () => {
  const { feedEngine } = await import('../src/feeds/index.ts');
  const { refreshFeed } = await import('../src/feeds/refresh.ts');
  const newest = async () =>
    check(
      StreamContents,
      (await bob.get(`stream/contents/${encodeURIComponent(shared)}`, [['n', '1']])).json(),
      'contents',
    ).items[0];
  const before = await newest();
  assert.match(before.summary.content, /Body of <b>shared<\/b> 20/);
  h.feeds.feeds.get('shared')!.items[19].html = '<p>Corrected text</p>';
  await refreshFeed(h.app, (await feedEngine(h.app).feeds.findByUrl(h.feeds.url('shared')))!);
  const after = await newest();
  assert.equal(after.id, before.id);
  assert.equal(after.summary.content, '<p>Corrected text</p>');
});
