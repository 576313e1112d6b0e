// The web app's JSON API (/api/v1) against a real server on 127.0.0.1 with a SQLite file and feeds
// served locally: first-run setup, sessions, CSRF and Origin checks, bearer tokens, reading,
// managing, search and Ask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './reader-harness.ts';
import { setupSecret } from '../src/web/setup.ts';
import { webStore } from '../src/web/repositories.ts';
import { flushSearchIndexing } from '../src/search/indexing.ts';
import { testSql } from '../src/store/testing.ts';
import { Browser, setUp } from './web-api-client.ts';

test('first run: setup needs the secret of the logged link, once; then the page asks to sign in', async () => {
  // Behind a trusted proxy (here: loopback), X-Forwarded-Proto says whether the page came over HTTPS.
  const h = await startHarness({ trustProxy: ['127.0.0.1'] });
  try {
    const b = new Browser(h.url);
    assert.deepEqual((await b.call('GET', '/session')).json, { authenticated: false, setupRequired: true });
    const bad = await b.call('POST', '/setup', { secret: 'guess', username: 'mallory', password: 'password1' });
    assert.equal(bad.status, 403);
    assert.equal(bad.json.error.code, 'bad_setup_link');
    const secret = (await setupSecret(h.app))!;
    const short = await b.call('POST', '/setup', { secret, username: 'admin', password: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.json.error.field, 'password');
    const ok = await b.call('POST', '/setup', { secret, username: 'admin', password: 'correct horse' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.user.isAdmin, true);
    // Without an LLM server, r1-1776 (which cannot search) is not offered.
    assert.deepEqual(ok.json.models, [
      'sonar',
      'sonar-pro',
      'sonar-reasoning',
      'sonar-reasoning-pro',
      'sonar-deep-research',
    ]);
    assert.match(
      ok.headers.get('set-cookie')!,
      /^tidings_session=tdws_[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/,
    );
    // Behind an HTTPS reverse proxy (X-Forwarded-Proto from a trusted proxy) the cookie is Secure.
    const proxied = new Browser(h.url);
    const viaProxy = await proxied.call(
      'POST',
      '/session',
      { username: 'admin', password: 'correct horse' },
      { 'x-forwarded-proto': 'https', origin: h.url.replace('http:', 'https:') },
    );
    assert.equal(viaProxy.status, 200, viaProxy.text);
    assert.match(viaProxy.headers.get('set-cookie')!, /; Secure$/);
    const again = await new Browser(h.url).call('POST', '/setup', {
      secret,
      username: 'second',
      password: 'password2',
    });
    assert.equal(again.status, 409);
    assert.equal(await setupSecret(h.app), undefined);
    assert.equal((await new Browser(h.url).call('GET', '/session')).json.setupRequired, false);
  } finally {
    await h.close();
  }
});

test('sign in, wrong password, throttle, sign out, expired session', async () => {
  const h = await startHarness();
  try {
    await setUp(h);
    const b = new Browser(h.url);
    const wrong = await b.call('POST', '/session', { username: 'admin', password: 'nope nope' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.error.code, 'bad_credentials');
    const ok = await b.call('POST', '/session', { username: 'admin', password: 'correct horse' });
    assert.equal(ok.status, 200);
    assert.equal((await b.call('GET', '/sidebar')).status, 200);
    // Sessions are stored hashed: the cookie value is nowhere in the database.
    const token = b.cookie.split('=')[1]!;
    assert.equal(
      (await testSql(h.app)
        .prepare('SELECT count(*) AS n FROM web_sessions WHERE token_hash = ?')
        .get<{ n: number }>(token))!.n,
      0,
    );
    // Another browser of the same user is listed and can be signed out from here.
    const other = new Browser(h.url);
    await other.call('POST', '/session', { username: 'admin', password: 'correct horse' });
    const list = (await b.call('GET', '/sessions')).json.sessions;
    assert.equal(list.length, 3); // setup, this sign-in, the other browser
    assert.equal(list.filter((s: any) => s.current).length, 1);
    const newest = Math.max(...list.map((s: any) => s.id)); // the other browser signed in last
    assert.equal((await b.call('DELETE', `/sessions/${newest}`)).status, 204);
    assert.equal((await b.call('GET', '/sessions')).json.sessions.length, 2);
    assert.equal((await other.call('GET', '/sidebar')).status, 401);
    assert.equal((await b.call('DELETE', '/session')).status, 204);
    const after = await b.call('GET', '/sidebar');
    assert.equal(after.status, 401);
    // Expired: the cookie is still sent, the session is over.
    const c = new Browser(h.url);
    await c.call('POST', '/session', { username: 'admin', password: 'correct horse' });
    for (const s of await webStore(h.app).sessions.listForUser(1)) await webStore(h.app).sessions.expire(s.id, 1);
    const expired = await c.call('GET', '/sidebar');
    assert.equal(expired.status, 401);
    assert.equal(expired.json.error.code, 'session_expired');
    assert.deepEqual((await c.call('GET', '/session')).json, {
      authenticated: false,
      setupRequired: false,
      sessionEnded: true,
    });
    // The throttle of ClientLogin: after 10 failures even the right password waits.
    const d = new Browser(h.url);
    for (let i = 0; i < 10; i++) await d.call('POST', '/session', { username: 'admin', password: `wrong ${i}` });
    const throttled = await d.call('POST', '/session', { username: 'admin', password: 'correct horse' });
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  } finally {
    await h.close();
  }
});

test('CSRF: changes need the token and our Origin; a cross-site form post is refused', async () => {
  const h = await startHarness();
  try {
    const b = await setUp(h);
    assert.equal((await b.call('POST', '/folders', { name: 'Tech' })).status, 201);
    const bidi = await b.call('POST', '/folders', { name: 'gnp\u202e.exe' });
    assert.equal(bidi.status, 400);
    assert.match(bidi.json.error.message, /text-direction/);
    const noToken = await fetch(h.url + '/api/v1/folders', {
      method: 'POST',
      headers: { cookie: b.cookie, origin: h.url, 'content-type': 'application/json' },
      body: '{"name":"X"}',
    });
    assert.equal(noToken.status, 403);
    assert.equal(((await noToken.json()) as any).error.code, 'csrf');
    const crossSite = await fetch(h.url + '/api/v1/folders', {
      method: 'POST',
      headers: {
        cookie: b.cookie,
        origin: 'https://evil.example',
        'x-csrf-token': b.csrf,
        'content-type': 'application/json',
      },
      body: '{"name":"X"}',
    });
    assert.equal(crossSite.status, 403);
    assert.equal(((await crossSite.json()) as any).error.code, 'cross_origin');
    const form = await fetch(h.url + '/api/v1/folders', {
      method: 'POST',
      headers: {
        cookie: b.cookie,
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=X',
    });
    assert.equal(form.status, 403);
    // A login form posted from another site cannot sign the victim in to the attacker's account.
    const loginCsrf = await fetch(h.url + '/api/v1/session', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{"username":"admin","password":"correct horse"}',
    });
    assert.equal(loginCsrf.status, 403);
    assert.deepEqual(
      (await b.call('GET', '/sidebar')).json.folders.map((f: any) => f.name),
      ['Tech'],
    );
  } finally {
    await h.close();
  }
});

test('bearer tokens for scripts; admin routes for admins only', async () => {
  const h = await startHarness();
  try {
    const b = await setUp(h);
    const t = await b.call('POST', '/tokens', { label: 'script' });
    assert.equal(t.status, 201);
    const auth = { authorization: `Bearer ${t.json.token}` };
    const me = await fetch(h.url + '/api/v1/session', { headers: auth });
    assert.equal(((await me.json()) as any).user.username, 'admin');
    const folder = await fetch(h.url + '/api/v1/folders', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Scripts"}',
    });
    assert.equal(folder.status, 201);
    const u = await b.call('POST', '/admin/users', { username: 'bob', password: 'bobs password' });
    assert.equal(u.status, 201);
    const bob = new Browser(h.url);
    await bob.call('POST', '/session', { username: 'bob', password: 'bobs password' });
    assert.equal((await bob.call('GET', '/admin/users')).status, 403);
    assert.equal((await bob.call('GET', '/sidebar')).json.folders.length, 0, 'users see only their own folders');
    assert.equal((await b.call('DELETE', `/tokens/${t.json.id}`)).status, 204);
    assert.equal((await fetch(h.url + '/api/v1/sidebar', { headers: auth })).status, 401);
    const doc = (await (await fetch(h.url + '/api/v1/openapi.json')).json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/api/v1/articles'].get && doc.paths['/api/v1/ask'].post);
  } finally {
    await h.close();
  }
});

test('subscribe, list, open, star, mark all read with undo, folders, OPML, search, Ask', async () => {
  const h = await startHarness();
  try {
    const b = await setUp(h);
    h.feeds.addItems('space', 30, 'Space News');
    const missing = await b.call('POST', '/feeds', { url: h.feeds.url('nothing-here') });
    assert.equal(missing.status, 422);
    assert.equal(missing.json.error.code, 'feed_http');
    assert.match(missing.json.error.message, /404/);
    assert.equal((await b.call('POST', '/feeds', { url: 'not a url at all' })).status, 422);
    assert.equal((await b.call('POST', '/feeds', {})).json.error.field, 'url');
    const sub = await b.call('POST', '/feeds', { url: h.feeds.url('space') });
    assert.equal(sub.status, 201, sub.text);
    const feedId = sub.json.feedId;
    const side = await b.call('GET', '/sidebar');
    assert.equal(side.json.unread, 30);
    const page1 = await b.call('GET', '/articles?view=unread&limit=20');
    assert.equal(page1.json.items.length, 20);
    assert.ok(page1.json.next);
    const page2 = await b.call('GET', `/articles?view=unread&limit=20&cursor=${page1.json.next}`);
    assert.equal(page2.json.items.length, 10);
    assert.equal(page2.json.next, null);
    const first = page1.json.items[0];
    assert.equal(first.feedTitle, 'Space News');
    assert.doesNotMatch(first.snippet, /<|alert/);
    const art = await b.call('GET', `/articles/${first.id}`);
    assert.doesNotMatch(art.json.html, /<script/);
    assert.equal((await b.call('PATCH', `/articles/${first.id}`, { read: true, starred: true })).status, 200);
    assert.equal((await b.call('GET', '/articles?view=starred')).json.items.length, 1);
    // Tags: labels on articles, listed apart from folders, readable as a view.
    assert.deepEqual(
      (await b.call('POST', `/articles/${first.id}/tags`, { add: ['Later', 'Moon'] })).json.tags.sort(),
      ['Later', 'Moon'],
    );
    assert.deepEqual(
      (await b.call('POST', `/articles/${first.id}/tags`, { remove: ['Later', 'Never had it'] })).json.tags,
      ['Moon'],
    );
    assert.deepEqual((await b.call('GET', `/articles/${first.id}`)).json.tags, ['Moon']);
    assert.deepEqual((await b.call('GET', '/sidebar')).json.tags, [{ name: 'Moon', articles: 1 }]);
    assert.deepEqual((await b.call('GET', '/sidebar')).json.folders, [], 'a tag removed from its last article goes');
    assert.deepEqual(
      (await b.call('GET', '/articles?folder=Moon')).json.items.map((i: any) => i.id),
      [first.id],
    );
    assert.equal((await b.call('POST', `/articles/${first.id}/tags`, { add: [''] })).status, 400);
    assert.equal((await b.call('POST', '/articles/999999/tags', { add: ['x'] })).status, 404);
    // Two articles arrive after the list was loaded: mark-all-read up to the list's asOfUs spares them.
    h.feeds.addItems('space', 2, 'Space News');
    await new Promise((r) => setTimeout(r, 2));
    assert.equal((await b.call('POST', `/feeds/${feedId}/refresh`)).json.added, 2);
    const marked = await b.call('POST', '/articles/mark-all-read', { feed: feedId, before: page1.json.asOfUs });
    assert.equal(marked.json.marked, 29);
    assert.equal((await b.call('GET', '/unread-counts')).json.unread, 2);
    const undo = await b.call('POST', '/articles/read', { ids: marked.json.ids, read: false });
    assert.equal(undo.json.changed, 29);
    assert.equal((await b.call('GET', '/unread-counts')).json.feeds[feedId], 31);
    // Move into a folder, rename, OPML round trip.
    assert.equal((await b.call('PATCH', `/feeds/${feedId}`, { folder: 'Science', title: 'Space' })).status, 204);
    const opml = await b.call('GET', '/opml');
    assert.match(opml.text, /<outline[^>]+text="Science"/);
    assert.match(opml.text, /title="Space"/);
    const other = await setUpSecondUser(h, b);
    const imported = await other.call('POST', '/opml', opml.text);
    assert.equal(imported.json.imported, 1, imported.text);
    assert.deepEqual(
      (await other.call('GET', '/sidebar')).json.folders.map((f: any) => f.name),
      ['Science'],
    );
    const broken = await other.call('POST', '/opml', '<opml><body><outline');
    assert.equal(broken.status, 422);
    const health = await b.call('GET', '/feeds');
    assert.equal(health.json.feeds[0].itemCount, 32);
    assert.equal(health.json.feeds[0].lastStatus, 200);
    // Search, scoped to the folder, with match ranges.
    flushSearchIndexing(h.app);
    const found = await b.call('GET', `/search?q=${encodeURIComponent('space news post')}&folder=Science`);
    assert.ok(found.json.items.length > 0, found.text);
    const hit = found.json.items[0];
    assert.ok(hit.titleMatches.length > 0);
    const [s0, e0] = hit.titleMatches[0];
    assert.match(hit.title.slice(s0, e0), /^(space|news|post)$/i);
    // Ask: an SSE stream with the conversation, sources, text and done; kept and reopenable.
    const res = await fetch(h.url + '/api/v1/ask', {
      method: 'POST',
      headers: { cookie: b.cookie, origin: h.url, 'x-csrf-token': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({
        question: 'What does the body of space post 3 say?',
        scope: { kind: 'folder', name: 'Science' },
      }),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l.replace(/^data: /, '')));
    assert.equal(events[0].type, 'conversation');
    // What the engine does comes before any text: searching, then the sources it reads.
    assert.deepEqual(
      events.slice(1, 4).map((e) => e.type),
      ['progress', 'sources', 'progress'],
      JSON.stringify(events.slice(0, 5)),
    );
    assert.equal(events[1].message, 'Searching your feeds…');
    assert.equal(events[3].message, `Reading ${events[2].sources.length} articles…`);
    assert.equal(typeof events[2].sources[0].feedId, 'number', 'a card names its subscription');
    const deltas = events.filter((e) => e.type === 'delta');
    assert.ok(deltas.length >= 2, 'the answer arrives in pieces');
    // (These bodies are too thin to quote: citations and source cards are checked in the browser test.)
    assert.equal(events.at(-1).type, 'done', JSON.stringify(events.at(-1)));
    // Deep research reports its stages while it works.
    const deep = await fetch(h.url + '/api/v1/ask', {
      method: 'POST',
      headers: { cookie: b.cookie, origin: h.url, 'x-csrf-token': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Space News posts', model: 'sonar-deep-research' }),
    });
    const deepEvents = (await deep.text())
      .split('\n\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l.replace(/^data: /, '')));
    const firstProgress = deepEvents.findIndex((e) => e.type === 'progress');
    assert.ok(
      firstProgress > 0 && firstProgress < deepEvents.findIndex((e) => e.type === 'delta'),
      JSON.stringify(deepEvents.slice(0, 5)),
    );
    assert.equal(deepEvents.filter((e) => e.type !== 'progress').at(-1).type, 'done');
    await b.call('DELETE', `/conversations/${deepEvents[0].id}`);
    const convs = await b.call('GET', '/conversations');
    assert.equal(convs.json.conversations.length, 1);
    const conv = await b.call('GET', `/conversations/${events[0].id}`);
    assert.deepEqual(
      conv.json.messages.map((m: any) => m.role),
      ['user', 'assistant'],
    );
    assert.equal((await other.call('GET', `/conversations/${events[0].id}`)).status, 404, 'conversations are private');
    // Unsubscribe.
    assert.equal((await b.call('DELETE', `/feeds/${feedId}`)).status, 204);
    assert.equal((await b.call('GET', '/sidebar')).json.feeds.length, 0);
  } finally {
    await h.close();
  }
});

async function setUpSecondUser(h: Harness, admin: Browser): Promise<Browser> {
  await admin.call('POST', '/admin/users', { username: 'carol', password: 'carols password' });
  const c = new Browser(h.url);
  await c.call('POST', '/session', { username: 'carol', password: 'carols password' });
  return c;
}

test('src/web/README.md lists every endpoint of the route table', async () => {
  const { ROUTES } = await import('../src/web/routes.ts');
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../src/web/README.md', import.meta.url), 'utf8');
  const missing = ROUTES.filter((r) => !readme.includes(`\`${r.method} /api/v1${r.path}\``)).map(
    (r) => `${r.method} ${r.path}`,
  );
  assert.deepEqual(missing, [], 'add these to the API table of src/web/README.md');
});

test('links the page renders are http(s) only, even when a feed says javascript:', async () => {
  const h = await startHarness();
  try {
    const b = await setUp(h);
    const [it] = h.feeds.addItems('tricky', 1, 'Tricky');
    it!.link = 'javascript:alert(document.cookie)';
    const sub = await b.call('POST', '/feeds', { url: h.feeds.url('tricky') });
    assert.equal(sub.status, 201, sub.text);
    const list = await b.call('GET', '/articles');
    assert.equal(list.json.items.length, 1);
    assert.equal(list.json.items[0].url, null);
    assert.equal((await b.call('GET', `/articles/${list.json.items[0].id}`)).json.url, null);
    // The parser drops such links already; the web layer checks again what it hands the page
    // (rows stored by older versions, web search results).
    const { webUrl } = await import('../src/web/articles.ts');
    assert.equal(webUrl('javascript:alert(1)'), null);
    assert.equal(webUrl(' data:text/html,x'), null);
    assert.equal(webUrl('HTTPS://example.org/a'), 'HTTPS://example.org/a');
  } finally {
    await h.close();
  }
});

test('the list view is a per-user setting; feed icons are the ones Tidings serves, never the publisher’s', async () => {
  const h = await startHarness();
  try {
    const b = await setUp(h);
    assert.equal((await b.call('GET', '/settings')).json.listView, 'list');
    assert.equal((await b.call('PATCH', '/settings', { listView: 'compact' })).json.listView, 'compact');
    assert.equal((await b.call('GET', '/session')).json.settings.listView, 'compact');
    const bad = await b.call('PATCH', '/settings', { listView: 'grid' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.message, 'listView must be one of list, compact, cards');
    // A feed announcing a publisher image: the sidebar does not pass that URL to the page.
    const PNG = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const [withImage] = h.feeds.addItems('pics', 2, 'Pics');
    withImage!.html = `<p>A picture.</p><p><img src="${h.feeds.base}/pics/lead.png" width="800" height="450"></p>`;
    h.feeds.routes.set('/pics/lead.png', (_q, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
    h.feeds.routes.set('/pics/page', (_q, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('<html>'));
    const sub = await b.call('POST', '/feeds', { url: h.feeds.url('pics') });
    assert.equal(sub.status, 201, sub.text);
    const feedId = sub.json.feedId;
    const { feedIcons } = await import('../src/feeds/favicons.ts');
    await h.app.store.feeds.updateMetadata(feedId, {
      title: 'Pics',
      siteUrl: null,
      description: null,
      iconUrl: 'https://publisher.example/logo.png',
      ttlMinutes: null,
    });
    const before = (await b.call('GET', '/sidebar')).json.feeds[0];
    assert.equal(before.iconUrl, null, 'no icon fetched yet: the page draws a placeholder');
    await feedIcons(h.app).store({
      feedId,
      mime: 'image/png',
      data: new Uint8Array([1]),
      sourceUrl: null,
      fetchedAt: 1,
    });
    const icon = (await b.call('GET', '/sidebar')).json.feeds[0].iconUrl;
    assert.match(icon, new RegExp(`^icons/${feedId}\\.[\\w-]{16}$`));
    assert.equal((await b.call('GET', '/feeds')).json.feeds[0].iconUrl, icon);
    // A list item's lead image for the magazine view is fetched by Tidings, through a signed URL.
    const items = (await b.call('GET', '/articles')).json.items;
    const image = items.find((i: any) => i.image)?.image as string;
    assert.equal(items.filter((i: any) => i.image).length, 1, JSON.stringify(items));
    assert.match(image, /^api\/v1\/images\/[\w-]{22}\?u=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fpics%2Flead\.png$/);
    const got = await fetch(`${h.url}/${image}`, { headers: { cookie: b.cookie } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.equal(got.headers.get('content-security-policy'), "default-src 'none'");
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), PNG);
    // Not an open proxy: another URL under that signature, or a forged one, is a 404.
    const other = image.replace('lead.png', 'other.png');
    const forged = await b.call('GET', other.replace(/^api\/v1/, ''));
    assert.equal(forged.status, 404);
    assert.match(forged.json.error.message, /not made by this server/);
    assert.equal((await fetch(`${h.url}/${image}`)).status, 401, 'signed in only');
    // A signed URL whose answer is not an image by its bytes: 502, said so.
    const { proxiedImageUrl } = await import('../src/web/images.ts');
    const page = await b.call(
      'GET',
      (await proxiedImageUrl(h.app, `${h.feeds.base}/pics/page`))!.replace(/^api\/v1/, ''),
    );
    assert.equal(page.status, 502);
    assert.equal(page.json.error.code, 'upstream_error');
    assert.match(page.json.error.message, /is not a PNG, JPEG, GIF or WebP image/);
  } finally {
    await h.close();
  }
});
