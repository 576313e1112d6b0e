import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDataDir } from './helpers.ts';
import { addFeed, addUser, ingest, subscribe, testApp } from '../src/search/testing/fixtures.ts';
import { searchIndexRepository } from '../src/search/indexing.ts';

test('tidings search reindex / query', async () => {
  const dataDir = tempDataDir();
  const app = await testApp({ dataDir });
  const ann = await addUser(app, 'ann');
  const feed = await addFeed(app, 'https://cli.example/feed', 'CLI News');
  await subscribe(app, ann, feed);
  await ingest(app, feed, [
    {
      url: 'https://cli.example/otters',
      title: 'Otters return to the river',
      content: '<p>Sea otters were seen in the estuary again.</p>',
    },
  ]);
  await app.close();
  const env = { TIDINGS_DATA: dataDir, TIDINGS_LOG_LEVEL: 'silent' };

  const reindex = await runCli(['search', 'reindex'], env);
  assert.equal(reindex.code, 0, reindex.stderr);
  assert.match(reindex.stdout, /indexed 1 articles \(1 passages\)/);

  const q = await runCli(['search', 'query', 'where', 'are', 'the', 'otters?', '--user', 'ann', '--json'], env);
  assert.equal(q.code, 0, q.stderr);
  assert.deepEqual(
    JSON.parse(q.stdout).map((h: { url: string }) => h.url),
    ['https://cli.example/otters'],
  );

  const badStream = await runCli(['search', 'query', 'otters', '--user', 'ann', '--stream', 'user/-/label/Nope'], env);
  assert.equal(badStream.code, 2);
  assert.match(badStream.stderr, /no folder or tag named "Nope"/);
  const badLimit = await runCli(['search', 'query', 'otters', '--limit', 'x'], env);
  assert.equal(badLimit.code, 2);
  assert.match(badLimit.stderr, /--limit must be/);
});

test('a search from the command line finishes a rebuild an upgrade left pending, and says so', async () => {
  const dataDir = tempDataDir();
  const app = await testApp({ dataDir });
  const feed = await addFeed(app, 'https://upgrade.example/feed', 'Upgrade News');
  await ingest(app, feed, [
    {
      url: 'https://upgrade.example/herons',
      title: 'Herons nest early',
      content: '<p>Grey herons are nesting a month early this year.</p>',
    },
  ]);
  // What migration 033 does to an existing index: empty it and mark a rebuild pending.
  await searchIndexRepository(app).deleteAll();
  await app.close();
  const env = { TIDINGS_DATA: dataDir, TIDINGS_LOG_LEVEL: 'silent' };
  const q = await runCli(['search', 'query', 'grey', 'herons', '--json'], env);
  assert.equal(q.code, 0, q.stderr);
  assert.match(q.stderr, /finishing the search index rebuild left by an upgrade/);
  assert.deepEqual(
    JSON.parse(q.stdout).map((h: { url: string }) => h.url),
    ['https://upgrade.example/herons'],
  );
  const again = await runCli(['search', 'query', 'herons'], env);
  assert.doesNotMatch(again.stderr, /rebuild/, 'only once');
});
