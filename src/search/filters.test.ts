import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, addUser, ingest, insertItem, label, subscribe, testApp } from './testing/fixtures.ts';
import { FusedSearchService } from './service.ts';
import { LocalIndexProvider } from './local-provider.ts';
import { flushSearchIndexing, searchIndexRepository } from './indexing.ts';
import { parseDomainFilter, parseUsDate } from './filters.ts';
import { SearchFilterError, type SearchQuery } from './types.ts';
import type { SearchFilters, SearchScope } from './types.ts';
import type { App } from '../runtime/app.ts';
import { seenAfterOtherCommit, testSql } from '../store/testing.ts';
import { createApp } from '../server/create-app.ts';
import { loadConfig } from '../config/config.ts';

const NOW = 1_750_000_000;
const DAY = 86_400;

/** A service whose clock is fixed at NOW (recency filters are relative to it). */
function service(app: App): FusedSearchService {
  const repo = searchIndexRepository(app);
  return new FusedSearchService(repo, {
    local: new LocalIndexProvider(repo, { now: () => NOW }),
    log: app.log,
    beforeSearch: () => flushSearchIndexing(app),
  });
}

const article = (url: string, publishedAt: number, updatedAt = publishedAt) => ({
  url,
  title: `Solar eclipse report ${url}`,
  content: '<p>The solar eclipse was seen by millions of viewers.</p>',
  publishedAt,
  updatedAt,
});

/** One instance with articles on several hosts and dates, all about the same topic. */
async function world(t: { after(fn: () => unknown): void }) {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://feeds.example.org/all');
  await ingest(app, feed, [
    article('https://www.nytimes.com/a', NOW - 30 * 60), // half an hour old
    article('https://edition.cnn.com/b', NOW - 2 * DAY), // subdomain of cnn.com
    article('https://cnn.com/c', NOW - 20 * DAY),
    article('https://reddit.com/r/space/d', NOW - 200 * DAY),
    article('https://notcnn.com/e', NOW - 3 * 365 * DAY), // must not match cnn.com
  ]);
  return { app, svc: service(app) };
}

async function urls(
  svc: FusedSearchService,
  filters: SearchFilters,
  scope: SearchScope = { kind: 'instance' },
  limit = 10,
): Promise<string[]> {
  const q: SearchQuery = { text: 'solar eclipse viewers', scope, filters, limit };
  return (await svc.search(q)).map((h) => h.url).sort();
}

test('allow list restricts to the hosts and their subdomains (entries may be URLs)', async (t) => {
  const { svc } = await world(t);
  assert.deepEqual(await urls(svc, { domainFilter: ['cnn.com'] }), ['https://cnn.com/c', 'https://edition.cnn.com/b']);
  assert.deepEqual(await urls(svc, { domainFilter: ['https://www.cnn.com/world', 'nytimes.com'] }), [
    'https://cnn.com/c',
    'https://edition.cnn.com/b',
    'https://www.nytimes.com/a',
  ]);
});

test('deny list never returns the denied hosts or their subdomains, and still fills the limit', async (t) => {
  const { svc } = await world(t);
  assert.deepEqual(await urls(svc, { domainFilter: ['-cnn.com', '-reddit.com'] }), [
    'https://notcnn.com/e',
    'https://www.nytimes.com/a',
  ]);
  // Filtering happens inside the ranking query: with limit 2 both remaining articles come back.
  assert.equal((await urls(svc, { domainFilter: ['-cnn.com', '-reddit.com'] }, { kind: 'instance' }, 2)).length, 2);
});

test('recency and date ranges exclude articles outside them', async (t) => {
  const { svc } = await world(t);
  assert.deepEqual(await urls(svc, { recency: 'hour' }), ['https://www.nytimes.com/a']);
  assert.deepEqual(await urls(svc, { recency: 'week' }), ['https://edition.cnn.com/b', 'https://www.nytimes.com/a']);
  assert.equal((await urls(svc, { recency: 'month' })).length, 3);
  assert.equal((await urls(svc, { recency: 'year' })).length, 4);
  assert.deepEqual(await urls(svc, { publishedAfter: NOW - 21 * DAY, publishedBefore: NOW - DAY }), [
    'https://cnn.com/c',
    'https://edition.cnn.com/b',
  ]);
  assert.deepEqual(await urls(svc, { publishedBefore: NOW - 100 * DAY }), [
    'https://notcnn.com/e',
    'https://reddit.com/r/space/d',
  ]);
  assert.deepEqual(await urls(svc, { updatedAfter: NOW - 3 * DAY }), [
    'https://edition.cnn.com/b',
    'https://www.nytimes.com/a',
  ]);
  assert.deepEqual(await urls(svc, { updatedBefore: NOW - 3 * 365 * DAY }), ['https://notcnn.com/e']);
});

test('bad filter values throw SearchFilterError naming the parameter', async (t) => {
  const { svc } = await world(t);
  const cases: [SearchFilters, string][] = [
    [{ domainFilter: ['a.com', 'b.com', 'c.com', 'd.com'] }, 'search_domain_filter'],
    [{ domainFilter: ['a.com', '-b.com'] }, 'search_domain_filter'],
    [{ domainFilter: ['not a domain'] }, 'search_domain_filter'],
    [{ domainFilter: [''] }, 'search_domain_filter'],
    [{ recency: 'fortnight' as never }, 'search_recency_filter'],
    [{ publishedAfter: NOW, publishedBefore: NOW - DAY }, 'search_after_date_filter'],
    [{ updatedAfter: Number.NaN }, 'last_updated_after_filter'],
  ];
  for (const [filters, param] of cases) {
    await assert.rejects(
      urls(svc, filters),
      (e: unknown) => e instanceof SearchFilterError && e.param === param && e.message.includes(param),
      `${JSON.stringify(filters)} -> ${param}`,
    );
  }
});

test('parseUsDate reads %m/%d/%Y and names the parameter on bad input', async () => {
  assert.equal(parseUsDate('3/1/2025', 'search_after_date_filter'), Date.UTC(2025, 2, 1) / 1000);
  assert.equal(parseUsDate('12/31/2024', 'p', { endOfDay: true }), Date.UTC(2024, 11, 31, 23, 59, 59) / 1000);
  for (const bad of ['2025-03-01', '13/1/2025', '2/30/2025', '3/1/25', '', 'yesterday']) {
    assert.throws(
      () => parseUsDate(bad, 'search_before_date_filter'),
      (e: unknown) => e instanceof SearchFilterError && e.param === 'search_before_date_filter',
      bad,
    );
  }
});

test('parseDomainFilter strips www and takes URL hosts', async () => {
  assert.deepEqual(parseDomainFilter(['https://www.Example.com/path?q=1', 'news.bbc.co.uk']), {
    mode: 'allow',
    hosts: ['example.com', 'news.bbc.co.uk'],
  });
  assert.deepEqual(parseDomainFilter(['-reddit.com']), { mode: 'deny', hosts: ['reddit.com'] });
  assert.equal(parseDomainFilter([]), undefined);
});

test('a user only ever searches their own subscriptions', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const svc = service(app);
  const ann = await addUser(app, 'ann');
  const bob = await addUser(app, 'bob');
  const annFeed = await addFeed(app, 'https://ann.example/feed');
  const bobFeed = await addFeed(app, 'https://bob.example/feed');
  await subscribe(app, ann, annFeed);
  await subscribe(app, bob, bobFeed);
  await ingest(app, annFeed, [article('https://ann.example/1', NOW)]);
  await ingest(app, bobFeed, [article('https://bob.example/1', NOW), article('https://bob.example/2', NOW)]);
  assert.deepEqual(await urls(svc, {}, { kind: 'subscriptions', userId: ann }), ['https://ann.example/1']);
  assert.deepEqual(await urls(svc, {}, { kind: 'subscriptions', userId: bob }), [
    'https://bob.example/1',
    'https://bob.example/2',
  ]);
  assert.equal((await urls(svc, {}, { kind: 'instance' })).length, 3);
  // Ann cannot reach Bob's feed by naming it.
  await assert.rejects(
    urls(svc, {}, { kind: 'streams', userId: ann, streamIds: ['feed/https://bob.example/feed'] }),
    (e: unknown) => e instanceof SearchFilterError && /not subscribed/.test(e.message),
  );
  await assert.rejects(
    urls(svc, {}, { kind: 'streams', userId: ann, streamIds: [`user/${bob}/state/com.google/starred`] }),
    SearchFilterError,
  );
});

test('a subscription added here or removed by another process changes what the next search covers', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const svc = service(app);
  const ann = await addUser(app, 'ann');
  const annFeed = await addFeed(app, 'https://ann.example/feed');
  const otherFeed = await addFeed(app, 'https://other.example/feed');
  await subscribe(app, ann, annFeed);
  await ingest(app, annFeed, [article('https://ann.example/1', NOW)]);
  await ingest(app, otherFeed, [article('https://other.example/1', NOW)]);
  const scope: SearchScope = { kind: 'subscriptions', userId: ann };
  assert.deepEqual(await urls(svc, {}, scope), ['https://ann.example/1']);
  assert.deepEqual(await urls(svc, {}, scope), ['https://ann.example/1'], 'the same again (kept feeds)');

  await app.store.subscriptions.subscribe(ann, otherFeed);
  assert.deepEqual((await urls(svc, {}, scope)).sort(), ['https://ann.example/1', 'https://other.example/1']);

  // Another process (its own App and connections on the same database) unsubscribes her.
  const other = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: app.config.dataDir, logLevel: 'silent' } }),
  );
  t.after(async () => other.close());
  assert.equal(await other.store.subscriptions.unsubscribe(ann, otherFeed), true);
  // On PostgreSQL the change reaches this process as a notification (asynchronously, within milliseconds).
  const found = await seenAfterOtherCommit(
    app,
    () => urls(svc, {}, scope),
    (u) => u.length === 1,
  );
  assert.deepEqual(found, ['https://ann.example/1']);
});

test('stream-id scopes: feed, folder, tag, starred', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const svc = service(app);
  const ann = await addUser(app, 'ann');
  const bob = await addUser(app, 'bob');
  const science = await addFeed(app, 'https://science.example/feed');
  const space = await addFeed(app, 'https://space.example/feed');
  const sports = await addFeed(app, 'https://sports.example/feed');
  await subscribe(app, ann, science, 'Science');
  await subscribe(app, ann, space, 'Science');
  await subscribe(app, ann, sports);
  await subscribe(app, bob, sports, 'Science'); // Bob's folder of the same name holds other feeds
  await ingest(app, science, [article('https://science.example/1', NOW)]);
  await ingest(app, space, [article('https://space.example/1', NOW)]);
  const [sportsA, sportsB] = await ingest(app, sports, [
    article('https://sports.example/1', NOW),
    article('https://sports.example/2', NOW),
  ]);
  const tagged = await insertItem(app, sports, article('https://sports.example/tagged', NOW));
  app.notifyItemChanges({ added: [tagged], updated: [], deleted: [] });
  await testSql(app)
    .prepare('INSERT INTO item_labels (label_id, item_id, user_id) VALUES (?, ?, ?)')
    .run(await label(app, ann, 'keep'), tagged, ann);
  await testSql(app).prepare('UPDATE user_items SET starred = 1 WHERE user_id = ? AND item_id = ?').run(ann, sportsB!);
  await testSql(app).prepare('UPDATE user_items SET starred = 1 WHERE user_id = ? AND item_id = ?').run(bob, sportsA!);

  const streams = (ids: string[]) => urls(svc, {}, { kind: 'streams', userId: ann, streamIds: ids });
  assert.deepEqual(await streams(['feed/https://space.example/feed']), ['https://space.example/1']);
  assert.deepEqual(await streams(['user/-/label/Science']), ['https://science.example/1', 'https://space.example/1']);
  assert.deepEqual(await streams(['user/-/label/keep']), ['https://sports.example/tagged']);
  assert.deepEqual(await streams(['user/-/state/com.google/starred']), ['https://sports.example/2']);
  assert.deepEqual(await streams([`user/${ann}/state/com.google/starred`, 'feed/https://space.example/feed']), [
    'https://space.example/1',
    'https://sports.example/2',
  ]);
  assert.equal((await streams(['user/-/state/com.google/reading-list'])).length, 5);
  assert.deepEqual(await urls(svc, {}, { kind: 'streams', userId: bob, streamIds: ['user/-/label/Science'] }), [
    'https://sports.example/1',
    'https://sports.example/2',
    'https://sports.example/tagged',
  ]);
  for (const bad of [
    [],
    ['user/-/label/Nope'],
    ['user/-/state/com.google/unknown'],
    ['splice/x'],
    ['feed/https://nowhere.example/'],
  ]) {
    await assert.rejects(
      streams(bad),
      (e: unknown) => e instanceof SearchFilterError && e.param === 'search_streams',
      JSON.stringify(bad),
    );
  }
});
