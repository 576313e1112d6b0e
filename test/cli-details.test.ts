// CLI and data details an operator runs into: readable list output, refresh exit codes, ClientLogin
// tokens that do not pile up, titles that OPML import and refreshes leave alone, and relative URLs
// in article content resolved as Miniflux does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relativeTime, table } from '../src/cli/format.ts';
import { runCli, tempDataDir } from './helpers.ts';
import { startFeedServer, testApp, rss, addUser } from './feeds-fixtures.ts';
import { subscribe, refreshFeed, feedEngine } from '../src/feeds/index.ts';
import { importOpml } from '../src/feeds/opml/import-export.ts';
import { issueClientLoginToken, CLIENTLOGIN_SUPERSEDE_IDLE_SECONDS } from '../src/auth/tokens.ts';
import { authStore } from '../src/auth/repositories.ts';
import { parseFeed } from '../src/feeds/parser/parse-feed.ts';
import { testSql } from '../src/store/testing.ts';

test('relative times and tables', () => {
  const now = 1_800_000_000;
  assert.equal(relativeTime(now + 22 * 3600, now), 'in 22 h');
  assert.equal(relativeTime(now - 300, now), '5 min ago');
  assert.equal(relativeTime(now + 10, now), 'now');
  assert.equal(relativeTime(now - 3 * 86400, now), '3 d ago');
  assert.equal(relativeTime(now + 365 * 86400, now), 'in 12 mo');
  assert.equal(relativeTime(null, now), 'never');
  assert.equal(table(['A', 'B'], [['x\ty', 1]]), 'A\tB\nx y\t1');
});

test('feed list and token list print headers and human times; refresh exits 1 when a feed failed', {
  timeout: 300_000,
}, async () => {
  const server = await startFeedServer();
  server.routes.set('/ok.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('Fine feed', [{ guid: 'a', title: 'A' }]));
  });
  let brokenUp = true;
  server.routes.set('/flaky.xml', (_, res) => {
    if (brokenUp) {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(rss('Flaky', []));
    } else {
      res.statusCode = 500;
      res.end('down');
    }
  });
  const data = tempDataDir();
  const env = { TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true', TIDINGS_LOG_LEVEL: 'silent' };
  const cli = (...args: string[]) => runCli(['--data', data, ...args], env);
  try {
    assert.equal((await cli('user', 'add', 'alice', '--password', 'correct horse')).code, 0);
    assert.equal((await cli('feed', 'add', 'alice', `${server.base}/ok.xml`)).code, 0);
    assert.equal((await cli('feed', 'add', 'alice', `${server.base}/flaky.xml`)).code, 0);
    const list = await cli('feed', 'list', 'alice');
    const [header, ...rows] = list.stdout.trim().split('\n');
    assert.equal(header, 'TITLE\tURL\tFOLDERS\tITEMS\tUNREAD\tSTATUS\tLAST FETCH\tNEXT FETCH');
    const fine = rows.find((r) => r.startsWith('Fine feed'))!.split('\t');
    assert.deepEqual(fine.slice(3, 7), ['1', '1', 'ok', 'now']);
    assert.match(fine[7], /^in \d+ (min|h)$/);

    const ok = await cli('refresh', '--all');
    assert.equal(ok.code, 0, ok.stderr);
    brokenUp = false;
    const failed = await cli('refresh', '--all');
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, /1 failed/);
    assert.match(failed.stderr, /failed .*flaky\.xml/);
    assert.match(failed.stderr, /tidings: 1 of 2 feed\(s\) failed/);

    assert.equal((await cli('token', 'create', 'alice', '--label', 'script')).code, 0);
    const tokens = (await cli('token', 'list', 'alice')).stdout.trim().split('\n');
    assert.equal(tokens[0], 'ID\tKIND\tSCOPE\tSTATUS\tCREATED\tLAST USED\tEXPIRES\tCLIENT\tLABEL');
    assert.deepEqual(tokens[1].split('\t').slice(1), [
      'clientlogin',
      'read write',
      'active',
      'now',
      'never',
      'in 12 mo',
      '-',
      'script',
    ]);
  } finally {
    await server.close();
  }
});

test('a client that logs in again supersedes its idle tokens instead of piling them up', async () => {
  const app = await testApp();
  try {
    const alice = await addUser(app, 'alice');
    const tokens = authStore(app).tokens;
    for (let i = 0; i < 5; i++) await issueClientLoginToken(app, alice, 'ClientLogin Reeder');
    await issueClientLoginToken(app, alice, 'ClientLogin NetNewsWire');
    // A day later, one of Reeder's tokens is still in use (another device), the others idle.
    const idle = Math.floor(Date.now() / 1000) - CLIENTLOGIN_SUPERSEDE_IDLE_SECONDS - 60;
    await testSql(app).prepare('UPDATE auth_tokens SET created_at = ?, last_used_at = NULL').run(idle);
    const inUse = (await tokens.listForUser(alice)).find((t) => t.label === 'ClientLogin Reeder')!;
    await tokens.markUsed(inUse.id, Math.floor(Date.now() / 1000));
    await issueClientLoginToken(app, alice, 'ClientLogin Reeder');
    const left = (await tokens.listForUser(alice)).map((t) => t.label).sort();
    assert.deepEqual(left, ['ClientLogin NetNewsWire', 'ClientLogin Reeder', 'ClientLogin Reeder']);
  } finally {
    await app.close();
  }
});

test('OPML import does not rename an existing subscription, and a given title survives refreshes', async () => {
  const server = await startFeedServer();
  server.routes.set('/a.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('Server title A', [{ guid: 'a', title: 'A' }]));
  });
  server.routes.set('/b.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('Server title B', [{ guid: 'b', title: 'B' }]));
  });
  const app = await testApp();
  try {
    const alice = await addUser(app, 'alice');
    await subscribe(app, alice, `${server.base}/a.xml`, { title: 'My name for A' });
    const opml = `<?xml version="1.0"?><opml version="2.0"><body><outline text="Tech">
      <outline type="rss" text="OPML name for A" xmlUrl="${server.base}/a.xml"/>
      <outline type="rss" text="OPML name for B" xmlUrl="${server.base}/b.xml"/></outline></body></opml>`;
    const r = await importOpml(app, alice, opml);
    assert.deepEqual([r.imported, r.alreadySubscribed], [1, 1]);
    const subs = () => feedEngine(app).subscriptions.list(alice);
    const titles = async () =>
      Object.fromEntries((await subs()).map((s) => [s.feed.url.split('/').pop(), [s.title, s.folders]]));
    assert.deepEqual(await titles(), { 'a.xml': ['My name for A', ['Tech']], 'b.xml': ['OPML name for B', ['Tech']] });
    for (const s of await subs()) await refreshFeed(app, s.feed.id);
    assert.deepEqual(await titles(), { 'a.xml': ['My name for A', ['Tech']], 'b.xml': ['OPML name for B', ['Tech']] });
    assert.equal((await subs()).find((s) => s.feed.url.endsWith('b.xml'))!.feed.title, 'Server title B');
  } finally {
    await app.close();
    await server.close();
  }
});

test('relative URLs in content resolve against xml:base, else the entry link, else the feed URL', () => {
  const feedUrl = 'https://feeds.cdn.example/site/feed.xml';
  const atom = (
    entryAttrs: string,
    link: string,
    docBase = '',
  ) => `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"${docBase}><title>T</title>
    <entry${entryAttrs}><id>urn:1</id><title>E</title>${link}<updated>2026-11-01T00:00:00Z</updated>
    <content type="html">&lt;p&gt;&lt;img src="/img/a.png"&gt; &lt;a href="more.html"&gt;more&lt;/a&gt;&lt;/p&gt;</content></entry></feed>`;
  const content = (xml: string) =>
    parseFeed(xml, { url: feedUrl, contentType: 'application/atom+xml' }).entries[0].content!;
  const byLink = content(atom('', '<link href="https://blog.example/posts/1/"/>'));
  assert.match(byLink, /src="https:\/\/blog\.example\/img\/a\.png"/);
  assert.match(byLink, /href="https:\/\/blog\.example\/posts\/1\/more\.html"/);
  const byEntryBase = content(
    atom(' xml:base="https://base.example/x/"', '<link href="https://blog.example/posts/1/"/>'),
  );
  assert.match(byEntryBase, /src="https:\/\/base\.example\/img\/a\.png"/);
  const byDocBase = content(
    atom('', '<link href="https://blog.example/posts/1/"/>', ' xml:base="https://doc.example/"'),
  );
  assert.match(byDocBase, /src="https:\/\/doc\.example\/img\/a\.png"/);
  const byFeedUrl = content(atom('', ''));
  assert.match(byFeedUrl, /src="https:\/\/feeds\.cdn\.example\/img\/a\.png"/);
  assert.match(byFeedUrl, /href="https:\/\/feeds\.cdn\.example\/site\/more\.html"/);
});
