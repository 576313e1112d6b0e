// The data folder never depends on the current directory, read commands never create an empty
// database, and a command that creates one says where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, SQLITE_ONLY, tempDataDir } from './helpers.ts';
import { loadConfig } from '../src/config/config.ts';
import { defaultDataDir, IS_CHECKOUT, userDataDir } from '../src/config/install.ts';

test('read commands on a folder without a database refuse, name the folder and create nothing', {
  timeout: 300_000,
  skip: SQLITE_ONLY,
}, async () => {
  const data = tempDataDir();
  for (const args of [
    ['user', 'list'],
    ['feed', 'list', 'alice'],
    ['opml', 'export', 'alice'],
    ['token', 'list', 'alice'],
    ['search', 'query', 'x'],
    ['usage'],
  ]) {
    const r = await runCli(['--data', data, ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(`no Tidings database in ${data}`), r.stderr);
  }
  assert.equal(existsSync(join(data, 'tidings.db')), false);
});

test('the command that creates the database says which folder it used, once', { skip: SQLITE_ONLY }, async () => {
  const data = tempDataDir();
  const first = await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, `tidings: created a new database in ${data}\n`);
  assert.match(first.stdout, /created user alice/);
  const second = await runCli(['--data', data, 'user', 'list']);
  assert.equal(second.stderr, '');
  assert.match(second.stdout, /alice/);
});

test('the default data folder is <checkout>/data in a checkout, else the per-user data dir, never cwd-relative', () => {
  const cwd = process.cwd();
  try {
    process.chdir(tempDataDir());
    const c = loadConfig({ env: {} });
    assert.equal(c.dataDir, IS_CHECKOUT ? join(ROOT, 'data') : userDataDir({}));
    assert.equal(
      defaultDataDir({ XDG_DATA_HOME: '/x' }),
      IS_CHECKOUT ? join(ROOT, 'data') : userDataDir({ XDG_DATA_HOME: '/x' }),
    );
  } finally {
    process.chdir(cwd);
  }
  if (process.platform === 'linux') assert.equal(userDataDir({ XDG_DATA_HOME: '/srv/xdg' }), '/srv/xdg/tidings');
  // An empty TIDINGS_DATA means "not set", not "the current directory".
  assert.equal(loadConfig({ env: { TIDINGS_DATA: '' } }).dataDir, defaultDataDir({}));
});
