import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDataDir } from './helpers.ts';
import { addFeed, addUser, ingest, insertItem, subscribe, testApp } from '../src/search/testing/fixtures.ts';
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

  // The item was indexed when it was stored (the App drained the backlog before closing).
  const status = await runCli(['search', 'status', '--json'], env);
  assert.equal(status.code, 0, status.stderr);
  const st = JSON.parse(status.stdout);
  assert.deepEqual(
    { stored: st.stored, indexed: st.indexed, waiting: st.waiting, lagSeconds: st.lagSeconds, rebuild: st.rebuild },
    { stored: 1, indexed: 1, waiting: 0, lagSeconds: null, rebuild: null },
  );
  assert.match(st.backend, /^(sqlite|postgres)$/);

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

test('tidings search status counts what waits, and does not index it itself (the server does)', async () => {
  const dataDir = tempDataDir();
  const app = await testApp({ dataDir });
  const feed = await addFeed(app, 'https://wait.example/feed', 'Waiting');
  // Stored as a crashed process leaves them: committed, never reported to the indexer.
  for (const n of [1, 2, 3])
    await insertItem(app, feed, { url: `https://wait.example/${n}`, title: `Queued ${n}`, content: '<p>Text.</p>' });
  await app.close();
  const env = { TIDINGS_DATA: dataDir, TIDINGS_LOG_LEVEL: 'silent' };
  const text = await runCli(['search', 'status'], env);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /stored: +3 articles/);
  assert.match(text.stdout, /indexed: +0 articles/);
  assert.match(text.stdout, /waiting: +3 \(oldest queued \d+\.\d s ago\)/);
  const again = JSON.parse((await runCli(['search', 'status', '--json'], env)).stdout);
  assert.equal(again.waiting, 3, 'a status command leaves the backlog to the server');
  // A search drains it first: it sees every committed item, whichever process stored it.
  const q = await runCli(['search', 'query', 'queued', '--json'], env);
  assert.equal(q.code, 0, q.stderr);
  assert.equal(JSON.parse(q.stdout).length, 3);
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
  assert.match(q.stderr, /search index rebuilt \(1 articles\)/);
  assert.deepEqual(
    JSON.parse(q.stdout).map((h: { url: string }) => h.url),
    ['https://upgrade.example/herons'],
  );
  const again = await runCli(['search', 'query', 'herons'], env);
  assert.doesNotMatch(again.stderr, /rebuild/, 'only once');
});

test('tidings search status counts articles with no text apart: they are not a backlog', async () => {
  const dataDir = tempDataDir();
  const app = await testApp({ dataDir });
  const feed = await addFeed(app, 'https://empty.example/feed', 'Empty');
  await ingest(app, feed, [
    { url: 'https://empty.example/a', title: 'Has text', content: '<p>Words here.</p>' },
    { url: 'https://empty.example/b', title: '', content: '<img src="x.png">' },
    { url: 'https://empty.example/c', title: '', content: '' },
  ]);
  await app.close();
  const env = { TIDINGS_DATA: dataDir, TIDINGS_LOG_LEVEL: 'silent' };
  const st = JSON.parse((await runCli(['search', 'status', '--json'], env)).stdout);
  assert.deepEqual(
    { stored: st.stored, indexed: st.indexed, waiting: st.waiting, noText: st.noText },
    { stored: 3, indexed: 1, waiting: 0, noText: 2 },
  );
  const text = (await runCli(['search', 'status'], env)).stdout;
  assert.match(text, /no text: +2 articles \(no title or body: nothing to index\)/);
});
