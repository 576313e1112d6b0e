import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDataDir } from './helpers.ts';
import { startFeedServer, rss } from './feeds-fixtures.ts';

const server = await startFeedServer();
after(() => server.close());
const env = { TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true', TIDINGS_LOG_LEVEL: 'silent' };
const three = [
  { guid: 'a', title: 'A' },
  { guid: 'b', title: 'B' },
  { guid: 'c', title: 'C' },
];

let failing = false;
server.routes.set('/cli/news.xml', (_q, s) => {
  s.setHeader('content-type', 'application/rss+xml');
  s.end(rss('News & Views', three));
});
server.routes.set('/cli/other.xml', (_q, s) => {
  if (failing) {
    s.statusCode = 410;
    s.end();
    return;
  }
  s.setHeader('content-type', 'application/rss+xml');
  s.end(
    rss(
      'Other',
      three.map((e) => ({ ...e, guid: 'o' + e.guid })),
    ),
  );
});
server.routes.set('/cli/site/', (_q, s) => {
  s.setHeader('content-type', 'text/html');
  s.end(
    `<html><head><link rel="alternate" type="application/rss+xml" href="${server.base}/cli/other.xml"></head></html>`,
  );
});

test('feed add/list/remove, opml import/export and refresh through the real CLI', async () => {
  const data = tempDataDir();
  const cli = (...args: string[]) => runCli(['--data', data, ...args], env);
  {
    const u = await cli('user', 'add', 'alice', '--password', 's3cret!!');
    assert.equal(u.code, 0, u.stderr);
  }

  const add = await cli('feed', 'add', 'alice', `${server.base}/cli/news.xml`, '--folder', 'Tech');
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /subscribed alice to "News & Views"/);
  const discovered = await cli('feed', 'add', 'alice', `${server.base}/cli/site/`);
  assert.equal(discovered.code, 0, discovered.stderr);
  assert.match(discovered.stdout, /cli\/other\.xml/);

  const list = JSON.parse((await cli('feed', 'list', 'alice', '--json')).stdout) as Record<string, unknown>[];
  assert.deepEqual(
    list.map((f) => [f.title, f.folders, f.itemCount, f.lastError]),
    [
      ['News & Views', ['Tech'], 3, null],
      ['Other', [], 3, null],
    ],
  );
  assert.match(String(list[0]!.lastFetchedAt), /^\d{4}-\d\d-\d\dT/);
  assert.ok(Date.parse(String(list[0]!.nextFetchAt)) > Date.parse(String(list[0]!.lastFetchedAt)));

  const exported = await cli('opml', 'export', 'alice');
  assert.equal(exported.code, 0);
  assert.match(exported.stdout, /<outline text="Tech" title="Tech">\s*<outline text="News &amp; Views" type="rss"/);

  // Import into a second user: same feeds (not refetched), same folders.
  assert.equal((await cli('user', 'add', 'bob', '--password', 's3cret!!')).code, 0);
  const file = join(data, 'subs.opml');
  writeFileSync(file, exported.stdout);
  const imp = await cli('opml', 'import', 'bob', file);
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stdout, /imported 2 feed\(s\) for bob/);
  const bobList = JSON.parse((await cli('feed', 'list', 'bob', '--json')).stdout) as {
    url: string;
    folders: string[];
  }[];
  assert.deepEqual(
    bobList.map((f) => f.folders),
    [['Tech'], []],
  );

  // refresh --all: one feed now fails; its error shows in the list; the other is unchanged.
  failing = true;
  const refresh = await cli('refresh', '--all');
  assert.equal(refresh.code, 1, 'a failed feed makes refresh exit 1: ' + refresh.stderr);
  assert.match(refresh.stderr, /tidings: 1 of 2 feed\(s\) failed/);
  assert.match(refresh.stdout, /refreshed 2 feed\(s\) in [\d.]+ s: 0 updated, 1 unchanged, 1 failed; 0 new item\(s\)/);
  assert.match(refresh.stderr, /failed .*other\.xml: HTTP 410 Gone: the feed was removed/);
  const after = JSON.parse((await cli('feed', 'list', 'alice', '--json')).stdout) as {
    lastError: string | null;
    itemCount: number;
  }[];
  assert.equal(after[1]!.lastError, 'HTTP 410 Gone: the feed was removed');
  assert.equal(after[1]!.itemCount, 3);
  assert.match((await cli('refresh')).stdout, /no feeds are due/);

  const rm = await cli('feed', 'remove', 'alice', `${server.base}/cli/news.xml`);
  assert.equal(rm.code, 0, rm.stderr);
  assert.equal((JSON.parse((await cli('feed', 'list', 'alice', '--json')).stdout) as unknown[]).length, 1);
});

test('bad CLI arguments: one line on stderr and a non-zero exit', async () => {
  const data = tempDataDir();
  const cli = (...args: string[]) => runCli(['--data', data, ...args], env);
  await cli('user', 'add', 'alice', '--password', 's3cret!!');
  const cases: [string[], RegExp, number][] = [
    [['feed', 'add', 'nobody', 'https://example.org/feed'], /no user "nobody"/, 2],
    [
      ['feed', 'add', 'alice', 'ftp://example.org/feed'],
      /cannot add ftp:\/\/example.org\/feed: refusing the ftp: URL scheme/,
      2,
    ],
    [['feed', 'add', 'alice', 'http://exa mple.org'], /is not a valid URL/, 2],
    [['feed', 'add', 'alice', `${server.base}/cli/missing.xml`], /HTTP 404 Not Found/, 1],
    [['feed', 'remove', 'alice', 'https://example.org/none'], /alice is not subscribed/, 1],
    [['opml', 'import', 'alice', join(data, 'missing.opml')], /cannot read .*missing\.opml: no such file/, 2],
  ];
  writeFileSync(join(data, 'bad.opml'), '<html><body>not opml</body></html>');
  cases.push([['opml', 'import', 'alice', join(data, 'bad.opml')], /not a valid OPML file/, 1]);
  writeFileSync(
    join(data, 'none.opml'),
    '<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body><outline text="Empty folder"/></body></opml>',
  );
  cases.push([['opml', 'import', 'alice', join(data, 'none.opml')], /no feeds found/, 1]);
  cases.push([['feed', 'add', 'alice', 'not a url'], /cannot add not a url: "not a url" is not a valid URL/, 2]);
  writeFileSync(
    join(data, 'evil.opml'),
    '<!DOCTYPE opml [<!ENTITY a "aaaa">]><opml><body><outline text="&a;" xmlUrl="http://x/"/></body></opml>',
  );
  cases.push([['opml', 'import', 'alice', join(data, 'evil.opml')], /declares XML entities/, 1]);
  // Independent cases: run them side by side (each is a separate process).
  const results = await Promise.all(cases.map(([args]) => cli(...args)));
  for (const [i, [args, re, code]] of cases.entries()) {
    const r = results[i]!;
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${r.stderr}`);
  }
});
