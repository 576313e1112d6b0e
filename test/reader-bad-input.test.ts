// Every bad request gets a 4xx with `Error=<what to fix>` (plain text) and changes nothing; bad or
// missing credentials get 401 with X-Reader-Google-Bad-Token; a read-only OAuth token gets 403
// insufficient_scope on writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness, type Reply } from './reader-harness.ts';
import { registerClient } from '../src/auth/oauth/clients.ts';
import { issueOAuthToken } from '../src/auth/tokens.ts';

let h: Harness;
let c: ReaderClient;
let feed: string;
let itemIds: string[];
let userId: number;

before(async () => {
  h = await startHarness();
  h.feeds.addItems('bad', 6, 'Bad Input Feed');
  userId = await addUser(h.app, 'carol', 'pw-carol-secret');
  c = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'carol', 'pw-carol-secret')}`);
  feed = (await c.post('subscription/quickadd', [['quickadd', h.feeds.url('bad')]])).json().streamId;
  await c.post('subscription/edit', [
    ['ac', 'edit'],
    ['s', feed],
    ['a', S.label('Folder')],
  ]);
  itemIds = (await c.get('stream/items/ids', [['s', S.readingList]])).json().itemRefs.map((r: { id: string }) => r.id);
  await c.post('edit-tag', [
    ['i', itemIds[0]],
    ['a', S.label('Tagged')],
    ['a', S.starred],
  ]);
});
after(async () => {
  await h.close();
});

/** Everything a client could observe of the user's state. */
async function snapshot(): Promise<string> {
  const parts = await Promise.all([
    c.get('subscription/list'),
    c.get('unread-count'),
    c.get('tag/list'),
    c.get('stream/contents', [['n', '1000']]),
  ]);
  return parts.map((p) => p.text.replace(/"updated(Usec)?":"?\d+"?/g, '')).join('\n');
}

function assertError(r: Reply, status: number, message: RegExp, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/, what);
  assert.match(r.text, /^Error=\S/, what);
  assert.match(r.text, message, what);
}

const cases: [string, () => Promise<Reply>, number, RegExp][] = [
  [
    'malformed item id',
    () =>
      c.post('edit-tag', [
        ['i', 'not-an-id'],
        ['a', S.read],
      ]),
    400,
    /malformed item id "not-an-id"/,
  ],
  [
    'one malformed id among good ones',
    () =>
      c.post('edit-tag', [
        ['i', '1'],
        ['i', 'tag:google.com,2005:reader/item/xyz'],
        ['a', S.read],
      ]),
    400,
    /malformed item id/,
  ],
  ['edit-tag without i', () => c.post('edit-tag', [['a', S.read]]), 400, /missing parameter i/],
  ['edit-tag without a or r', () => c.post('edit-tag', [['i', '1']]), 400, /missing parameter a or r/],
  [
    'edit-tag unknown state',
    () =>
      c.post('edit-tag', [
        ['i', '1'],
        ['a', 'user/-/state/com.google/bogus'],
      ]),
    400,
    /unknown stream/,
  ],
  [
    'edit-tag removing an unknown tag',
    () =>
      c.post('edit-tag', [
        ['i', '1'],
        ['r', S.label('Nope')],
      ]),
    404,
    /unknown tag/,
  ],
  [
    'edit-tag with a feed as tag',
    () =>
      c.post('edit-tag', [
        ['i', '1'],
        ['a', feed],
      ]),
    400,
    /is a feed, not a tag/,
  ],
  [
    'edit-tag reading-list',
    () =>
      c.post('edit-tag', [
        ['i', '1'],
        ['a', S.readingList],
      ]),
    400,
    /reading list/,
  ],
  [
    'unknown feed stream',
    () => c.get('stream/contents/' + encodeURIComponent('feed/https://nowhere.example/feed')),
    404,
    /no subscription/,
  ],
  [
    'unknown label stream',
    () => c.get('stream/contents/' + encodeURIComponent(S.label('folder'))),
    404,
    /case-sensitive/,
  ],
  ['garbage stream id', () => c.get('stream/contents/garbage'), 400, /unknown stream "garbage"/],
  ['unknown xt stream', () => c.get('stream/items/ids', [['xt', S.label('Nope')]]), 404, /unknown stream/],
  ['n not a number', () => c.get('stream/items/ids', [['n', 'lots']]), 400, /n must be a positive whole number/],
  ['n zero', () => c.get('stream/contents', [['n', '0']]), 400, /n must be/],
  ['broken continuation', () => c.get('stream/items/ids', [['c', '!!!']]), 400, /malformed continuation/],
  ['ot not a time', () => c.get('stream/items/ids', [['ot', 'yesterday']]), 400, /ot must be a Unix time/],
  ['items/contents without i', () => c.post('stream/items/contents', [['output', 'json']]), 400, /missing parameter i/],
  [
    'items/contents with too many ids',
    () =>
      c.post(
        'stream/items/contents',
        Array.from({ length: 1001 }, (_, k): [string, string] => ['i', String(k + 1)]),
      ),
    400,
    /at most 1000/,
  ],
  [
    'GET on edit-tag',
    () =>
      c.get('edit-tag', [
        ['i', '1'],
        ['a', S.read],
      ]),
    405,
    /takes POST/,
  ],
  ['GET on mark-all-as-read', () => c.get('mark-all-as-read', [['s', S.readingList]]), 405, /takes POST/],
  [
    'PUT on stream/contents',
    () => c.post('stream/contents', [], 'text/plain').then(() => fetchRaw('PUT', 'stream/contents')),
    405,
    /GET or POST/,
  ],
  ['mark-all-as-read without s', () => c.post('mark-all-as-read', [['ts', '1']]), 400, /missing parameter s/],
  [
    'mark-all-as-read bad ts',
    () =>
      c.post('mark-all-as-read', [
        ['s', S.readingList],
        ['ts', 'soon'],
      ]),
    400,
    /ts must be/,
  ],
  ['rename-tag without dest', () => c.post('rename-tag', [['s', S.label('Tagged')]]), 400, /missing parameter dest/],
  [
    'rename-tag unknown',
    () =>
      c.post('rename-tag', [
        ['s', S.label('Nope')],
        ['dest', S.label('X')],
      ]),
    404,
    /unknown tag/,
  ],
  ['disable-tag of a feed', () => c.post('disable-tag', [['s', feed]]), 400, /only labels/],
  [
    'subscription/edit without ac',
    () =>
      c.post('subscription/edit', [
        ['s', feed],
        ['t', 'x'],
      ]),
    400,
    /missing parameter ac/,
  ],
  [
    'subscription/edit bad ac',
    () =>
      c.post('subscription/edit', [
        ['ac', 'destroy'],
        ['s', feed],
      ]),
    400,
    /use subscribe, unsubscribe or edit/,
  ],
  [
    'subscription/edit unknown feed',
    () =>
      c.post('subscription/edit', [
        ['ac', 'edit'],
        ['s', 'feed/https://nowhere.example/x'],
        ['t', 'x'],
      ]),
    404,
    /unknown subscription/,
  ],
  [
    'subscription/edit folder not a label',
    () =>
      c.post('subscription/edit', [
        ['ac', 'edit'],
        ['s', feed],
        ['a', 'Folder'],
      ]),
    400,
    /unknown stream/,
  ],
  ['quickadd without a URL', () => c.post('subscription/quickadd', []), 400, /missing parameter quickadd/],
  [
    'a form over 1 MiB (the whole form is scanned before the id count is checked)',
    () =>
      c.post(
        'stream/items/contents',
        Array.from({ length: 40_000 }, (_, n): [string, string] => ['i', `tag:google.com,2005:reader/item/${n}`]),
      ),
    413,
    /the form is \d+ bytes; a Reader call takes at most 1048576/,
  ],
  [
    'the same form posted without its Content-Type',
    () => c.post('stream/items/contents', `i=${'1&i='.repeat(300_000)}1`, 'text/plain'),
    413,
    /the form is \d+ bytes/,
  ],
  ['broken OPML', () => c.post('subscription/import', '<opml><body><outline xmlUrl="', 'text/xml'), 400, /OPML/],
  ['empty OPML body', () => c.post('subscription/import', '', 'text/xml'), 400, /empty body/],
  ['unknown endpoint', () => c.get('stream/everything'), 404, /unknown endpoint/],
];

async function fetchRaw(method: string, path: string): Promise<Reply> {
  const res = await fetch(c.api + path, { method, headers: { authorization: c.authorization! } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

test('each bad request is refused with a 4xx Error= saying what to fix, and changes nothing', async () => {
  const before = await snapshot();
  for (const [what, send, status, message] of cases) assertError(await send(), status, message, what);
  assert.equal(await snapshot(), before);
});

test('oversized n is clamped, not refused', async () => {
  const r = await c.get('stream/contents', [['n', '5000']]);
  assert.equal(r.status, 200);
  assert.equal(r.json().items.length, 6);
});

test('quickadd of an address that is not a feed: 400 with the protocol failure JSON, nothing subscribed', async () => {
  const before = await snapshot();
  const r = await c.post('subscription/quickadd', [['quickadd', `${h.feeds.base}/missing.xml`]]);
  assert.equal(r.status, 400);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  const body = r.json();
  assert.equal(body.numResults, 0);
  assert.match(body.error, /\S/);
  assert.equal(await snapshot(), before);
});

test('missing, malformed or unknown credentials: 401 with X-Reader-Google-Bad-Token on every endpoint kind', async () => {
  for (const auth of [
    undefined,
    'undefined',
    'GoogleLogin auth=',
    'GoogleLogin auth=tdgl_forged',
    'Bearer nope',
    'Basic Y2Fyb2w6eA==',
  ]) {
    const anon = new ReaderClient(h.url, auth);
    for (const r of [
      await anon.get('unread-count'),
      await anon.post('edit-tag', [
        ['i', itemIds[1]],
        ['a', S.read],
      ]),
      await anon.get('token'),
    ]) {
      assertError(r, 401, /token/, String(auth));
      assert.equal(r.headers.get('x-reader-google-bad-token'), 'true');
    }
  }
  // A wrong T (present, not empty) is refused the same way; nothing changes.
  const before = await snapshot();
  const r = await c.post('edit-tag', [
    ['i', itemIds[1]],
    ['a', S.read],
    ['T', 'wrong-token'],
  ]);
  assertError(r, 401, /T \(write token\)/, 'wrong T');
  assert.equal(r.headers.get('x-reader-google-bad-token'), 'true');
  assert.equal(await snapshot(), before);
});

test('a read-only OAuth token reads, and gets 403 insufficient_scope on writes', async () => {
  const { client } = await registerClient(h.app, 'Test app', ['https://app.example/cb']);
  const { token } = await issueOAuthToken(h.app, 'oauth_access', {
    userId,
    scopes: 'read',
    clientId: client.clientId,
    grantId: 'g-test',
  });
  const ro = new ReaderClient(h.url, `Bearer ${token}`);
  assert.equal((await ro.get('unread-count')).status, 200);
  const before = await snapshot();
  for (const r of [
    await ro.post('edit-tag', [
      ['i', itemIds[1]],
      ['a', S.read],
    ]),
    await ro.post('mark-all-as-read', [['s', S.readingList]]),
  ]) {
    assertError(r, 403, /insufficient_scope/, 'read-only write');
    assert.equal(r.headers.get('x-reader-google-bad-token'), null);
  }
  assert.equal(await snapshot(), before);
});

test('lenient parameters: query and body merged, repeated keys kept, unencoded values, form without content type', async () => {
  // i in the query string, a in the body; a feed URL with raw "://" and "/" unencoded.
  const r = await c.post(
    `edit-tag?i=${itemIds[2]}`,
    `i=${itemIds[3]}&a=user/-/state/com.google/read&a=user/-/label/Raw%20Tag%`,
    'application/x-www-form-urlencoded',
  );
  assert.equal(r.text, 'OK');
  const tagged = (await c.get('stream/items/ids', [['s', S.label('Raw Tag%')]]))
    .json()
    .itemRefs.map((x: { id: string }) => x.id)
    .sort();
  assert.deepEqual(tagged, [itemIds[2], itemIds[3]].sort());
  const noType = await fetch(c.api + 'edit-tag', {
    method: 'POST',
    headers: { authorization: c.authorization! },
    body: `i=${itemIds[4]}&a=${S.starred}`,
  });
  assert.equal(await noType.text(), 'OK');
  const raw = await c.get(`stream/items/ids?s=${feed}&n=2&output=xml&client=test&ck=123`);
  assert.equal(raw.status, 200);
  assert.match(raw.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(raw.json().itemRefs.length, 2);
});
