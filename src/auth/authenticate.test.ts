import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfig } from '../config/config.ts';
import { createApp } from '../app.ts';
import { silentLogger } from '../log/logger.ts';
import { tempDataDir } from '../../test/helpers.ts';
import { authenticate, writeToken, checkWriteToken, hasScope, tokenFromAuthorization } from './authenticate.ts';
import { issueClientLoginToken, issueOAuthToken } from './tokens.ts';
import { authStore } from './store.ts';
import { DatabaseSync } from 'node:sqlite';

function newApp() {
  const dataDir = tempDataDir('tidings-auth-');
  const app = createApp(loadConfig({ env: {}, overrides: { dataDir } }), silentLogger);
  const alice = app.users.create('alice', 'x');
  const bob = app.users.create('bob', 'x');
  return { app, alice, bob, dataDir };
}

test('the Authorization header: both schemes, any case, extra spaces, and the "no token" spellings', () => {
  assert.equal(tokenFromAuthorization('GoogleLogin auth=abc'), 'abc');
  assert.equal(tokenFromAuthorization('googlelogin   AUTH = abc  '), 'abc');
  assert.equal(tokenFromAuthorization('Bearer abc'), 'abc');
  assert.equal(tokenFromAuthorization('  bearer\tabc\n'), 'abc');
  for (const none of [undefined, '', 'undefined', 'null', 'Bearer', 'Bearer undefined', 'GoogleLogin auth=null',
    'GoogleLogin auth=', 'Basic YTpi', 'Bearer a b']) {
    assert.equal(tokenFromAuthorization(none), undefined, String(none));
  }
});

test('a ClientLogin token authenticates with read+write under either scheme until revoked', async (t) => {
  const { app, alice } = newApp();
  t.after(() => app.close());
  const { token, record } = issueClientLoginToken(app, alice.id);
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  for (const h of [`GoogleLogin auth=${token}`, `Bearer ${token}`, `GOOGLELOGIN auth=${token}`]) {
    const a = authenticate(app, h);
    assert.ok(a, h);
    assert.equal(a.userId, alice.id);
    assert.equal(a.via, 'clientlogin');
    assert.deepEqual([...a.scopes].sort(), ['read', 'write']);
  }
  assert.equal(authenticate(app, `GoogleLogin auth=${token}x`), null);
  assert.equal(authenticate(app, undefined), null);
  assert.equal(authenticate(app, 'Authorization: undefined'), null);
  assert.ok(authStore(app).tokens.revoke(record.id, Math.floor(Date.now() / 1000)));
  assert.equal(authenticate(app, `GoogleLogin auth=${token}`), null);
});

test('expired tokens fail; OAuth tokens carry their scopes; refresh tokens never authenticate', async (t) => {
  const { app, alice, dataDir } = newApp();
  t.after(() => app.close());
  // OAuth tokens need a registered client (foreign key).
  authStore(app).clients.create({ clientId: 'c1', secretHash: 'h', name: 'App', redirectUris: ['https://a.example/cb'], grantTypes: ['authorization_code'] }, 0);
  const g = { userId: alice.id, scopes: 'read', clientId: 'c1', grantId: 'g1' };
  const access = issueOAuthToken(app, 'oauth_access', g);
  const refresh = issueOAuthToken(app, 'oauth_refresh', g);
  const a = authenticate(app, `Bearer ${access.token}`);
  assert.ok(a);
  assert.equal(a.via, 'oauth');
  assert.deepEqual([...a.scopes], ['read']);
  assert.equal(hasScope(a, 'write'), false);
  assert.equal(hasScope(a, 'read'), true);
  assert.equal(authenticate(app, `Bearer ${refresh.token}`), null);

  const cl = issueClientLoginToken(app, alice.id);
  // Expire it through a second connection, as another process would.
  const db = new DatabaseSync(join(dataDir, 'tidings.db'));
  db.prepare('UPDATE auth_tokens SET expires_at = ? WHERE id = ?').run(Math.floor(Date.now() / 1000) - 1, cl.record.id);
  db.close();
  assert.equal(authenticate(app, `GoogleLogin auth=${cl.token}`), null);
});

test('last use is recorded, at most once a minute', async (t) => {
  const { app, alice } = newApp();
  t.after(() => app.close());
  const { token, record } = issueClientLoginToken(app, alice.id);
  assert.equal(record.lastUsedAt, null);
  authenticate(app, `Bearer ${token}`);
  const first = authStore(app).tokens.findById(record.id)!.lastUsedAt;
  assert.ok(first && Math.abs(first - Date.now() / 1000) < 5);
  app.db.prepare('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?').run(first - 30, record.id);
  authenticate(app, `Bearer ${token}`);
  assert.equal(authStore(app).tokens.findById(record.id)!.lastUsedAt, first - 30, 'not rewritten within a minute');
  app.db.prepare('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?').run(first - 61, record.id);
  authenticate(app, `Bearer ${token}`);
  assert.ok(authStore(app).tokens.findById(record.id)!.lastUsedAt! >= first);
});

test('write token: stable per user, no whitespace, T optional and trimmed, wrong T refused', async (t) => {
  const { app, alice, bob } = newApp();
  t.after(() => app.close());
  const wa = writeToken(app, alice.id);
  assert.match(wa, /^\S+$/);
  assert.equal(writeToken(app, alice.id), wa);
  assert.notEqual(writeToken(app, bob.id), wa);
  const auth = authenticate(app, `Bearer ${issueClientLoginToken(app, alice.id).token}`)!;
  assert.equal(checkWriteToken(app, auth, undefined), true);
  assert.equal(checkWriteToken(app, auth, ''), true);
  assert.equal(checkWriteToken(app, auth, '  \n'), true);
  assert.equal(checkWriteToken(app, auth, wa), true);
  assert.equal(checkWriteToken(app, auth, wa + '\n'), true);
  assert.equal(checkWriteToken(app, auth, 'x'), false);
  assert.equal(checkWriteToken(app, auth, writeToken(app, bob.id)), false);
});
