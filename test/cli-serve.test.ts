// `tidings serve` is the server (npm start runs it) and takes the same global flags as every
// command, so the CLI and the server cannot silently use different databases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDataDir } from './helpers.ts';
import { serve } from './serve-helper.ts';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('tidings --version prints the package version', async () => {
  const r = await runCli(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
});

test('npm start runs tidings serve', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.match(pkg.scripts.start, /bin\/tidings\.js serve$/);
});

test('--set does not swallow the subcommand after it, and can be repeated', async () => {
  const data = tempDataDir();
  const r = await runCli([
    '--data',
    data,
    '--set',
    'logLevel=silent',
    '--set',
    'defaultTier=2',
    'user',
    'add',
    'alice',
    '--password',
    'correct horse',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /created user alice/);
  const bad = await runCli(['--data', data, '--set', 'nosuch=1', 'user', 'list']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown option "--nosuch"/);
});

test('a bad TIDINGS_LOG_LEVEL or TIDINGS_LOG_FORMAT is a named config error, not a stack trace', {
  timeout: 300_000,
}, async () => {
  for (const [name, value] of [
    ['TIDINGS_LOG_LEVEL', 'loud'],
    ['TIDINGS_LOG_FORMAT', 'xml'],
  ]) {
    for (const args of [
      ['user', 'list'],
      ['serve', '--port', '0'],
    ]) {
      const r = await runCli(['--data', tempDataDir(), ...args], { [name]: value });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`${name}\\) must be one of .*got "${value}"`));
    }
  }
});

test('serve honours --data, --port, --host and --set, and serves the database the CLI writes', async () => {
  const data = tempDataDir();
  const port = await freePort();
  assert.equal((await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse'])).code, 0);
  const s = await serve([
    '--data',
    data,
    '--set',
    'schedulerEnabled=false',
    'serve',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ]);
  try {
    assert.equal(s.url, `http://127.0.0.1:${port}`);
    assert.equal(s.dataDir, data);
    assert.ok(!s.lines.some((l) => /no users yet/.test(l)), 'the server sees the user the CLI created');
    const login = await fetch(`${s.url}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'alice', Passwd: 'correct horse' }),
    });
    assert.equal(login.status, 200);
    assert.equal(((await (await fetch(`${s.url}/healthz`)).json()) as { ok: boolean }).ok, true);
  } finally {
    assert.equal(await s.stop(), 0);
  }
});

test('serve reads --config, and --port wins over the file', async () => {
  const data = tempDataDir();
  const [filePort, flagPort] = [await freePort(), await freePort()];
  const file = join(tempDataDir(), 'tidings.json');
  writeFileSync(file, JSON.stringify({ port: filePort, dataDir: data, schedulerEnabled: false }));
  const a = await serve(['--config', file, 'serve']);
  try {
    assert.equal(a.url, `http://127.0.0.1:${filePort}`);
    assert.equal(a.dataDir, data);
  } finally {
    await a.stop();
  }
  const b = await serve(['--config', file, 'serve', '--port', String(flagPort)]);
  try {
    assert.equal(b.url, `http://127.0.0.1:${flagPort}`);
  } finally {
    await b.stop();
  }
});

test('serve on a port in use fails with one line naming --port', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = await runCli(['--data', tempDataDir(), 'serve', '--port', String(port)], { TIDINGS_LOG_LEVEL: 'silent' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\).*--port/);
  } finally {
    blocker.close();
  }
});

test('SIGTERM the moment serve says it serves drains and exits 0 (the handlers are in before that line)', async () => {
  for (const workers of ['1', '2']) {
    const data = tempDataDir();
    // No users yet: the server still checks the database after the line (the warning), the window
    // in which a SIGTERM used to kill it outright.
    const served = await serve(['--data', data, 'serve', '--port', '0', '--host', '127.0.0.1', '--workers', workers]);
    assert.equal(await served.stop(), 0, `--workers ${workers}: ${served.lines.join(' | ')}`);
  }
});
