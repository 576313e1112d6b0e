// Per-user limits over the Reader API: feeds per user, OPML size, label names; and a big OPML
// import that lets other requests through while it runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';

let h: Harness;
let c: ReaderClient;

before(async () => {
  h = await startHarness({ maxFeedsPerUser: 3, maxOpmlBytes: 20_000, maxLabelLength: 20 });
  for (const name of ['f1', 'f2', 'f3', 'f4']) h.feeds.addItems(name, 2);
  await addUser(h.app, 'dana', 'pw-dana-secret');
  c = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'dana', 'pw-dana-secret')}`);
});
after(async () => {
  await h.close();
});

const opml = (urls: string[], folder = 'Imported') =>
  `<?xml version="1.0"?><opml version="2.0"><body><outline text="${folder.replace(/\n/g, '&#10;')}">${urls.map((u) => `<outline type="rss" text="x" xmlUrl="${u}"/>`).join('')}</outline></body></opml>`;
const subscriptionCount = async () => (await c.get('subscription/list')).json().subscriptions.length;

test('feeds per user: the one past the limit is refused with a message naming the setting', async () => {
  for (const name of ['f1', 'f2', 'f3'])
    assert.equal((await c.post('subscription/quickadd', [['quickadd', h.feeds.url(name)]])).status, 200);
  const over = await c.post('subscription/quickadd', [['quickadd', h.feeds.url('f4')]]);
  assert.equal(over.status, 400);
  assert.match(over.json().error, /you already have 3 feeds.*TIDINGS_MAX_FEEDS_PER_USER=3/);
  const edit = await c.post('subscription/edit', [
    ['ac', 'subscribe'],
    ['s', `feed/${h.feeds.url('f4')}`],
  ]);
  assert.equal(edit.status, 400);
  assert.match(edit.text, /^Error=.*TIDINGS_MAX_FEEDS_PER_USER/);
  assert.equal(
    (await c.post('subscription/quickadd', [['quickadd', h.feeds.url('f1')]])).status,
    200,
    'a feed already subscribed is not a new one',
  );
  const imp = await c.post(
    'subscription/import',
    opml([h.feeds.url('f1'), h.feeds.url('f4'), 'https://example.org/new.xml']),
    'text/xml',
  );
  assert.equal(imp.status, 400);
  assert.match(
    imp.text,
    /^Error=cannot import this OPML: this would bring you to 5 feeds \(2 new\); one user may have at most 3/,
  );
  assert.equal(await subscriptionCount(), 3, 'nothing was imported');
});

test('OPML size: a file over TIDINGS_MAX_OPML_BYTES is refused before parsing', async () => {
  const big = opml(Array.from({ length: 400 }, (_, i) => `https://example.org/feed-${i}.xml`));
  assert.ok(big.length > 20_000);
  const r = await c.post('subscription/import', big, 'text/xml');
  assert.equal(r.status, 400);
  assert.match(
    r.text,
    /^Error=cannot import this OPML: the OPML file is \d+ bytes; at most 20000 are accepted \(TIDINGS_MAX_OPML_BYTES\)/,
  );
});

test('label names: too long, line breaks, control and bidi override characters are refused; nothing is stored', async () => {
  const feed = `feed/${h.feeds.url('f1')}`;
  const ids = (await c.get('stream/items/ids', [['s', S.readingList]]))
    .json()
    .itemRefs.map((r: { id: string }) => r.id);
  const bad: [string, RegExp][] = [
    ['x'.repeat(5000), /is 5000 characters long; at most 20 are allowed \(TIDINGS_MAX_LABEL_LENGTH\)/],
    ['two\nlines', /contains a line break \(U\+000A\)/],
    ['gnp\u202Eexe', /contains an invisible control character \(U\+202E\)/],
    ['tab\there', /U\+0009/],
    ['iso\u2067late', /U\+2067/],
  ];
  for (const [name, message] of bad) {
    const tag = await c.post('edit-tag', [
      ['i', ids[0]],
      ['a', S.label(name)],
    ]);
    assert.equal(tag.status, 400, JSON.stringify(name));
    assert.match(tag.text, message);
    assert.equal(
      (
        await c.post('subscription/edit', [
          ['ac', 'edit'],
          ['s', feed],
          ['a', S.label(name)],
        ])
      ).status,
      400,
    );
  }
  assert.equal(
    (
      await c.post('edit-tag', [
        ['i', ids[0]],
        ['a', S.label('Family 👨‍👩‍👧')],
      ])
    ).status,
    200,
    'emoji sequences (zero-width joiners) are fine',
  );
  const rename = await c.post('rename-tag', [
    ['s', S.label('Family 👨‍👩‍👧')],
    ['dest', S.label('a\u202Eb')],
  ]);
  assert.equal(rename.status, 400);
  const tags = (await c.get('tag/list')).json().tags.map((t: { id: string }) => t.id);
  assert.ok(
    tags.every((t: string) => t.length < 80 && !/[\n\t\u202E\u2067]/.test(t)),
    JSON.stringify(tags),
  );
});

test('OPML folder names are cleaned, not refused', async () => {
  await c.post('subscription/edit', [
    ['ac', 'unsubscribe'],
    ['s', `feed/${h.feeds.url('f3')}`],
  ]);
  const r = await c.post(
    'subscription/import',
    opml([h.feeds.url('f3')], 'Evil\u202Efolder\nname that is far too long'),
    'text/xml',
  );
  assert.equal(r.status, 200, r.text);
  const sub = (await c.get('subscription/list'))
    .json()
    .subscriptions.find((s: { url: string }) => s.url === h.feeds.url('f3'));
  assert.deepEqual(
    sub.categories.map((x: { label: string }) => x.label),
    ['Evil folder name tha'],
  );
});

test('a big OPML import lets other requests through while it runs', async () => {
  const events: string[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      for (const l of String(chunk).split('\n')) if (l.includes('OPML import progress')) events.push('progress');
      cb();
    },
  });
  const big = await startHarness({ maxFeedsPerUser: 0 }, pino({ level: 'info' }, sink));
  try {
    await addUser(big.app, 'erin', 'pw-erin-secret');
    const e = new ReaderClient(big.url, `GoogleLogin auth=${await clientLogin(big.url, 'erin', 'pw-erin-secret')}`);
    const doc = opml(Array.from({ length: 3000 }, (_, i) => `https://feeds-${i}.example.org/rss.xml`));
    let done = false;
    // Settled either way: a failed request (a client timeout) must fail the test, not leave the
    // loop below polling forever (a CI run once hung on it after the test's own timeout).
    const importing = e.post('subscription/import', doc, 'text/xml').finally(() => {
      done = true;
    });
    while (!done) {
      const r = await fetch(`${big.url}/healthz`);
      await r.text();
      if (!done) events.push('served');
    }
    const r = await importing;
    assert.equal(r.status, 200, r.text);
    assert.equal((await e.get('subscription/list')).json().subscriptions.length, 3000);
    const first = events.indexOf('progress'),
      last = events.lastIndexOf('progress');
    assert.ok(first >= 0 && last > first, `progress was logged: ${events.join(' ')}`);
    assert.ok(events.slice(first, last).includes('served'), `a request was served between chunks: ${events.join(' ')}`);
  } finally {
    await big.close();
  }
});

test('tags: at most 100 named per request, and TIDINGS_MAX_LABELS_PER_USER in all (folders included)', async () => {
  const h2 = await startHarness({ maxLabelsPerUser: 5 });
  try {
    h2.feeds.addItems('t1', 1);
    await addUser(h2.app, 'tess', 'pw-tess-secret');
    const t = new ReaderClient(h2.url, `GoogleLogin auth=${await clientLogin(h2.url, 'tess', 'pw-tess-secret')}`);
    assert.equal((await t.post('subscription/quickadd', [['quickadd', h2.feeds.url('t1')]])).status, 200);
    const ids = (await t.get('stream/items/ids', [['s', S.readingList]])).json().itemRefs.map((r: any) => r.id);
    const tags = (names: string[]): [string, string][] => [
      ['i', ids[0]],
      ...names.map((n) => ['a', S.label(n)] as [string, string]),
    ];
    // 10,000 new tags in one request were accepted (issue 25).
    const flood = await t.post('edit-tag', tags(Array.from({ length: 10_000 }, (_, i) => `t${i}`)));
    assert.equal(flood.status, 400);
    assert.match(flood.text, /too many tags or folders in one request \(10000\): at most 100/);
    assert.equal((await t.post('edit-tag', tags(['a', 'b', 'c']))).status, 200);
    assert.equal(
      (
        await t.post('subscription/edit', [
          ['ac', 'edit'],
          ['s', `feed/${h2.feeds.url('t1')}`],
          ['a', S.label('Folder')],
        ])
      ).status,
      200,
    );
    // 4 labels now; 2 more would make 6 > 5.
    const over = await t.post('edit-tag', tags(['d', 'e']));
    assert.equal(over.status, 400);
    assert.match(
      over.text,
      /you have 4 folders and tags and this would add 2; one user may have at most 5 \(TIDINGS_MAX_LABELS_PER_USER\)/,
    );
    assert.equal((await t.post('edit-tag', tags(['a', 'd']))).status, 200, 'existing tags cost nothing; one new fits');
    const folder = await t.post('subscription/edit', [
      ['ac', 'edit'],
      ['s', `feed/${h2.feeds.url('t1')}`],
      ['a', S.label('Another')],
    ]);
    assert.equal(folder.status, 400);
    assert.match(folder.text, /TIDINGS_MAX_LABELS_PER_USER/);
    const names = (await t.get('tag/list'))
      .json()
      .tags.map((x: any) => x.id)
      .filter((id: string) => id.includes('/label/'));
    assert.equal(names.length, 5);
  } finally {
    await h2.close();
  }
});
