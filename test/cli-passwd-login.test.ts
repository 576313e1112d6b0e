import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDataDir } from './helpers.ts';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { checkLogin } from '../src/auth/login.ts';
import { authenticate } from '../src/auth/authenticate.ts';

test('login accepts the e-mail address in the Email field; passwd revokes existing tokens', async () => {
  const data = tempDataDir();
  const add = await runCli([
    '--data',
    data,
    'user',
    'add',
    'carol',
    '--password',
    'first-pass',
    '--email',
    'Carol@Example.org',
  ]);
  assert.equal(add.code, 0, add.stderr);
  const tok = await runCli(['--data', data, 'token', 'create', 'carol']);
  assert.equal(tok.code, 0, tok.stderr);
  const token = tok.stdout.trim().split(/\s+/).pop()!;

  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data } }), silentLogger);
  try {
    const byMail = await checkLogin(app, 'carol@example.org', 'first-pass', '127.0.0.9');
    assert.ok(byMail.ok && byMail.user.username === 'carol');
    assert.ok(await authenticate(app, `GoogleLogin auth=${token}`), 'token works before the password change');
  } finally {
    await app.close();
  }

  const pw = await runCli(['--data', data, 'user', 'passwd', 'carol', '--password', 'second-pass']);
  assert.equal(pw.code, 0, pw.stderr);
  assert.match(pw.stdout, /1 token\(s\) revoked/);

  const app2 = await createApp(loadConfig({ env: {}, overrides: { dataDir: data } }), silentLogger);
  try {
    assert.equal(await authenticate(app2, `GoogleLogin auth=${token}`), null, 'old session ends with the old password');
    assert.equal((await checkLogin(app2, 'carol', 'first-pass', '127.0.0.9')).ok, false);
    assert.equal((await checkLogin(app2, 'carol', 'second-pass', '127.0.0.9')).ok, true);
  } finally {
    await app2.close();
  }
});
