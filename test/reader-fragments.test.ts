// Each item's Reader JSON is kept ready in memory, shared by every user (src/reader-api/item-json.ts,
// ItemFragmentCache): its id, crawl times and body. Whatever is the user's own (read, starred,
// liked, tags, the folders of its feed, its origin) is written around it from the request's own
// read. These tests hold that line, on SQLite and (with TIDINGS_TEST_DATABASE_URL) PostgreSQL:
// after every kind of edit, by this user, by another user and by another process, the next page
// shows the edit, and nothing of one user's shows in another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addUser, clientLogin, ReaderClient, S, startHarness, type Harness } from './reader-harness.ts';
import { createApp } from '../src/server/create-app.ts';
import { feedEngine } from '../src/feeds/index.ts';
import { refreshFeed } from '../src/feeds/refresh.ts';
import { longItemId } from '../src/reader-api/ids.ts';

interface Item {
  id: string;
  crawlTimeMsec: string;
  timestampUsec: string;
  title: string;
  categories: string[];
  summary: { content: string };
  origin: { streamId: string; title: string };
}

async function reader(h: Harness, name: string): Promise<ReaderClient> {
  await addUser(h.app, name, 'correct horse battery');
  const token = await clientLogin(h.url, `${name}@example.org`, 'correct horse battery');
  return new ReaderClient(h.url, `GoogleLogin auth=${token}`);
}

/** The refs of the reading list, newest first: decimal id and timestampUsec. */
async function refs(c: ReaderClient): Promise<{ id: string; timestampUsec: string }[]> {
  const r = await c.get('stream/items/ids', [
    ['s', S.readingList],
    ['n', '1000'],
  ]);
  assert.equal(r.status, 200, r.text);
  return r.json().itemRefs;
}

/** stream/items/contents of these ids, by decimal id. */
async function byIds(c: ReaderClient, ids: string[]): Promise<Map<string, Item>> {
  const r = await c.post(
    'stream/items/contents',
    ids.map((i): [string, string] => ['i', i]),
  );
  assert.equal(r.status, 200, r.text);
  const items = r.json<{ items: Item[] }>().items;
  assert.deepEqual(
    items.map((i) => i.id),
    ids.map((i) => longItemId(Number(i))),
    'in the order asked',
  );
  return new Map(items.map((i) => [String(Number.parseInt(i.id.split('/').pop()!, 16)), i]));
}

/** stream/contents of the reading list, by decimal id. */
async function page(c: ReaderClient): Promise<Map<string, Item>> {
  const r = await c.get('stream/contents', [['n', '1000']]);
  assert.equal(r.status, 200, r.text);
  return new Map(
    r.json<{ items: Item[] }>().items.map((i) => [String(Number.parseInt(i.id.split('/').pop()!, 16)), i]),
  );
}

/** The categories of each item on both reads, which must agree. */
async function categories(c: ReaderClient, ids: string[]): Promise<string[][]> {
  const [a, b] = [await byIds(c, ids), await page(c)];
  return ids.map((id) => {
    const cats = [...a.get(id)!.categories].sort();
    assert.deepEqual([...b.get(id)!.categories].sort(), cats, `stream/contents agrees with items/contents on ${id}`);
    return cats;
  });
}

const RL = S.readingList;

test("item fragments: each user's states, tags and folders, fresh after every edit, never another user's", async () => {
  const h = await startHarness();
  try {
    h.feeds.addItems('shared', 6, 'Shared');
    const ann = await reader(h, 'ann');
    const bob = await reader(h, 'bob');
    for (const c of [ann, bob]) {
      const r = await c.post('subscription/quickadd', [['quickadd', h.feeds.url('shared')]]);
      assert.equal(r.status, 200, r.text);
    }
    const annRefs = await refs(ann);
    const ids = annRefs.map((r) => r.id);
    assert.equal(ids.length, 6);
    assert.deepEqual(
      (await refs(bob)).map((r) => r.id),
      ids,
      'the same items for both',
    );

    // The id and crawl times the fragment keeps are the item's own, as stream/items/ids says.
    const first = await byIds(ann, ids);
    for (const r of annRefs) {
      const it = first.get(r.id)!;
      assert.equal(it.timestampUsec, r.timestampUsec);
      assert.equal(it.crawlTimeMsec, String(Math.floor(Number(r.timestampUsec) / 1000)));
    }
    assert.deepEqual(
      await categories(ann, ids),
      ids.map(() => [RL]),
    );

    // Ann's edits: each shows at once, in both calls, and only for her.
    const edit = async (c: ReaderClient, form: [string, string][]) => {
      const r = await c.post('edit-tag', form);
      assert.equal(r.status, 200, r.text);
    };
    await edit(ann, [
      ['i', ids[0]!],
      ['a', S.read],
    ]);
    await edit(ann, [
      ['i', ids[1]!],
      ['a', S.starred],
    ]);
    await edit(ann, [
      ['i', ids[2]!],
      ['a', S.label('later')],
    ]);
    await edit(ann, [
      ['i', ids[3]!],
      ['a', S.like],
    ]);
    assert.deepEqual(await categories(ann, ids), [
      [RL, S.read].sort(),
      [RL, S.starred].sort(),
      [RL, S.label('later')].sort(),
      [RL, S.like].sort(),
      [RL],
      [RL],
    ]);
    assert.deepEqual(
      await categories(bob, ids),
      ids.map(() => [RL]),
      "none of Ann's states or tags show for Bob",
    );

    // Bob's own edit on an item Ann has starred.
    await edit(bob, [
      ['i', ids[1]!],
      ['a', S.read],
      ['a', S.label('bobs')],
    ]);
    assert.deepEqual((await categories(bob, ids))[1], [RL, S.read, S.label('bobs')].sort());
    assert.deepEqual((await categories(ann, ids))[1], [RL, S.starred].sort(), "Bob's edit is not Ann's");

    // A folder of Ann's: every item of the feed carries it, for her only.
    const folder = await ann.post('subscription/edit', [
      ['ac', 'edit'],
      ['s', `feed/${h.feeds.url('shared')}`],
      ['a', S.label('News')],
    ]);
    assert.equal(folder.status, 200, folder.text);
    for (const cats of await categories(ann, ids)) assert.ok(cats.includes(S.label('News')), cats.join(' '));
    for (const cats of await categories(bob, ids)) assert.ok(!cats.includes(S.label('News')), cats.join(' '));

    // mark-all-as-read, then undoing some of it.
    const all = await ann.post('mark-all-as-read', [['s', `feed/${h.feeds.url('shared')}`]]);
    assert.equal(all.status, 200, all.text);
    for (const cats of await categories(ann, ids)) assert.ok(cats.includes(S.read), cats.join(' '));
    await edit(ann, [
      ['i', ids[0]!],
      ['i', ids[2]!],
      ['r', S.read],
      ['r', S.label('later')],
    ]);
    const after = await categories(ann, ids);
    assert.deepEqual(after[0], [RL, S.label('News')].sort());
    assert.deepEqual(after[2], [RL, S.label('News')].sort());
    assert.deepEqual(after[1], [RL, S.read, S.starred, S.label('News')].sort());
    assert.deepEqual(
      (await categories(bob, ids)).map((c) => c.includes(S.read)),
      [false, true, false, false, false, false],
      "Ann's mark-all-as-read is not Bob's",
    );

    // Unsubscribed with a starred item kept: it leaves the reading list but keeps its origin.
    const gone = await ann.post('subscription/edit', [
      ['ac', 'unsubscribe'],
      ['s', `feed/${h.feeds.url('shared')}`],
    ]);
    assert.equal(gone.status, 200, gone.text);
    const kept = (await byIds(ann, [ids[1]!])).get(ids[1]!)!;
    assert.equal(kept.origin.streamId, `feed/${h.feeds.url('shared')}`);
    assert.ok(kept.categories.includes(S.starred));
    assert.ok(!kept.categories.includes(S.label('News')), 'the folder went with the subscription');
  } finally {
    await h.close();
  }
});

test('an item changed by another process (a CLI refresh) is served changed at once', async () => {
  const h = await startHarness();
  try {
    const items = h.feeds.addItems('edited', 3, 'Edited');
    const ann = await reader(h, 'ann');
    assert.equal((await ann.post('subscription/quickadd', [['quickadd', h.feeds.url('edited')]])).status, 200);
    const ids = (await refs(ann)).map((r) => r.id);
    const before = await byIds(ann, ids);
    const target = [...before.values()].find((i) => i.title.startsWith('Edited post 2 '))!;
    assert.ok(target, 'the item to edit is served');

    // The post is corrected at its source, and another App on the same data (as `tidings refresh`
    // would be) fetches it: this server's kept JSON must not outlive the stored item.
    items[1]!.title = 'Corrected title';
    items[1]!.html = '<p>Corrected text.</p>';
    const other = await createApp(h.app.config);
    try {
      const feed = (await feedEngine(other).feeds.findByUrl(h.feeds.url('edited')))!;
      await refreshFeed(other, feed);
    } finally {
      await other.close();
    }
    const id = String(Number.parseInt(target.id.split('/').pop()!, 16));
    const fresh = (await byIds(ann, ids)).get(id)!;
    assert.equal(fresh.title, 'Corrected title');
    assert.match(fresh.summary.content, /Corrected text/);
    assert.equal(fresh.timestampUsec, target.timestampUsec, 'the crawl time is fixed at ingest');
    assert.equal((await page(ann)).get(id)!.title, 'Corrected title');
  } finally {
    await h.close();
  }
});
