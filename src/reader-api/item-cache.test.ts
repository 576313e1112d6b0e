import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemFragment, ItemFragmentCache } from './item-json.ts';
import type { ReaderItemBody, ReaderItemState } from '../model/stream.ts';

const state = (itemId: number) =>
  ({
    itemId,
    feedId: 1,
    crawledUs: itemId,
    read: 0,
    starred: 0,
    liked: 0,
    broadcast: 0,
    saved: 0,
  }) as unknown as ReaderItemState;
const body = (itemId: number, size: number): ReaderItemBody => ({
  itemId,
  url: null,
  title: 't',
  author: null,
  content: 'x'.repeat(size),
  summary: null,
  publishedAt: 0,
  updatedAt: 0,
  crawledUs: itemId,
  enclosures: null,
});

test('the item fragment cache is bounded by bytes as well as by count', async () => {
  const cache = new ItemFragmentCache(1000, 100_000);
  let loads = 0;
  const load = (size: number) => async (ids: number[]) => {
    loads += ids.length;
    return ids.map((id) => body(id, size));
  };
  await cache.fragmentsFor([1, 2, 3, 4].map(state), 1, load(30_000));
  assert.equal(cache.size, 3, 'four 30 KB bodies do not fit in 100 KB: the oldest left');
  assert.ok(cache.byteSize <= 100_000);
  loads = 0;
  await cache.fragmentsFor([2, 3, 4].map(state), 1, load(30_000));
  assert.equal(loads, 0, 'the newest ones are served from the cache');
  const page = await cache.fragmentsFor([5].map(state), 1, load(500_000));
  assert.ok(page[0]!.body.length > 500_000, 'a body larger than the whole cache is served…');
  assert.equal(cache.size, 3, '…but not kept, and it does not evict the others');
  await cache.fragmentsFor([6].map(state), 2, load(10));
  assert.equal(cache.size, 1, 'a new items version empties it');
  assert.ok(cache.byteSize < 1000);
});

test("an item's fragment is its id, crawl times and body, split where the user's categories go", () => {
  const f = itemFragment({
    ...body(0x1f00000001, 0),
    title: 'Tïtle «ü» 中文',
    crawledUs: 1_764_000_000_123_456,
    url: 'https://ex.org/a',
    author: 'A',
    enclosures: JSON.stringify([{ url: 'https://ex.org/a.mp3', type: 'audio/mpeg', length: 12 }]),
  });
  assert.equal(f.head.buffer, f.body.buffer, 'one allocation');
  assert.equal(
    f.head.toString(),
    '{"id":"tag:google.com,2005:reader/item/0000001f00000001","crawlTimeMsec":"1764000000123","timestampUsec":"1764000000123456","categories":[',
  );
  const item = JSON.parse(`${f.head}"user/-/state/com.google/reading-list"],${f.body}}`);
  assert.equal(item.title, 'Tïtle «ü» 中文');
  assert.deepEqual(item.categories, ['user/-/state/com.google/reading-list']);
  assert.deepEqual(item.alternate, [{ href: 'https://ex.org/a', type: 'text/html' }]);
  assert.deepEqual(item.enclosure, [{ href: 'https://ex.org/a.mp3', type: 'audio/mpeg', length: '12' }]);
});
