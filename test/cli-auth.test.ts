import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { authenticate } from '../src/auth/authenticate.ts';
import { authenticateClient } from '../src/auth/oauth/clients.ts';
import { buildProgram, CliError } from '../src/cli/main.ts';
import { CommanderError } from 'commander';
import type { App } from '../src/runtime/app.ts';
import { runCli, tempDataDir } from './helpers.ts';
import { testSql } from '../src/store/testing.ts';

// Most commands run in-process through the real commander program (a child process per command
// costs over a second here); a few run as real processes to check exit codes and output end to end.
function inProcessCli(data: string) {
  let app: App | undefined;
  const config = loadConfig({ env: {}, overrides: { dataDir: data } });
  const run = async (...args: string[]) => {
    let stdout = '';
    const program = await buildProgram({
      config: () => config,
      app: async () => (app ??= await createApp(config, silentLogger)),
      out: (t) => {
        stdout += t.endsWith('\n') ? t : t + '\n';
      },
    });
    program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    try {
      await program.parseAsync(['node', 'tidings', ...args]);
      return { code: 0, stdout, stderr: '' };
    } catch (e) {
      if (e instanceof CliError) return { code: e.exitCode, stdout, stderr: e.message + '\n' };
      if (e instanceof CommanderError) return { code: 2, stdout, stderr: e.message + '\n' };
      throw e;
    }
  };
  return {
    run,
    app: async () => (app ??= await createApp(config, silentLogger)),
    close: async () => {
      await app?.close();
    },
  };
}

const oneLineError = (r: { code: number; stderr: string }, code = 2) => {
  assert.equal(r.code, code, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
};

test('oauth-client add prints working credentials once; list hides the secret; remove deletes; bad input exits 2', async (t) => {
  const data = tempDataDir();
  const proc = inProcessCli(data);
  t.after(proc.close);
  const cli = proc.run;
  // The documented command, as a real process.
  const add = await runCli([
    '--data',
    data,
    'oauth-client',
    'add',
    'My Reader App',
    '--redirect-uri',
    'https://app.example/callback',
    '--redirect-uri',
    'com.example.reader:/oauth',
  ]);
  assert.equal(add.code, 0, add.stderr);
  const created = JSON.parse(add.stdout);
  assert.match(created.client_id, /^\S+$/);
  assert.match(created.client_secret, /^\S+$/);
  assert.deepEqual(created.redirect_uris, ['https://app.example/callback', 'com.example.reader:/oauth']);

  const list = await cli('oauth-client', 'list', '--json');
  assert.equal(list.code, 0);
  assert.equal(JSON.parse(list.stdout)[0].client_id, created.client_id);
  assert.ok(!list.stdout.includes(created.client_secret), 'the secret is never shown again');

  const app = await proc.app();
  assert.ok(await authenticateClient(app, created.client_id, created.client_secret));
  assert.equal(await authenticateClient(app, created.client_id, 'wrong'), undefined);
  const row = (await testSql(app).prepare('SELECT secret_hash FROM oauth_clients').get()) as { secret_hash: string };
  assert.notEqual(row.secret_hash, created.client_secret, 'stored hashed');

  oneLineError(await runCli(['--data', data, 'oauth-client', 'add', 'No URI']));
  oneLineError(await cli('oauth-client', 'add', 'Bad', '--redirect-uri', 'not a uri'));
  oneLineError(await cli('oauth-client', 'add', 'Bad', '--redirect-uri', 'http://app.example/cb'));
  oneLineError(await cli('oauth-client', 'add', 'Bad', '--redirect-uri', 'https://app.example/cb#frag'));
  oneLineError(await cli('oauth-client', 'add', 'Bad', '--redirect-uri', 'javascript:alert(1)'));
  oneLineError(
    await cli('oauth-client', 'add', 'Bad', '--redirect-uri', 'https://a.example/cb', '--grant-type', 'password'),
  );
  oneLineError(await cli('oauth-client', 'add', '  ', '--redirect-uri', 'https://a.example/cb'));
  assert.equal((await cli('oauth-client', 'add', 'Loopback', '--redirect-uri', 'http://127.0.0.1:8765/cb')).code, 0);

  assert.equal((await cli('oauth-client', 'remove', created.client_id)).code, 0);
  oneLineError(await cli('oauth-client', 'remove', created.client_id), 1);
});

test('token create/list/revoke: a script token works until revoked; --all revokes every token', async (t) => {
  const data = tempDataDir();
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'password1'])).code, 0);
  const t1 = (await runCli(['--data', data, 'token', 'create', 'alice', '--label', 'backup script'])).stdout.trim();
  const proc = inProcessCli(data);
  t.after(proc.close);
  const cli = proc.run;
  const t2 = (await cli('token', 'create', 'alice')).stdout.trim();
  assert.match(t1, /^[A-Za-z0-9_-]{20,}$/);
  oneLineError(await cli('token', 'create', 'nobody'), 1);

  const list = JSON.parse((await cli('token', 'list', 'alice', '--json')).stdout);
  assert.equal(list.length, 2);
  assert.equal(list[0].label, 'backup script');
  assert.equal(list[0].status, 'active');
  assert.equal(list[0].scope, 'read write');
  assert.ok(!JSON.stringify(list).includes(t1));

  const check = async (token: string) => (await authenticate(await proc.app(), `GoogleLogin auth=${token}`)) !== null;
  assert.equal(await check(t1), true);
  const byToken = await cli('token', 'revoke', t1);
  assert.equal(byToken.code, 0, byToken.stderr);
  assert.equal(await check(t1), false);
  assert.equal(await check(t2), true);

  const t3 = (await cli('token', 'create', 'alice')).stdout.trim();
  const id3 = JSON.parse((await cli('token', 'list', 'alice', '--json')).stdout).at(-1).id;
  assert.equal((await cli('token', 'revoke', String(id3))).code, 0);
  assert.equal(await check(t3), false);

  const all = await cli('token', 'revoke', '--all', 'alice');
  assert.equal(all.code, 0);
  assert.match(all.stdout, /revoked 1 token of alice/);
  assert.equal(await check(t2), false);
  const statuses = JSON.parse((await cli('token', 'list', 'alice', '--json')).stdout).map(
    (r: { status: string }) => r.status,
  );
  assert.deepEqual(statuses, ['revoked', 'revoked', 'revoked']);

  oneLineError(await cli('token', 'revoke'));
  oneLineError(await cli('token', 'revoke', 'tdgl_unknown'), 1);
  oneLineError(await cli('token', 'revoke', '999'), 1);
  oneLineError(await cli('token', 'revoke', t2, '--all', 'alice'));
});
