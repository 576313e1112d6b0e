// Sync sequences of real Google Reader clients, replayed against a real server: the calls each app
// makes, in its order, with its parameter quirks (see ../shared/spec/greader-api.md), every answer
// checked against the fields that app decodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';
import {
  check,
  ItemIds,
  QuickAdd,
  StreamContents,
  SubscriptionList,
  TagList,
  UnreadCount,
  UserInfo,
  LONG_ID,
} from './reader-schemas.ts';
import { feedEngine } from '../src/feeds/index.ts';
import { refreshFeed } from '../src/feeds/refresh.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

async function newUser(name: string, prefix = ''): Promise<{ c: ReaderClient; token: string }> {
  await addUser(h.app, name, `pw-${name}-secret`);
  const token = await clientLogin(h.url, name, `pw-${name}-secret`, prefix);
  assert.doesNotMatch(token, /[=&\s]/);
  return { c: new ReaderClient(h.url, `GoogleLogin auth=${token}`, prefix), token };
}

async function quickadd(c: ReaderClient, url: string, form: [string, string][] = []): Promise<string> {
  const r = await c.post('subscription/quickadd', [['quickadd', url], ...form]);
  assert.equal(r.status, 200, r.text);
  return check(QuickAdd, r.json(), 'quickadd').streamId;
}

/** Pages stream/items/ids until the continuation is absent, checking each page. */
async function allIds(
  c: ReaderClient,
  query: [string, string][],
  startAfter?: string,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cont: string | undefined = startAfter;
  let pages = 0;
  do {
    const q: [string, string][] = cont ? [...query, ['c', cont]] : query;
    if (pages > 1000) throw new Error('continuation never ends');
    const r = await c.get('stream/items/ids', q);
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const page = check(ItemIds, r.json(), 'stream/items/ids');
    ids.push(...page.itemRefs.map((x) => x.id));
    cont = page.continuation;
    pages++;
  } while (cont);
  return { ids, pages };
}

function unreadOf(uc: { unreadcounts: { id: string; count: number }[] }, id: string): number | undefined {
  return uc.unreadcounts.find((u) => u.id === id)?.count;
}

const decimalToLong = (d: string) => 'tag:google.com,2005:reader/item/' + BigInt(d).toString(16).padStart(16, '0');

test('Reeder: /api/greader.php, T with its trailing newline, decimal ids, items/contents in batches of 150', async () => {
  h.feeds.addItems('reeder-tech', 160, 'Reeder Tech');
  h.feeds.addItems('reeder-news', 40, 'Reeder News');
  const { c } = await newUser('reeder', '/api/greader.php');
  const T = (await c.get('token')).text;
  assert.match(T, /^\S+\n$/);
  const tech = await quickadd(c, h.feeds.url('reeder-tech'));
  const news = await quickadd(c, `feed/${h.feeds.url('reeder-news')}`);
  assert.equal(
    (
      await c.post('subscription/edit', [
        ['ac', 'edit'],
        ['s', tech],
        ['s', news],
        ['a', S.label('Daily')],
        ['T', T],
      ])
    ).text,
    'OK',
  );

  check(UserInfo, (await c.get('user-info', [['output', 'json']])).json(), 'user-info');
  const tags = check(TagList, (await c.get('tag/list', [['output', 'json']])).json(), 'tag/list');
  assert.deepEqual(
    tags.tags.find((t) => t.id === S.label('Daily')),
    { id: S.label('Daily'), type: 'folder', unread_count: 200 },
  );
  const subs = check(
    SubscriptionList,
    (await c.get('subscription/list', [['output', 'json']])).json(),
    'subscription/list',
  );
  assert.deepEqual(subs.subscriptions.map((s) => s.id).sort(), [news, tech].sort());
  assert.ok(subs.subscriptions.every((s) => s.categories.length === 1 && s.categories[0].label === 'Daily'));
  const uc = check(UnreadCount, (await c.get('unread-count', [['output', 'json']])).json(), 'unread-count');
  assert.equal(unreadOf(uc, S.readingList), 200);
  assert.equal(unreadOf(uc, S.label('Daily')), 200);
  assert.equal(unreadOf(uc, tech), 160);

  const unread = await allIds(c, [
    ['s', S.readingList],
    ['xt', S.read],
    ['n', '1000'],
    ['output', 'json'],
  ]);
  assert.equal(unread.ids.length, 200);
  assert.equal(new Set(unread.ids).size, 200);
  const starred = await allIds(c, [
    ['s', S.starred],
    ['n', '1000'],
  ]);
  assert.deepEqual(starred.ids, []);

  // items/contents in batches of 150 decimal ids, POSTed as a form.
  const seen: string[] = [];
  for (let i = 0; i < unread.ids.length; i += 150) {
    const batch = unread.ids.slice(i, i + 150);
    const r = await c.post('stream/items/contents', [
      ...batch.map((id): [string, string] => ['i', id]),
      ['output', 'json'],
    ]);
    assert.equal(r.status, 200, r.text);
    const page = check(StreamContents, r.json(), 'stream/items/contents');
    assert.deepEqual(
      page.items.map((x) => x.id),
      batch.map(decimalToLong),
    );
    seen.push(...page.items.map((x) => x.id));
  }
  assert.equal(seen.length, 200);

  const first5 = unread.ids.slice(0, 5);
  const r = await c.post('edit-tag', [...first5.map((id): [string, string] => ['i', id]), ['a', S.read], ['T', T]]);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, 'OK');
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  const uc2 = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(unreadOf(uc2, S.readingList), 195);
  assert.equal(unreadOf(uc2, S.label('Daily')), 195);
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', first5[0]],
        ['r', S.read],
        ['a', S.starred],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  assert.deepEqual((await allIds(c, [['s', S.starred]])).ids, [first5[0]]);
  assert.equal(unreadOf(check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count'), S.readingList), 196);
});

test('NetNewsWire: root paths, output=json, long-form ids, quickadd then folder edit, unsubscribe', async () => {
  h.feeds.addItems('nnw-a', 12, 'NNW A');
  h.feeds.addItems('nnw-b', 8, 'NNW B');
  const { c } = await newUser('netnewswire');
  const T = (await c.get('token')).text.trim();
  const a = await quickadd(c, `feed/${h.feeds.url('nnw-a')}`, [['T', T]]);
  const b = await quickadd(c, h.feeds.url('nnw-b'), [['T', T]]);
  assert.equal(
    (
      await c.post('subscription/edit', [
        ['ac', 'edit'],
        ['s', a],
        ['a', S.label('Apple')],
        ['t', 'Renamed A'],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const subs = check(SubscriptionList, (await c.get('subscription/list?output=json')).json(), 'subscription/list');
  const subA = (await subs.subscriptions.find((s) => s.id === a))!;
  assert.equal(subA.title, 'Renamed A');
  assert.deepEqual(subA.categories, [{ id: S.label('Apple'), label: 'Apple' }]);
  assert.deepEqual((await subs.subscriptions.find((s) => s.id === b))!.categories, []);
  check(TagList, (await c.get('tag/list?output=json')).json(), 'tag/list');

  const since = String(Math.floor(Date.now() / 1000) - 30 * 86400);
  const all = await allIds(c, [
    ['s', S.readingList],
    ['n', '1000'],
    ['ot', since],
    ['output', 'json'],
  ]);
  assert.equal(all.ids.length, 20);
  const unread = await allIds(c, [
    ['s', S.readingList],
    ['n', '1000'],
    ['xt', S.read],
    ['output', 'json'],
  ]);
  assert.deepEqual(unread.ids, all.ids);

  const longIds = all.ids.slice(0, 3).map(decimalToLong);
  const r = await c.post(
    'stream/items/contents?output=json',
    longIds.map((id): [string, string] => ['i', id]),
  );
  const page = check(StreamContents, r.json(), 'stream/items/contents');
  assert.deepEqual(
    page.items.map((x) => x.id),
    longIds,
  );
  for (const it of page.items) {
    assert.ok(it.categories.includes(S.readingList));
    assert.doesNotMatch(it.summary.content, /<script/i, 'summary.content is sanitized');
    assert.doesNotMatch(it.title, /&amp;/, 'titles are plain text, entities decoded once');
  }

  assert.equal(
    (await c.post('edit-tag', [...longIds.map((id): [string, string] => ['i', id]), ['a', S.read], ['T', T]])).text,
    'OK',
  );
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', longIds[0]],
        ['a', S.starred],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const after = check(StreamContents, (await c.post('stream/items/contents', [['i', longIds[0]]])).json(), 'contents');
  assert.ok(after.items[0].categories.includes(S.read) && after.items[0].categories.includes(S.starred));
  assert.equal(
    (
      await allIds(c, [
        ['s', S.readingList],
        ['xt', S.read],
      ])
    ).ids.length,
    17,
  );

  assert.equal(
    (
      await c.post('subscription/edit', [
        ['ac', 'unsubscribe'],
        ['s', b],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const subs2 = check(SubscriptionList, (await c.get('subscription/list')).json(), 'subscription/list');
  assert.deepEqual(
    subs2.subscriptions.map((s) => s.id),
    [a],
  );
  const uc = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(
    unreadOf(uc, S.readingList),
    uc.unreadcounts.filter((u) => u.id.startsWith('feed/')).reduce((n, u) => n + u.count, 0),
  );
});

test('Fluent Reader: Authorization "undefined" is no token (401 + X-Reader-Google-Bad-Token), never sends T', async () => {
  h.feeds.addItems('fluent', 30, 'Fluent Feed');
  const anon = new ReaderClient(h.url, 'undefined');
  for (const path of ['subscription/list', 'stream/contents/' + encodeURIComponent(S.readingList), 'unread-count']) {
    const r = await anon.get(path);
    assert.equal(r.status, 401, path);
    assert.equal(r.headers.get('x-reader-google-bad-token'), 'true');
    assert.match(r.text, /^Error=/);
  }
  const { c } = await newUser('fluent');
  await quickadd(c, h.feeds.url('fluent'));
  check(SubscriptionList, (await c.get('subscription/list', [['output', 'json']])).json(), 'subscription/list');
  check(TagList, (await c.get('tag/list', [['output', 'json']])).json(), 'tag/list');
  // New items: stream/contents of the reading list, n=125, paged with c.
  const items: string[] = [];
  let cont: string | undefined;
  do {
    const r = await c.get('stream/contents', [
      ['output', 'json'],
      ['n', '12'],
      ...(cont ? [['c', cont] as [string, string]] : []),
    ]);
    const page = check(StreamContents, r.json(), 'stream/contents');
    assert.equal(page.id, S.readingList);
    items.push(...page.items.map((i) => i.id));
    cont = page.continuation;
  } while (cont);
  assert.equal(items.length, 30);
  assert.equal(new Set(items).size, 30);
  // Without T, from a plain form.
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', items[0]],
        ['i', items[1]],
        ['a', S.read],
      ])
    ).text,
    'OK',
  );
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', items[2]],
        ['a', S.starred],
      ])
    ).text,
    'OK',
  );
  const unread = await allIds(c, [
    ['s', S.readingList],
    ['xt', S.read],
    ['n', '1000'],
  ]);
  assert.equal(unread.ids.length, 28);
  // mark-all-as-read without ts: everything up to now.
  assert.equal((await c.post('mark-all-as-read', [['s', `feed/${h.feeds.url('fluent')}`]])).text, 'OK');
  const uc = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(unreadOf(uc, S.readingList), 0);
  assert.equal((await allIds(c, [['s', S.starred]])).ids.length, 1);
});

test('Read You: n=10000 (clamped), float ot, continuation stable while new items arrive, decimal ids', async () => {
  h.feeds.addItems('readyou', 45, 'Read You Feed');
  const { c } = await newUser('readyou');
  const feedStream = await quickadd(c, h.feeds.url('readyou'));
  const ot = (Date.now() / 1000 - 3600).toFixed(3);
  const big = await allIds(c, [
    ['s', S.readingList],
    ['xt', S.read],
    ['n', '10000'],
    ['ot', ot],
  ]);
  assert.equal(big.ids.length, 45);
  assert.equal(big.pages, 1);
  // n beyond the cap is clamped, not refused or shortened.
  assert.equal(
    (
      await c.get('stream/items/ids', [
        ['s', S.readingList],
        ['n', '50000'],
      ])
    ).json().itemRefs.length,
    45,
  );

  // Page by 10 and let the feed publish between pages: no item is lost or repeated.
  const first = check(
    ItemIds,
    (
      await c.get('stream/items/ids', [
        ['s', feedStream],
        ['n', '10'],
      ])
    ).json(),
    'ids',
  );
  h.feeds.addItems('readyou', 5);
  const feed = (await feedEngine(h.app).feeds.findByUrl(h.feeds.url('readyou')))!;
  await refreshFeed(h.app, feed);
  const rest = await allIds(
    c,
    [
      ['s', feedStream],
      ['n', '10'],
    ],
    first.continuation,
  );
  const paged = [...first.itemRefs.map((r) => r.id), ...rest.ids];
  assert.deepEqual(paged, big.ids, 'the old items, once each, in order');
  const fresh = await allIds(c, [
    ['s', feedStream],
    ['n', '10000'],
    ['ot', String(Date.now() / 1000 - 60)],
  ]);
  assert.equal(fresh.ids.length, 50, 'ot compares with the crawl time, so re-crawled old posts sync');
  const newest = fresh.ids.slice(0, 5);
  assert.ok(newest.every((id) => !big.ids.includes(id)));

  const batch = check(
    StreamContents,
    (
      await c.post(
        'stream/items/contents',
        fresh.ids.map((id): [string, string] => ['i', id]),
      )
    ).json(),
    'contents',
  );
  assert.equal(batch.items.length, 50);
  assert.equal(
    (await c.post('edit-tag', [...fresh.ids.slice(0, 20).map((id): [string, string] => ['i', id]), ['a', S.read]]))
      .text,
    'OK',
  );
  assert.equal(unreadOf(check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count'), feedStream), 30);
});

test('FeedMe: stream id with raw slashes in the path, r=o paging, short-hex long ids, empty T, mark-all-as-read ts in seconds', async () => {
  h.feeds.addItems('feedme', 25, 'FeedMe Feed');
  const { c } = await newUser('feedme');
  const stream = await quickadd(c, h.feeds.url('feedme'));
  const oldestFirst: { id: string; ts: bigint }[] = [];
  let cont: string | undefined;
  do {
    const r = await c.get(`stream/contents/${stream}`, [
      ['n', '10'],
      ['r', 'o'],
      ...(cont ? [['c', cont] as [string, string]] : []),
    ]);
    assert.equal(r.status, 200, r.text);
    const page = check(StreamContents, r.json(), 'stream/contents');
    assert.equal(page.id, stream);
    assert.equal(page.title, 'FeedMe Feed');
    oldestFirst.push(...page.items.map((i) => ({ id: i.id, ts: BigInt(i.timestampUsec) })));
    cont = page.continuation;
  } while (cont);
  assert.equal(oldestFirst.length, 25);
  // A stream id built from the URL as the client wrote it (no trailing slash on a bare host) still resolves.
  const unnormalised = check(
    StreamContents,
    (
      await c.get(`stream/contents/${encodeURIComponent(stream.replace('/feeds/feedme.xml', '/feeds/./feedme.xml'))}`, [
        ['n', '1'],
      ])
    ).json(),
    'contents',
  );
  assert.equal(unnormalised.items.length, 1);
  for (let i = 1; i < oldestFirst.length; i++)
    assert.ok(oldestFirst[i].ts > oldestFirst[i - 1].ts, 'r=o is oldest first');
  const withEnclosure = check(
    StreamContents,
    (
      await c.get(`stream/contents/${stream}`, [
        ['n', '1'],
        ['r', 'o'],
      ])
    ).json(),
    'contents',
  ).items[0];
  assert.deepEqual(withEnclosure.enclosure, [
    { href: 'https://example.org/feedme/a.mp3', type: 'audio/mpeg', length: '123' },
  ]);

  // Long form without zero padding, and an empty T.
  const unpadded = oldestFirst.slice(0, 3).map((x) => x.id.replace(/\/0+(?=[0-9a-f])/, '/'));
  assert.ok(unpadded.every((id) => !LONG_ID.test(id)));
  assert.equal(
    (await c.post('edit-tag', [...unpadded.map((id): [string, string] => ['i', id]), ['a', S.like], ['T', '']])).text,
    'OK',
  );
  assert.equal((await allIds(c, [['s', S.like]])).ids.length, 3);

  // ts in seconds: only items crawled up to then are marked read; later ones stay unread.
  const tsSeconds = Number(oldestFirst[24].ts / 1_000_000n) - 1;
  const expectRead = oldestFirst.filter((x) => x.ts <= BigInt(tsSeconds) * 1_000_000n).length;
  assert.equal(
    (
      await c.post('mark-all-as-read', [
        ['s', stream],
        ['ts', String(tsSeconds)],
        ['T', ''],
      ])
    ).text,
    'OK',
  );
  const uc = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(unreadOf(uc, stream), 25 - expectRead);
});

test('Newsflash: encoded stream ids, xt/it filters, bare 16-hex ids, custom tags, mark-all-as-read ts in µs, rename and disable tag', async () => {
  h.feeds.addItems('nf-a', 10, 'NF A');
  h.feeds.addItems('nf-b', 10, 'NF B');
  const { c } = await newUser('newsflash');
  const T = (await c.get('token')).text.trim();
  const a = await quickadd(c, h.feeds.url('nf-a'));
  const b = await quickadd(c, h.feeds.url('nf-b'));
  await c.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', a],
    ['a', S.label('Tech')],
    ['T', T],
  ]);
  await c.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', b],
    ['a', S.label('tech')],
    ['T', T],
  ]);

  const folder = check(
    StreamContents,
    (await c.get('stream/contents/' + encodeURIComponent(S.label('Tech')), [['n', '100']])).json(),
    'contents',
  );
  assert.equal(folder.items.length, 10, 'labels are case-sensitive: Tech is not tech');
  assert.ok(folder.items.every((i) => i.origin.streamId === a && i.categories.includes(S.label('Tech'))));

  const hex = folder.items.slice(0, 4).map((i) => i.id.slice(-16));
  assert.equal(
    (
      await c.post('edit-tag', [
        ...hex.map((id): [string, string] => ['i', id]),
        ['a', S.label('Later')],
        ['a', S.starred],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const tags = check(TagList, (await c.get('tag/list')).json(), 'tag/list');
  assert.deepEqual(
    tags.tags.find((t) => t.id === S.label('Later')),
    { id: S.label('Later'), type: 'tag' },
  );
  const later = check(
    StreamContents,
    (await c.get('stream/contents/' + encodeURIComponent(S.label('Later')))).json(),
    'contents',
  );
  assert.deepEqual(later.items.map((i) => i.id.slice(-16)).sort(), [...hex].sort());
  assert.ok(later.items.every((i) => i.categories.includes(S.label('Later'))));

  // Starred but not read, in one folder; it= includes, xt= excludes.
  await c.post('edit-tag', [
    ['i', hex[0]],
    ['a', S.read],
    ['T', T],
  ]);
  const starredUnread = check(
    StreamContents,
    (await c.get('stream/contents/' + encodeURIComponent(S.starred), [['xt', S.read]])).json(),
    'contents',
  );
  assert.equal(starredUnread.items.length, 3);
  const readInFolder = await allIds(c, [
    ['s', S.label('Tech')],
    ['it', S.read],
  ]);
  assert.equal(readInFolder.ids.length, 1);
  const notLater = await allIds(c, [
    ['s', S.readingList],
    ['xt', S.label('Later')],
  ]);
  assert.equal(notLater.ids.length, 16);
  const twoStreams = await allIds(c, [
    ['s', a],
    ['s', b],
    ['xt', S.read],
  ]);
  assert.equal(twoStreams.ids.length, 19);

  // µs timestamp (16+ digits) on a folder.
  const nowUs = String(Date.now() * 1000);
  assert.equal(
    (
      await c.post('mark-all-as-read', [
        ['s', S.label('tech')],
        ['ts', nowUs],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const uc = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(unreadOf(uc, b), 0);
  assert.equal(unreadOf(uc, a), 9);
  assert.equal(unreadOf(uc, S.readingList), 9);

  assert.equal(
    (
      await c.post('rename-tag', [
        ['s', S.label('Later')],
        ['dest', S.label('Someday')],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  assert.equal(
    check(StreamContents, (await c.get('stream/contents/' + encodeURIComponent(S.label('Someday')))).json(), 'c').items
      .length,
    4,
  );
  assert.equal((await c.get('stream/contents/' + encodeURIComponent(S.label('Later')))).status, 404);
  assert.equal(
    (
      await c.post('disable-tag', [
        ['s', S.label('Tech')],
        ['T', T],
      ])
    ).text,
    'OK',
  );
  const subs = check(SubscriptionList, (await c.get('subscription/list')).json(), 'subscription/list');
  assert.deepEqual(
    (await subs.subscriptions.find((s) => s.id === a))!.categories,
    [],
    'the folder is gone, the subscription stays',
  );
  assert.equal(subs.subscriptions.length, 2);
});

test('OPML: subscription/import with a raw text/xml body, then subscription/export and list agree', async () => {
  const { c } = await newUser('opml');
  const opml = `<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>mine</title></head><body>
    <outline text="Work" title="Work"><outline type="rss" text="Alpha" xmlUrl="${h.feeds.url('opml-alpha')}" htmlUrl="https://alpha.example/"/></outline>
    <outline type="rss" text="Beta" xmlUrl="${h.feeds.url('opml-beta')}"/></body></opml>`;
  const r = await c.post('subscription/import', opml, 'text/xml');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, 'OK');
  const subs = check(SubscriptionList, (await c.get('subscription/list')).json(), 'subscription/list');
  assert.deepEqual(
    subs.subscriptions.map((s) => [s.url, s.categories.map((x) => x.label)]).sort(),
    [
      [h.feeds.url('opml-alpha'), ['Work']],
      [h.feeds.url('opml-beta'), []],
    ].sort(),
  );
  const exp = await c.get('subscription/export');
  assert.equal(exp.status, 200);
  assert.match(exp.headers.get('content-type') ?? '', /opml|xml/);
  assert.ok(
    exp.text.includes(h.feeds.url('opml-alpha')) &&
      exp.text.includes(h.feeds.url('opml-beta')) &&
      exp.text.includes('Work'),
  );
  const tags = check(TagList, (await c.get('tag/list')).json(), 'tag/list');
  assert.ok(tags.tags.some((t) => t.id === S.label('Work') && t.type === 'folder'));
});

test('unsubscribing keeps starred items in the starred stream only; the reading list agrees with unread-count', async () => {
  h.feeds.addItems('leave-a', 6, 'Leave A');
  h.feeds.addItems('leave-b', 4, 'Leave B');
  const { c } = await newUser('leaver');
  const a = await quickadd(c, h.feeds.url('leave-a'));
  await quickadd(c, h.feeds.url('leave-b'));
  const aIds = (await allIds(c, [['s', a]])).ids;
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', aIds[0]],
        ['i', aIds[1]],
        ['a', S.starred],
      ])
    ).text,
    'OK',
  );
  assert.equal(
    (
      await c.post('subscription/edit', [
        ['ac', 'unsubscribe'],
        ['s', a],
      ])
    ).text,
    'OK',
  );
  const uc = check(UnreadCount, (await c.get('unread-count')).json(), 'unread-count');
  assert.equal(unreadOf(uc, S.readingList), 4);
  assert.equal(
    (
      await allIds(c, [
        ['s', S.readingList],
        ['xt', S.read],
      ])
    ).ids.length,
    4,
  );
  assert.equal((await allIds(c, [['s', S.readingList]])).ids.length, 4);
  const starred = check(
    StreamContents,
    (await c.get('stream/contents/' + encodeURIComponent(S.starred))).json(),
    'starred',
  );
  assert.deepEqual(starred.items.map((i) => i.id).sort(), [aIds[0], aIds[1]].map(decimalToLong).sort());
  assert.ok(
    starred.items.every((i) => i.origin.title === 'Leave A'),
    'kept items keep their feed as origin',
  );
  // Subscribing again brings the feed back into the reading list.
  await quickadd(c, h.feeds.url('leave-a'));
  assert.equal((await allIds(c, [['s', S.readingList]])).ids.length, 10);
});
