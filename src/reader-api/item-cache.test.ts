import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemBodyCache } from './item-json.ts';
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
  enclosures: null,
});

test('the item body cache is bounded by bytes as well as by count', async () => {
  const cache = new ItemBodyCache(1000, 100_000);
  let loads = 0;
  const load = (size: number) => async (ids: number[]) => {
    loads += ids.length;
    return ids.map((id) => body(id, size));
  };
  await cache.bodiesFor([1, 2, 3, 4].map(state), 1, load(30_000));
  assert.equal(cache.size, 3, 'four 30 KB bodies do not fit in 100 KB: the oldest left');
  assert.ok(cache.byteSize <= 100_000);
  loads = 0;
  await cache.bodiesFor([2, 3, 4].map(state), 1, load(30_000));
  assert.equal(loads, 0, 'the newest ones are served from the cache');
  const page = await cache.bodiesFor([5].map(state), 1, load(500_000));
  assert.ok(page.get(5)!.length > 500_000, 'a body larger than the whole cache is served…');
  assert.equal(cache.size, 3, '…but not kept, and it does not evict the others');
  await cache.bodiesFor([6].map(state), 2, load(10));
  assert.equal(cache.size, 1, 'a new items version empties it');
  assert.ok(cache.byteSize < 1000);
});
