import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../config/config.ts';
import { createApp } from '../server/create-app.ts';
import { silentLogger } from '../log/logger.ts';
import { tempDataDir } from '../../test/helpers.ts';
import { authenticate, writeToken, checkWriteToken, hasScope, tokenFromAuthorization } from './authenticate.ts';
import { issueClientLoginToken, issueOAuthToken } from './tokens.ts';
import { authStore } from './repositories.ts';
import { openStore } from '../store/open-store.ts';
import { testSql } from '../store/testing.ts';

async function newApp() {
  const dataDir = tempDataDir('tidings-auth-');
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir } }), silentLogger);
  const alice = await app.users.create('alice', 'x');
  const bob = await app.users.create('bob', 'x');
  return { app, alice, bob, dataDir };
}

test('the Authorization header: both schemes, any case, extra spaces, and the "no token" spellings', async () => {
  assert.equal(tokenFromAuthorization('GoogleLogin auth=abc'), 'abc');
  assert.equal(tokenFromAuthorization('googlelogin   AUTH = abc  '), 'abc');
  assert.equal(tokenFromAuthorization('Bearer abc'), 'abc');
  assert.equal(tokenFromAuthorization('  bearer\tabc\n'), 'abc');
  for (const none of [
    undefined,
    '',
    'undefined',
    'null',
    'Bearer',
    'Bearer undefined',
    'GoogleLogin auth=null',
    'GoogleLogin auth=',
    'Basic YTpi',
    'Bearer a b',
  ]) {
    assert.equal(tokenFromAuthorization(none), undefined, String(none));
  }
});

test('a ClientLogin token authenticates with read+write under either scheme until revoked', async (t) => {
  const { app, alice } = await newApp();
  t.after(async () => app.close());
  const { token, record } = await issueClientLoginToken(app, alice.id);
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  for (const h of [`GoogleLogin auth=${token}`, `Bearer ${token}`, `GOOGLELOGIN auth=${token}`]) {
    const a = await authenticate(app, h);
    assert.ok(a, h);
    assert.equal(a.userId, alice.id);
    assert.equal(a.via, 'clientlogin');
    assert.deepEqual([...a.scopes].sort(), ['read', 'write']);
  }
  assert.equal(await authenticate(app, `GoogleLogin auth=${token}x`), null);
  assert.equal(await authenticate(app, undefined), null);
  assert.equal(await authenticate(app, 'Authorization: undefined'), null);
  assert.ok(await authStore(app).tokens.revoke(record.id, Math.floor(Date.now() / 1000)));
  assert.equal(await authenticate(app, `GoogleLogin auth=${token}`), null);
});

test('expired tokens fail; OAuth tokens carry their scopes; refresh tokens never authenticate', async (t) => {
  const { app, alice } = await newApp();
  t.after(async () => app.close());
  // OAuth tokens need a registered client (foreign key).
  await authStore(app).clients.create(
    {
      clientId: 'c1',
      secretHash: 'h',
      name: 'App',
      redirectUris: ['https://a.example/cb'],
      grantTypes: ['authorization_code'],
    },
    0,
  );
  const g = { userId: alice.id, scopes: 'read', clientId: 'c1', grantId: 'g1' };
  const access = await issueOAuthToken(app, 'oauth_access', g);
  const refresh = await issueOAuthToken(app, 'oauth_refresh', g);
  const a = await authenticate(app, `Bearer ${access.token}`);
  assert.ok(a);
  assert.equal(a.via, 'oauth');
  assert.deepEqual([...a.scopes], ['read']);
  assert.equal(hasScope(a, 'write'), false);
  assert.equal(hasScope(a, 'read'), true);
  assert.equal(await authenticate(app, `Bearer ${refresh.token}`), null);

  const cl = await issueClientLoginToken(app, alice.id);
  // Expire it through a second connection, as another process would.
  const other = await openStore({ databaseUrl: app.config.databaseUrl, dataDir: app.config.dataDir });
  await testSql(other)
    .prepare('UPDATE auth_tokens SET expires_at = ? WHERE id = ?')
    .run(Math.floor(Date.now() / 1000) - 1, cl.record.id);
  await other.close();
  assert.equal(await authenticate(app, `GoogleLogin auth=${cl.token}`), null);
});

test('last use is recorded, at most once a minute', async (t) => {
  const { app, alice } = await newApp();
  t.after(async () => app.close());
  const { token, record } = await issueClientLoginToken(app, alice.id);
  assert.equal(record.lastUsedAt, null);
  await authenticate(app, `Bearer ${token}`);
  const first = (await authStore(app).tokens.findById(record.id))!.lastUsedAt;
  assert.ok(first && Math.abs(first - Date.now() / 1000) < 5);
  // Time passes by this process's clock: the token row may be one kept in memory (PostgreSQL keeps
  // rows read to authenticate for a few seconds), so changing the stored row behind the store's
  // back would not be seen, and the test would pass or fail by when the change listener connected.
  const realNow = Date.now.bind(Date);
  t.mock.method(Date, 'now', () => realNow() + 30_000);
  await authenticate(app, `Bearer ${token}`);
  assert.equal((await authStore(app).tokens.findById(record.id))!.lastUsedAt, first, 'not rewritten within a minute');
  t.mock.method(Date, 'now', () => realNow() + 61_000);
  await authenticate(app, `Bearer ${token}`);
  assert.ok((await authStore(app).tokens.findById(record.id))!.lastUsedAt! >= first + 61, 'rewritten after a minute');
});

test('write token: stable per user, no whitespace, T optional and trimmed, wrong T refused', async (t) => {
  const { app, alice, bob } = await newApp();
  t.after(async () => app.close());
  const wa = await writeToken(app, alice.id);
  assert.match(wa, /^\S+$/);
  assert.equal(await writeToken(app, alice.id), wa);
  assert.notEqual(await writeToken(app, bob.id), wa);
  const auth = (await authenticate(app, `Bearer ${(await issueClientLoginToken(app, alice.id)).token}`))!;
  assert.equal(await checkWriteToken(app, auth, undefined), true);
  assert.equal(await checkWriteToken(app, auth, ''), true);
  assert.equal(await checkWriteToken(app, auth, '  \n'), true);
  assert.equal(await checkWriteToken(app, auth, wa), true);
  assert.equal(await checkWriteToken(app, auth, wa + '\n'), true);
  assert.equal(await checkWriteToken(app, auth, 'x'), false);
  assert.equal(await checkWriteToken(app, auth, await writeToken(app, bob.id)), false);
});
