// The newest articles of a scope, for a roundup ("what's new?", which names no words to search):
// newest first whatever order they were indexed in, only the asker's feeds, the filters applied,
// removed and undated articles left out, each with its opening passages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, addUser, ingest, subscribe, testApp } from './testing/fixtures.ts';
import { type FusedSearchService, searchService } from './service.ts';
import { flushSearchIndexing } from './indexing.ts';
import { testSql } from '../store/testing.ts';
import { SearchFilterError } from './types.ts';

const DAY = 86_400;
const T0 = 1_760_000_000;

test('newest(): the newest articles in scope, newest first, filters applied, removed ones left out', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const alice = await addUser(app, 'alice');
  const mine = await addFeed(app, 'https://mine.example/feed', 'Mine');
  const theirs = await addFeed(app, 'https://theirs.example/feed', 'Theirs');
  await subscribe(app, alice, mine);
  // Indexed in an order unrelated to their days: day 3, day 9, day 1, …
  const days = [3, 9, 1, 7, 5, 8, 2, 6, 4];
  const ids = await ingest(
    app,
    mine,
    days.map((d) => ({
      url: `https://mine.example/${d}`,
      title: `Day ${d} story`,
      content: `<p>Lede of day ${d}.</p><p>${'Body text goes on. '.repeat(60)}</p><p>Ending of day ${d}.</p>`,
      publishedAt: T0 + d * DAY,
    })),
  );
  await ingest(app, theirs, [
    {
      url: 'https://theirs.example/new',
      title: 'Not subscribed',
      content: '<p>Newer than all.</p>',
      publishedAt: T0 + 20 * DAY,
    },
  ]);
  const search = searchService(app);
  const scope = { kind: 'subscriptions' as const, userId: alice };
  const titles = async (filters = {}, limit = 4) =>
    (await search.newest({ scope, filters, limit })).map((h) => h.title);

  assert.deepEqual(await titles(), ['Day 9 story', 'Day 8 story', 'Day 7 story', 'Day 6 story']);
  assert.deepEqual(await titles({ publishedBefore: T0 + 5 * DAY }), [
    'Day 5 story',
    'Day 4 story',
    'Day 3 story',
    'Day 2 story',
  ]);
  assert.deepEqual(await titles({}, 0), []);
  // The whole instance sees the other feed too.
  assert.equal(
    (await search.newest({ scope: { kind: 'instance' }, filters: {}, limit: 1 }))[0]!.title,
    'Not subscribed',
  );

  // Each hit carries its article's opening passage first, its day and its feed's name.
  const [first] = await search.newest({ scope, filters: {}, limit: 1 });
  assert.match(first!.passages[0]!.text, /^Lede of day 9\./);
  assert.equal(first!.publishedAt, T0 + 9 * DAY);
  assert.equal(first!.sourceName, 'Mine');

  // A removed article is never returned; the next newest takes its place.
  const day9 = ids[days.indexOf(9)]!;
  await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(day9);
  app.notifyItemChanges({ added: [], updated: [], deleted: [day9] });
  await flushSearchIndexing(app);
  assert.deepEqual(await titles(), ['Day 8 story', 'Day 7 story', 'Day 6 story', 'Day 5 story']);

  // A filter the caller must fix is refused before anything is counted.
  const before = (search as FusedSearchService).searchesPerformed;
  await assert.rejects(
    search.newest({ scope, filters: { domainFilter: ['a', 'b', 'c', 'd'] }, limit: 4 }),
    SearchFilterError,
  );
  assert.equal((search as FusedSearchService).searchesPerformed, before);
});

test('feedNames() and newest() of some feeds: the asker’s names, and never a feed outside the scope', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const alice = await addUser(app, 'alice');
  const bob = await addUser(app, 'bob');
  const guardian = await addFeed(app, 'https://guardian.example/feed', 'The Guardian');
  const cr = await addFeed(app, 'https://cr.example/feed', 'Critical Role');
  const other = await addFeed(app, 'https://other.example/feed', 'Other');
  await subscribe(app, alice, guardian);
  await subscribe(app, alice, cr);
  await subscribe(app, bob, cr);
  await testSql(app)
    .prepare('UPDATE subscriptions SET title = ? WHERE user_id = ? AND feed_id = ?')
    .run('Bells Hells', alice, cr);
  for (const [feed, host, offset] of [
    [guardian, 'guardian', 0],
    [cr, 'cr', 100],
    [other, 'other', 200],
  ] as const)
    await ingest(
      app,
      feed,
      [1, 2].map((d) => ({
        url: `https://${host}.example/${d}`,
        title: `${host} ${d}`,
        content: `<p>Lede ${d}.</p>`,
        publishedAt: T0 + d * DAY + offset,
      })),
    );
  await flushSearchIndexing(app);
  const search = searchService(app);
  const scope = { kind: 'subscriptions' as const, userId: alice };
  const names = (await search.feedNames(scope, 100)).map((f) => [f.title, f.userTitle]);
  assert.deepEqual(names, [
    ['The Guardian', null],
    ['Critical Role', 'Bells Hells'],
  ]);
  // bob's own name is his (none); the instance names a feed by its subscribers' one title, if any.
  assert.deepEqual(
    (await search.feedNames({ kind: 'subscriptions', userId: bob }, 100)).map((f) => f.userTitle),
    [null],
  );
  assert.deepEqual(
    (await search.feedNames({ kind: 'instance' }, 100)).map((f) => [f.title, f.userTitle]),
    [
      ['The Guardian', null],
      ['Critical Role', 'Bells Hells'],
      ['Other', null],
    ],
  );
  assert.equal((await search.feedNames(scope, 1)).length, 1);
  const titles = async (feedIds: number[], s: typeof scope | { kind: 'instance' } = scope) =>
    (await search.newest({ scope: s, filters: {}, limit: 10, feedIds })).map((h) => h.title);
  assert.deepEqual(await titles([cr]), ['cr 2', 'cr 1']);
  assert.deepEqual(await titles([guardian, cr]), ['cr 2', 'guardian 2', 'cr 1', 'guardian 1']);
  // A feed the asker does not subscribe to stays out, whatever the caller passes.
  assert.deepEqual(await titles([other]), []);
  assert.deepEqual(await titles([other], { kind: 'instance' }), ['other 2', 'other 1']);
});
