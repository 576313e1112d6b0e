// search/items/ids: the words find the user's own items (relevance order), scoped to a stream,
// `xt` excluding read ones; another user's feeds never leak, even when the words match there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';

let h: Harness;
let alice: ReaderClient, bob: ReaderClient;
let space: string;

function setBodies(name: string, bodies: string[]): void {
  const feed = h.feeds.feeds.get(name)!;
  bodies.forEach((b, i) => {
    feed.items[i]!.html = `<p>${b}</p>`;
    feed.items[i]!.title = b.split(' ').slice(0, 4).join(' ');
  });
}

before(async () => {
  h = await startHarness();
  h.feeds.addItems('space', 3, 'Space');
  setBodies('space', [
    'Artemis rocket launches toward the moon with astronauts',
    'Telescope finds water vapour on a distant exoplanet',
    'Budget hearing for the agency next week',
  ]);
  h.feeds.addItems('cooking', 2, 'Cooking');
  setBodies('cooking', ['Sourdough bread needs a patient starter', 'A moon cake recipe for the autumn festival']);
  h.feeds.addItems('private', 1, 'Bob private');
  setBodies('private', ['Secret moon base plans of bob']);
  await addUser(h.app, 'alice', 'pw-alice-secret');
  await addUser(h.app, 'bob', 'pw-bob-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  bob = new ReaderClient(
    h.url,
    `GoogleLogin auth=${await clientLogin(h.url, 'bob', 'pw-bob-secret')}`,
    '/api/greader.php',
  );
  space = (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('space')]])).json().streamId;
  const cooking = (await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('cooking')]])).json().streamId;
  await alice.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', cooking],
    ['a', S.label('Food')],
  ]);
  await bob.post('subscription/quickadd', [['quickadd', h.feeds.url('private')]]);
});
after(async () => {
  await h.close();
});

const search = async (c: ReaderClient, q: [string, string][]) => {
  const r = await c.get('search/items/ids', q);
  return { status: r.status, text: r.text, body: r.status === 200 ? r.json() : undefined };
};
const titles = async (c: ReaderClient, ids: string[]) =>
  ids.length
    ? (
        await c.post(
          'stream/items/contents',
          ids.map((i) => ['i', i]),
        )
      )
        .json()
        .items.map((i: any) => i.title)
    : [];

test("finds the user's items by their words, best first, in the Google shape", async () => {
  const r = await search(alice, [['q', 'moon']]);
  assert.equal(r.status, 200);
  const ids = r.body.results.map((x: any) => x.id);
  assert.equal(ids.length, 2);
  for (const id of ids) assert.match(id, /^\d+$/);
  assert.deepEqual(
    r.body.itemRefs.map((x: any) => x.id),
    ids,
  );
  const t = await titles(alice, ids);
  assert.ok(t.some((x: string) => x.startsWith('Artemis')) && t.some((x: string) => x.startsWith('A moon cake')));
  assert.ok(!t.some((x: string) => x.includes('Secret')), "bob's feed never matches for alice");
  const exo = await search(alice, [['q', 'exoplanet water']]);
  assert.deepEqual(
    await titles(
      alice,
      exo.body.results.map((x: any) => x.id),
    ),
    ['Telescope finds water vapour'],
  );
  // Bob finds his own item only.
  const b = await search(bob, [['q', 'moon']]);
  assert.deepEqual(
    await titles(
      bob,
      b.body.results.map((x: any) => x.id),
    ),
    ['Secret moon base plans'],
  );
});

test('scoped to a stream (feed, folder), n limits, xt=read drops read items', async () => {
  const inFood = await search(alice, [
    ['q', 'moon'],
    ['s', S.label('Food')],
  ]);
  assert.deepEqual(
    await titles(
      alice,
      inFood.body.results.map((x: any) => x.id),
    ),
    ['A moon cake recipe'],
  );
  const inSpace = await search(alice, [
    ['q', 'moon'],
    ['s', space],
  ]);
  assert.deepEqual(
    await titles(
      alice,
      inSpace.body.results.map((x: any) => x.id),
    ),
    ['Artemis rocket launches toward'],
  );
  assert.equal(
    (
      await search(alice, [
        ['q', 'moon'],
        ['n', '1'],
      ])
    ).body.results.length,
    1,
  );
  const artemis = inSpace.body.results[0].id;
  await alice.post('edit-tag', [
    ['i', artemis],
    ['a', S.read],
  ]);
  const unread = await search(alice, [
    ['q', 'moon'],
    ['xt', S.read],
  ]);
  assert.deepEqual(
    await titles(
      alice,
      unread.body.results.map((x: any) => x.id),
    ),
    ['A moon cake recipe'],
  );
  assert.equal((await search(alice, [['q', 'zebra']])).body.results.length, 0);
});

test("bad input: missing q, bad n, unknown stream (another user's feed), unsupported xt", async () => {
  const missing = await search(alice, []);
  assert.equal(missing.status, 400);
  assert.match(missing.text, /missing parameter q/);
  assert.equal(
    (
      await search(alice, [
        ['q', 'moon'],
        ['n', '0'],
      ])
    ).status,
    400,
  );
  const other = await search(alice, [
    ['q', 'moon'],
    ['s', `feed/${h.feeds.url('private')}`],
  ]);
  assert.equal(other.status, 404);
  assert.match(other.text, /unknown stream/);
  assert.equal(
    (
      await search(alice, [
        ['q', 'moon'],
        ['xt', S.label('Food')],
      ])
    ).status,
    400,
  );
  assert.equal((await search(alice, [['q', 'x'.repeat(1001)]])).status, 400);
  assert.equal((await new ReaderClient(h.url, undefined).get('search/items/ids', [['q', 'moon']])).status, 401);
});
