// The OAuth 2.0 authorization-code flow end to end over HTTP, and every applicable error of
// RFC 6749 §4.1.2.1 (authorization endpoint) and §5.2 (token endpoint).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate } from '../src/auth/authenticate.ts';
import { registerClient } from '../src/auth/oauth/clients.ts';
import { testSql } from '../src/store/testing.ts';
import {
  startFixture,
  addClient,
  authorize,
  authorizeUrl,
  openConsent,
  submitConsent,
  tokenRequest,
  pkcePair,
  form,
  hiddenFields,
  PASSWORD,
  REDIRECT,
  type Fixture,
} from './auth-fixture.ts';

let f: Fixture;
before(async () => {
  f = await startFixture();
});
after(async () => f.close());

const creds = () => ({ client_id: f.client.id, client_secret: f.client.secret });
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});
const exchange = (code: string, extra: Record<string, string | undefined> = {}) =>
  tokenRequest(f, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...creds(), ...extra });

function assertOAuthError(r: { status: number; body: any; headers: Headers }, error: string, status = 400) {
  assert.equal(r.body.error, error, JSON.stringify(r.body));
  assert.equal(r.status, status);
  assert.equal(typeof r.body.error_description, 'string');
  assert.ok(r.body.error_description.length > 0);
  assert.equal(r.headers.get('cache-control'), 'no-store');
  assert.match(r.headers.get('content-type')!, /^application\/json/);
}

/** Follows an authorization redirect: its query parameters, asserting it goes to `target`. */
function redirectParams(res: Response, target = REDIRECT): URLSearchParams {
  assert.equal(res.status, 302);
  const loc = res.headers.get('location')!;
  assert.ok(loc.startsWith(target + '?'), loc);
  return new URL(loc).searchParams;
}

test('the full flow: consent page, login + approve, redirect with code and state, exchange, use, refresh with rotation', async () => {
  const page = await openConsent(authorizeUrl(f, {}));
  assert.equal(page.status, 200);
  assert.match(page.html, /<form method="post"/);
  assert.ok(page.html.includes('My &lt;Reader&gt; &quot;App&quot;'), 'the client name is shown, escaped');
  assert.ok(!page.html.includes('My <Reader>'));
  assert.match(page.html, /Read your subscriptions/);
  assert.match(page.html, /Change them/);
  assert.ok(page.fields.csrf_token, 'a CSRF field');
  assert.equal(page.fields.state, 'xyz');
  assert.match(page.cookie, /^tidings_oauth_csrf=/);
  assert.doesNotMatch(page.html, /<script/i, 'works without JavaScript');

  const res = await submitConsent(f, page, { username: 'alice', password: PASSWORD, decision: 'approve' });
  const q = redirectParams(res);
  assert.equal(q.get('state'), 'xyz');
  const code = q.get('code')!;
  assert.ok(code);

  const t = await exchange(code);
  assert.equal(t.status, 200, JSON.stringify(t.body));
  assert.equal(t.headers.get('cache-control'), 'no-store');
  assert.deepEqual(Object.keys(t.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  assert.equal(t.body.token_type, 'Bearer');
  assert.equal(t.body.expires_in, 86400);
  assert.equal(t.body.scope, 'read write');
  const auth = await authenticate(f.app, `Bearer ${t.body.access_token}`);
  assert.equal(auth?.userId, f.userId);
  assert.equal(auth?.via, 'oauth');
  assert.deepEqual([...auth!.scopes].sort(), ['read', 'write']);
  assert.equal(
    await authenticate(f.app, `Bearer ${t.body.refresh_token}`),
    null,
    'a refresh token is not an access token',
  );

  // Refresh (client authenticated with HTTP Basic this time): a new pair, the old refresh token is spent.
  const r1 = await tokenRequest(
    f,
    { grant_type: 'refresh_token', refresh_token: t.body.refresh_token },
    basic(f.client.id, f.client.secret),
  );
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  assert.notEqual(r1.body.refresh_token, t.body.refresh_token);
  assert.notEqual(r1.body.access_token, t.body.access_token);
  assert.equal(r1.body.scope, 'read write');
  assert.ok(await authenticate(f.app, `Bearer ${r1.body.access_token}`));

  const replay = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: t.body.refresh_token,
    ...creds(),
  });
  assertOAuthError(replay, 'invalid_grant');
  // Replaying a rotated refresh token means it leaked: the whole grant ends.
  assert.equal(await authenticate(f.app, `Bearer ${r1.body.access_token}`), null);
  const afterReplay = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: r1.body.refresh_token,
    ...creds(),
  });
  assertOAuthError(afterReplay, 'invalid_grant');
});

test('scopes: "read" gives a read-only token, empty means read, "write" means read write', async () => {
  for (const [scope, expected] of [
    ['read', ['read']],
    [undefined, ['read']],
    ['', ['read']],
    ['write', ['read', 'write']],
    ['read+write', ['read', 'write']],
  ] as const) {
    const t = await exchange(await authorize(f, { scope }));
    assert.equal(t.status, 200);
    assert.equal(t.body.scope, expected.join(' '));
    const auth = await authenticate(f.app, `Bearer ${t.body.access_token}`);
    assert.deepEqual([...auth!.scopes].sort(), expected, `scope=${scope}`);
  }
  const page = await openConsent(authorizeUrl(f, { scope: 'read' }));
  assert.match(page.html, /Read your subscriptions/);
  assert.doesNotMatch(page.html, /Change them/, 'a read-only request does not ask for write');
});

test('refresh can narrow the scope but never widen it (invalid_scope)', async () => {
  const ro = await exchange(await authorize(f, { scope: 'read' }));
  const widen = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: ro.body.refresh_token,
    scope: 'read write',
    ...creds(),
  });
  assertOAuthError(widen, 'invalid_scope');
  const bogus = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: ro.body.refresh_token,
    scope: 'admin',
    ...creds(),
  });
  assertOAuthError(bogus, 'invalid_scope');

  const rw = await exchange(await authorize(f, { scope: 'read write' }));
  const narrow = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: rw.body.refresh_token,
    scope: 'read',
    ...creds(),
  });
  assert.equal(narrow.status, 200);
  assert.equal(narrow.body.scope, 'read');
  assert.deepEqual([...(await authenticate(f.app, `Bearer ${narrow.body.access_token}`))!.scopes], ['read']);
  // The new refresh token keeps the original grant: a later refresh may ask for write again.
  const back = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: narrow.body.refresh_token,
    ...creds(),
  });
  assert.equal(back.body.scope, 'read write');
});

test('PKCE S256: the right verifier works; wrong, missing or unexpected verifiers fail; plain is refused', async () => {
  const { verifier, challenge } = pkcePair();
  const ok = await exchange(await authorize(f, { code_challenge: challenge, code_challenge_method: 'S256' }), {
    code_verifier: verifier,
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));

  const wrong = await exchange(await authorize(f, { code_challenge: challenge, code_challenge_method: 'S256' }), {
    code_verifier: pkcePair().verifier,
  });
  assertOAuthError(wrong, 'invalid_grant');
  const missing = await exchange(await authorize(f, { code_challenge: challenge, code_challenge_method: 'S256' }));
  assertOAuthError(missing, 'invalid_grant');
  const unexpected = await exchange(await authorize(f, {}), { code_verifier: verifier });
  assertOAuthError(unexpected, 'invalid_grant');

  for (const params of [
    { code_challenge: challenge, code_challenge_method: 'plain' },
    { code_challenge: challenge },
    { code_challenge: 'short', code_challenge_method: 'S256' },
  ]) {
    const res = await fetch(authorizeUrl(f, params), { redirect: 'manual' });
    const q = redirectParams(res);
    assert.equal(q.get('error'), 'invalid_request', JSON.stringify(params));
    assert.equal(q.get('state'), 'xyz');
  }
});

test('§4.1.2.1: a missing or unknown client_id or a mismatched redirect_uri shows an error page and never redirects', async () => {
  const cases: Record<string, string | undefined>[] = [
    { client_id: undefined },
    { client_id: '' },
    { client_id: 'tdci_unknown' },
    { redirect_uri: 'https://evil.example/callback' },
    { redirect_uri: REDIRECT + '/more' },
    { redirect_uri: REDIRECT.toUpperCase() },
    { redirect_uri: REDIRECT + '?x=1' },
    { redirect_uri: '' },
    // Even with other errors present, the redirect URI must be trusted before redirecting.
    { redirect_uri: 'https://evil.example/callback', response_type: 'token' },
  ];
  for (const c of cases) {
    const res = await fetch(authorizeUrl(f, c), { redirect: 'manual' });
    assert.equal(res.status, 400, JSON.stringify(c));
    assert.equal(res.headers.get('location'), null, JSON.stringify(c));
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.doesNotMatch(await res.text(), /<form/);
  }
  // A repeated client_id is refused the same way.
  const dup = await fetch(`${authorizeUrl(f, {})}&client_id=${f.client.id}`, { redirect: 'manual' });
  assert.equal(dup.status, 400);
  assert.equal(dup.headers.get('location'), null);
});

test('§4.1.2.1: other errors go back to the client with error and state', async () => {
  const other = await addClient(f, ['refresh_token']);
  const cases: [Record<string, string | undefined>, string][] = [
    [{ response_type: undefined }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ scope: 'read admin' }, 'invalid_scope'],
    [{ client_id: other.id }, 'unauthorized_client'],
  ];
  for (const [params, error] of cases) {
    const q = redirectParams(await fetch(authorizeUrl(f, params), { redirect: 'manual' }));
    assert.equal(q.get('error'), error, JSON.stringify(params));
    assert.equal(q.get('state'), 'xyz');
    assert.equal(q.get('code'), null);
  }
  const dupState = redirectParams(await fetch(`${authorizeUrl(f, {})}&state=abc`, { redirect: 'manual' }));
  assert.equal(dupState.get('error'), 'invalid_request');

  // access_denied: the user presses Deny (no password needed to say no).
  const page = await openConsent(authorizeUrl(f, { state: 'st with spaces & symbols' }));
  const denied = redirectParams(await submitConsent(f, page, { decision: 'deny' }));
  assert.equal(denied.get('error'), 'access_denied');
  assert.equal(denied.get('state'), 'st with spaces & symbols');
  assert.equal(denied.get('code'), null);
});

test('a registered redirect URI with its own query keeps it, and the code is appended', async () => {
  const page = await openConsent(authorizeUrl(f, { redirect_uri: 'https://app.example/other?x=1' }));
  const res = await submitConsent(f, page, { username: 'alice', password: PASSWORD, decision: 'approve' });
  assert.equal(res.status, 302);
  const loc = res.headers.get('location')!;
  assert.match(loc, /^https:\/\/app\.example\/other\?x=1&code=[^&]+&state=xyz$/);
  const t = await exchange(new URL(loc).searchParams.get('code')!, { redirect_uri: 'https://app.example/other?x=1' });
  assert.equal(t.status, 200);
});

test('CSRF: a consent POST without the form token, with a wrong one, without the cookie or with edited fields is refused', async () => {
  const page = await openConsent(authorizeUrl(f, { scope: 'read' }));
  const login = { username: 'alice', password: PASSWORD, decision: 'approve' };
  const attempts: [string, Promise<Response>][] = [
    ['no token', submitConsent(f, page, { ...login, csrf_token: undefined })],
    [
      'wrong token',
      submitConsent(f, page, { ...login, csrf_token: `${Math.floor(Date.now() / 1000)}.${'A'.repeat(43)}` }),
    ],
    ['garbage token', submitConsent(f, page, { ...login, csrf_token: 'x' })],
    ['no cookie', submitConsent(f, page, login, '')],
    ['another browser', submitConsent(f, page, login, `tidings_oauth_csrf=${'b'.repeat(32)}`)],
    ['scope edited', submitConsent(f, page, { ...login, scope: 'read write' })],
    ['state edited', submitConsent(f, page, { ...login, state: 'other' })],
  ];
  for (const [name, p] of attempts) {
    const res = await p;
    assert.equal(res.status, 403, name);
    assert.equal(res.headers.get('location'), null, name);
    assert.match(await res.text(), /start the authorization again/, name);
  }
  // The untouched form still works afterwards.
  assert.equal((await submitConsent(f, page, login)).status, 302);
});

test('a wrong password shows the page again with an error and a fresh form; then the right one works', async () => {
  const page = await openConsent(authorizeUrl(f, {}));
  const bad = await submitConsent(f, page, { username: 'alice', password: 'wrong password', decision: 'approve' });
  assert.equal(bad.status, 200);
  assert.equal(bad.headers.get('location'), null);
  const html = await bad.text();
  assert.match(html, /Wrong username or password/);
  assert.match(html, /name="username"[^>]*value="alice"/, 'the username is kept');
  const again = { ...page, html, fields: hiddenFields(html) };
  assert.ok(again.fields.csrf_token);
  const empty = await submitConsent(f, again, { username: 'alice', password: '', decision: 'approve' });
  assert.equal(empty.status, 400);
  const ok = await submitConsent(f, again, { username: 'alice', password: PASSWORD, decision: 'approve' });
  assert.ok(redirectParams(ok).get('code'));
});

test('§5.2 invalid_request: missing grant_type, code, refresh_token or redirect_uri; repeated parameters', async () => {
  assertOAuthError(await tokenRequest(f, { ...creds(), code: 'x' }), 'invalid_request');
  assertOAuthError(
    await tokenRequest(f, { ...creds(), grant_type: 'authorization_code', redirect_uri: REDIRECT }),
    'invalid_request',
  );
  assertOAuthError(await tokenRequest(f, { ...creds(), grant_type: 'refresh_token' }), 'invalid_request');
  const code = await authorize(f);
  assertOAuthError(await exchange(code, { redirect_uri: undefined }), 'invalid_request');
  const body = form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...creds() });
  body.append('code', code);
  const res = await fetch(`${f.base}/oauth2/token`, { method: 'POST', body });
  assertOAuthError({ status: res.status, body: await res.json(), headers: res.headers }, 'invalid_request');
  // Credentials in both the header and the form.
  assertOAuthError(
    await tokenRequest(
      f,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...creds() },
      basic(f.client.id, f.client.secret),
    ),
    'invalid_request',
  );
  // None of these failures used up the code.
  assert.equal((await exchange(code)).status, 200);
});

test('§5.2 invalid_client: wrong secret, unknown client, no credentials — 401 with WWW-Authenticate', async () => {
  const code = await authorize(f);
  const cases = [
    await exchange(code, { client_secret: 'wrong' }),
    await exchange(code, { client_id: 'tdci_nobody' }),
    await exchange(code, { client_secret: undefined }),
    await exchange(code, { client_id: undefined, client_secret: undefined }),
    await tokenRequest(
      f,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      basic(f.client.id, 'wrong'),
    ),
    await tokenRequest(
      f,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: 'Basic !!!' },
    ),
  ];
  for (const r of cases) {
    assertOAuthError(r, 'invalid_client', 401);
    assert.match(r.headers.get('www-authenticate')!, /^Basic /);
  }
  // Basic with the right credentials (and client_id repeated in the form, as some libraries do) works.
  const ok = await tokenRequest(
    f,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: f.client.id },
    basic(f.client.id, f.client.secret),
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

test('§5.2 invalid_grant: reused code (and its tokens revoked), expired, foreign or unknown code, wrong redirect_uri', async () => {
  const code = await authorize(f);
  const first = await exchange(code);
  assert.equal(first.status, 200);
  assert.ok(await authenticate(f.app, `Bearer ${first.body.access_token}`));
  assertOAuthError(await exchange(code), 'invalid_grant');
  assert.equal(
    await authenticate(f.app, `Bearer ${first.body.access_token}`),
    null,
    'reusing a code revokes what it issued',
  );
  assertOAuthError(
    await tokenRequest(f, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...creds() }),
    'invalid_grant',
  );

  const old = await authorize(f);
  await testSql(f.app)
    .prepare('UPDATE oauth_codes SET expires_at = ? WHERE expires_at > ? AND used_at IS NULL')
    .run(Math.floor(Date.now() / 1000) - 1, 0);
  assertOAuthError(await exchange(old), 'invalid_grant');

  const other = await addClient(f, ['authorization_code', 'refresh_token']);
  const foreign = await authorize(f);
  assertOAuthError(await exchange(foreign, { client_id: other.id, client_secret: other.secret }), 'invalid_grant');
  assertOAuthError(await exchange('tdac_not-a-real-code'), 'invalid_grant');
  assertOAuthError(await exchange(foreign, { redirect_uri: 'https://app.example/other?x=1' }), 'invalid_grant');
  assertOAuthError(await exchange(foreign, { redirect_uri: 'https://evil.example/callback' }), 'invalid_grant');
  assert.equal((await exchange(foreign)).status, 200, 'the rightful client with the right redirect_uri still can');

  // A refresh token of another client.
  const t = await exchange(await authorize(f));
  assertOAuthError(
    await tokenRequest(f, {
      grant_type: 'refresh_token',
      refresh_token: t.body.refresh_token,
      client_id: other.id,
      client_secret: other.secret,
    }),
    'invalid_grant',
  );
  // An access token is not a refresh token.
  assertOAuthError(
    await tokenRequest(f, { grant_type: 'refresh_token', refresh_token: t.body.access_token, ...creds() }),
    'invalid_grant',
  );
});

test('§5.2 unauthorized_client and unsupported_grant_type', async () => {
  const noRefresh = await addClient(f, ['authorization_code']);
  const page = await openConsent(authorizeUrl(f, { client_id: noRefresh.id }));
  const q = redirectParams(
    await submitConsent(f, page, { username: 'alice', password: PASSWORD, decision: 'approve' }),
  );
  const t = await tokenRequest(f, {
    grant_type: 'authorization_code',
    code: q.get('code')!,
    redirect_uri: REDIRECT,
    client_id: noRefresh.id,
    client_secret: noRefresh.secret,
  });
  assert.equal(t.status, 200);
  assert.equal(t.body.refresh_token, undefined, 'no refresh token for a client without the refresh grant');
  const r = await tokenRequest(f, {
    grant_type: 'refresh_token',
    refresh_token: 'tdrt_x',
    client_id: noRefresh.id,
    client_secret: noRefresh.secret,
  });
  assertOAuthError(r, 'unauthorized_client');
  for (const g of ['password', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code', 'implicit']) {
    assertOAuthError(
      await tokenRequest(f, { grant_type: g, ...creds(), username: 'alice', password: PASSWORD }),
      'unsupported_grant_type',
    );
  }
});

test('RFC 7009 revocation: revoking a refresh token ends its grant; unknown tokens answer 200 too', async () => {
  const t = await exchange(await authorize(f));
  const revoke = (token: string, c = creds()) =>
    fetch(`${f.base}/oauth2/revoke`, { method: 'POST', body: form({ token, ...c }) });
  assert.equal((await revoke('tdrt_unknown')).status, 200);
  const other = await addClient(f, ['authorization_code']);
  assert.equal((await revoke(t.body.refresh_token, { client_id: other.id, client_secret: other.secret })).status, 200);
  assert.ok(
    await authenticate(f.app, `Bearer ${t.body.access_token}`),
    "another client cannot revoke this client's tokens",
  );
  assert.equal((await revoke(t.body.refresh_token)).status, 200);
  assert.equal(await authenticate(f.app, `Bearer ${t.body.access_token}`), null);
  assertOAuthError(
    await tokenRequest(f, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token, ...creds() }),
    'invalid_grant',
  );
  const bad = await revoke(t.body.access_token, { client_id: f.client.id, client_secret: 'wrong' });
  assert.equal(bad.status, 401);
});

test('the token endpoint also reads a JSON body; an unparsable body is an RFC 6749 invalid_request', async () => {
  const code = await authorize(f);
  const json = await fetch(`${f.base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...creds() }),
  });
  assert.equal(json.status, 200);
  assert.ok(((await json.json()) as { access_token?: string }).access_token);
  const broken = await fetch(`${f.base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"grant_type":',
  });
  assertOAuthError({ status: broken.status, body: await broken.json(), headers: broken.headers }, 'invalid_request');
});

test("a native app's private-scheme redirect URI receives the code unchanged", async () => {
  const { client, clientSecret } = await registerClient(f.app, 'Native', ['com.example.reader:/oauth2redirect']);
  const page = await openConsent(
    authorizeUrl(f, { client_id: client.clientId, redirect_uri: 'com.example.reader:/oauth2redirect', state: 'é ü' }),
  );
  const res = await submitConsent(f, page, { username: 'alice', password: PASSWORD, decision: 'approve' });
  const q = redirectParams(res, 'com.example.reader:/oauth2redirect');
  assert.equal(q.get('state'), 'é ü');
  const t = await tokenRequest(f, {
    grant_type: 'authorization_code',
    code: q.get('code')!,
    redirect_uri: 'com.example.reader:/oauth2redirect',
    client_id: client.clientId,
    client_secret: clientSecret,
  });
  assert.equal(t.status, 200);
});

test('redirect URIs are bounded: at most 20 per client, each at most 2,000 characters, with what to fix', async () => {
  const many = Array.from({ length: 5000 }, (_, i) => `https://app.example/cb${i}`);
  await assert.rejects(registerClient(f.app, 'Many', many), /5000 redirect URIs: at most 20 per client/);
  await assert.rejects(
    registerClient(f.app, 'Long', [`https://app.example/${'x'.repeat(1024 * 1024)}`]),
    /a redirect URI is 1048596 characters long: at most 2000/,
  );
  const ok = await registerClient(
    f.app,
    'Twenty',
    Array.from({ length: 20 }, (_, i) => `https://app.example/cb${i}`),
  );
  assert.equal(ok.client.redirectUris.length, 20);
});
