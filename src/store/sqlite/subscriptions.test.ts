import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from './db.ts';
import { tempDataDir } from '../../../test/helpers.ts';
import { SqliteFeedRepository } from './feeds.ts';
import { SqliteItemRepository } from './items.ts';
import { SqliteSubscriptionRepository, BACKFILL_ON_SUBSCRIBE } from './subscriptions.ts';
import type { ParsedEntry } from '../../model/parsed-feed.ts';

const entry = (guid: string, publishedAt: number | null): ParsedEntry => ({
  guid,
  url: null,
  title: guid,
  author: null,
  publishedAt,
  updatedAt: null,
  content: null,
  summary: `s ${guid}`,
  enclosures: [],
  imageUrl: null,
  categories: [],
});

test('subscriptions: folders, rename, list order, backfill limit and unread counters', async () => {
  const db = openDatabase(join(tempDataDir(), 'x.db'));
  try {
    const feeds = new SqliteFeedRepository(db),
      items = new SqliteItemRepository(db),
      subs = new SqliteSubscriptionRepository(db);
    const user = (name: string) =>
      Number(
        db.prepare("INSERT INTO users (username, password_hash, created_at) VALUES (?, 'x', 0) RETURNING id").get(name)!
          .id,
      );
    const alice = user('alice'),
      bob = user('bob');
    const big = await feeds.create('https://big.example/feed', { title: 'Big' });
    const small = await feeds.create('https://small.example/feed', { title: 'aardvark' });
    // Feed order is newest first; crawl times must make the newest post sort first.
    const many = Array.from({ length: BACKFILL_ON_SUBSCRIBE + 50 }, (_, i) => entry(`e${i}`, 1_700_000_000 - i * 60));
    assert.equal((await items.upsertEntries(big.id, many, 1_800_000_000_000_000)).added.length, many.length);
    const newest = db
      .prepare('SELECT guid FROM items WHERE feed_id = ? ORDER BY crawled_us DESC LIMIT 1')
      .get(big.id) as { guid: string };
    assert.equal(newest.guid, 'e0');

    const { created } = await subs.subscribe(alice, big.id, { folders: ['Tech', ' News '] });
    assert.equal(created, true);
    assert.equal((await subs.subscribe(alice, big.id, { folders: ['Tech'] })).created, false);
    const s = (await subs.find(alice, big.id))!;
    assert.deepEqual(s.folders, ['News', 'Tech']);
    assert.equal(s.unreadCount, BACKFILL_ON_SUBSCRIBE, 'a new subscriber gets the most recent items only');
    const got = db
      .prepare(
        'SELECT min(i.published_at) AS oldest FROM user_items u JOIN items i ON i.id = u.item_id WHERE u.user_id = ?',
      )
      .get(alice) as { oldest: number };
    assert.equal(got.oldest, 1_700_000_000 - (BACKFILL_ON_SUBSCRIBE - 1) * 60, 'and they are the newest ones');

    await subs.subscribe(alice, small.id);
    assert.equal(await subs.rename(alice, big.id, 'My big one'), true);
    assert.deepEqual(
      (await subs.list(alice)).map((x) => x.title),
      ['aardvark', 'My big one'],
    );
    assert.equal(await subs.removeFolder(alice, big.id, 'News'), true);
    assert.equal(await subs.removeFolder(alice, big.id, 'News'), false);
    assert.equal(await subs.addFolder(alice, small.id, 'Tech'), true);
    assert.deepEqual(
      (await subs.list(alice)).map((x) => x.folders),
      [['Tech'], ['Tech']],
    );
    assert.equal(await subs.rename(alice, big.id, null), true);
    assert.equal((await subs.find(alice, big.id))!.title, 'Big');

    // Fan-out of a later ingest reaches every subscriber and keeps counters right.
    await subs.subscribe(bob, small.id);
    await items.upsertEntries(small.id, [entry('n1', null), entry('n2', null)], 1_800_000_100_000_000);
    assert.equal((await subs.find(alice, small.id))!.unreadCount, 2);
    assert.equal((await subs.find(bob, small.id))!.unreadCount, 2);
    assert.equal(await subs.subscriberCount(small.id), 2);
    assert.equal(await subs.unsubscribe(bob, small.id), true);
    assert.equal((db.prepare('SELECT count(*) AS n FROM user_items WHERE user_id = ?').get(bob) as { n: number }).n, 0);
  } finally {
    db.close();
  }
});
