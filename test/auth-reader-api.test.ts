// Auth as the Google Reader API sees it: tokens from ClientLogin and OAuth used on real endpoints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { revokeStoredToken } from '../src/auth/tokens.ts';
import { authStore } from '../src/auth/repositories.ts';
import { hashToken } from '../src/auth/passwords.ts';
import { startFixture, authorize, tokenRequest, PASSWORD, REDIRECT, type Fixture } from './auth-fixture.ts';

let f: Fixture;
before(async () => {
  f = await startFixture();
});
after(async () => f.close());

const api = (path: string, authorization: string | undefined, body?: Record<string, string>) =>
  fetch(`${f.base}/reader/api/0${path}`, {
    method: body ? 'POST' : 'GET',
    headers: authorization === undefined ? {} : { authorization },
    body: body ? new URLSearchParams(body) : undefined,
  });

async function clientLogin(): Promise<string> {
  const res = await fetch(`${f.base}/api/greader.php/accounts/ClientLogin`, {
    method: 'POST',
    body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD }),
  });
  return /\nAuth=(\S+)\n/.exec(await res.text())![1];
}

async function oauthToken(scope: string): Promise<string> {
  const code = await authorize(f, { scope });
  const t = await tokenRequest(f, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: f.client.id,
    client_secret: f.client.secret,
  });
  return t.body.access_token;
}

test('a ClientLogin token reads and writes; T is optional, trimmed, and refused when wrong; revoked means 401', async () => {
  const token = await clientLogin();
  const h = `GoogleLogin auth=${token}`;
  const info = await api('/user-info', h);
  assert.equal(info.status, 200);
  assert.equal(((await info.json()) as { userName: string }).userName, 'alice');
  const T = (await (await api('/token', h)).text()).trim();
  assert.match(T, /^\S+$/);
  assert.equal((await api('/preference/stream/set', h, {})).status, 200, 'no T');
  assert.equal((await api('/preference/stream/set', h, { T: `${T}\n` })).status, 200, 'T with its newline');
  const wrongT = await api('/preference/stream/set', h, { T: 'x' + T });
  assert.equal(wrongT.status, 401);
  assert.equal(wrongT.headers.get('x-reader-google-bad-token'), 'true');

  await revokeStoredToken(f.app, (await authStore(f.app).tokens.findByHash(hashToken(token)))!);
  const revoked = await api('/user-info', h);
  assert.equal(revoked.status, 401);
  assert.equal(revoked.headers.get('x-reader-google-bad-token'), 'true');
});

test('missing, "undefined" and unknown tokens get 401 with X-Reader-Google-Bad-Token', async () => {
  for (const h of [undefined, 'undefined', 'GoogleLogin auth=undefined', 'Bearer tdat_nope']) {
    const res = await api('/user-info', h);
    assert.equal(res.status, 401, String(h));
    assert.equal(res.headers.get('x-reader-google-bad-token'), 'true');
  }
});

test('a read-only OAuth token reads but gets 403 insufficient_scope on writes; a read write token writes', async () => {
  const ro = `Bearer ${await oauthToken('read')}`;
  assert.equal((await api('/user-info', ro)).status, 200);
  const denied = await api('/preference/stream/set', ro, {});
  assert.equal(denied.status, 403);
  assert.match(await denied.text(), /insufficient_scope/);
  const rw = `Bearer ${await oauthToken('read write')}`;
  assert.equal((await api('/preference/stream/set', rw, {})).status, 200);
});
