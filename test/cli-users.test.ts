import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDataDir } from './helpers.ts';

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
