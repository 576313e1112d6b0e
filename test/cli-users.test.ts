import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDataDir } from './helpers.ts';
import { AccountError, checkPassword, checkUsername, MAX_PASSWORD_LENGTH } from '../src/auth/accounts.ts';

test('user add creates a user once and refuses bad input with one line and non-zero exit', async () => {
  const data = tempDataDir();
  const ok = await runCli(['--data', data, 'user', 'add', 'alice', '--password', 's3cret!!']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /created user alice/);
  const dup = await runCli(['--data', data, 'user', 'add', 'alice', '--password', 's3cret!!']);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /already exists/);
  const short = await runCli(['--data', data, 'user', 'add', 'bob', '--password', 'x']);
  assert.equal(short.code, 2);
  assert.equal(short.stderr.trim().split('\n').length, 1);
  const list = await runCli(['--data', data, 'user', 'list', '--json']);
  assert.deepEqual(
    JSON.parse(list.stdout).map((u: { username: string }) => u.username),
    ['alice'],
  );
});

/** The message the account rules give for `attempt` (the web app's setup and admin API show the same). */
async function domainMessage(attempt: () => unknown): Promise<string> {
  try {
    await attempt();
  } catch (e) {
    assert.ok(e instanceof AccountError, String(e));
    return e.message;
  }
  throw new Error('the account rules accepted it');
}

test('user add and passwd use the account rules of the web app: same checks, same messages', async () => {
  const data = tempDataDir();
  const cases: [string[], number, string][] = [
    [
      ['user', 'add', 'bad name!', '--password', 'long enough'],
      2,
      await domainMessage(() => checkUsername('bad name!')),
    ],
    [['user', 'add', 'carol', '--password', 'short'], 2, await domainMessage(() => checkPassword('short'))],
    [
      ['user', 'add', 'carol', '--password', 'p'.repeat(MAX_PASSWORD_LENGTH + 1)],
      2,
      await domainMessage(() => checkPassword('p'.repeat(MAX_PASSWORD_LENGTH + 1))),
    ],
    [
      ['user', 'add', 'carol', '--password', 'long enough', '--email', 'not-an-address'],
      2,
      '"not-an-address" is not an e-mail address',
    ],
  ];
  for (const [args, code, message] of cases) {
    const r = await runCli(['--data', data, ...args]);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim(), `tidings: ${message}`);
  }
  assert.equal((await runCli(['--data', data, 'user', 'add', 'carol', '--password', 'long enough'])).code, 0);
  const dup = await runCli(['--data', data, 'user', 'add', 'carol', '--password', 'long enough']);
  assert.equal(dup.code, 1);
  assert.equal(dup.stderr.trim(), 'tidings: user "carol" already exists');
  const passwd = await runCli(['--data', data, 'user', 'passwd', 'carol', '--password', 'short']);
  assert.equal(passwd.code, 2);
  assert.equal(passwd.stderr.trim(), `tidings: ${await domainMessage(() => checkPassword('short'))}`);
  const ok = await runCli(['--data', data, 'user', 'passwd', 'carol', '--password', 'a new long one']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /password of carol changed; 0 token\(s\) revoked/);
});
