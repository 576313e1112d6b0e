// `npm pack` then `npm install -g ./tidings-*.tgz` gives a working `tidings`: Node does not strip
// types under node_modules, so the package must ship the JavaScript that prepack compiles. This
// installs the real tarball into a temp prefix and runs commands with it, including a refresh with
// a parse worker (a .js worker file in the package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDataDir } from './helpers.ts';
import { startFeedServer, rss } from './feeds-fixtures.ts';
import { runtimeAssets } from '../scripts/copy-assets.ts';

const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const SKIP = npmVersion.status === 0 ? false : 'skipped: npm is not on PATH (needed to pack and install the package)';

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test('npm pack + npm install -g gives a working tidings command', { skip: SKIP, timeout: 300_000 }, async (t) => {
  const tmp = tempDataDir('tidings-pack-');
  // The installed package with its dependencies is about 850 MB: not left behind by a run of this file alone.
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const pack = await run('npm', ['pack', '--pack-destination', tmp, '--no-audit', '--no-fund'], { cwd: ROOT });
  assert.equal(pack.code, 0, pack.stderr);
  const tarball = readdirSync(tmp).find((f) => /^tidings-.*\.tgz$/.test(f));
  assert.ok(tarball, `npm pack wrote no tarball: ${pack.stdout}`);
  const prefix = join(tmp, 'prefix');
  const install = await run('npm', [
    'install',
    '-g',
    '--prefix',
    prefix,
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(tmp, tarball),
  ]);
  if (install.code !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT/.test(install.stderr)) {
    t.skip(
      `skipped: the npm registry is unreachable and the dependencies are not cached (${install.stderr.split('\n')[0]})`,
    );
    return;
  }
  assert.equal(install.code, 0, install.stderr);
  // Files the code reads at run time besides its modules (e.g. a front-end's public/ folder) ship too.
  const installedRoot = join(prefix, 'lib', 'node_modules', 'tidings');
  for (const asset of runtimeAssets())
    assert.ok(existsSync(join(installedRoot, 'dist', asset)), `the package lacks ${asset}`);
  const tidings = join(prefix, 'bin', 'tidings');
  const xdg = tempDataDir('tidings-xdg-');
  const env = {
    XDG_DATA_HOME: xdg,
    TIDINGS_DATA: '',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    TIDINGS_LOG_LEVEL: 'silent',
  };

  const version = await run(tidings, ['--version'], { env });
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);

  // Installed, the default data folder is the per-user one, whatever the current directory.
  const add = await run(tidings, ['user', 'add', 'alice', '--password', 'correct horse'], { env, cwd: tmp });
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stderr.trim(), `tidings: created a new database in ${join(xdg, 'tidings')}`);

  const feeds = await startFeedServer();
  feeds.routes.set('/feed.xml', (_, res) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(rss('Packaged', [{ guid: 'a', title: 'Hello' }]));
  });
  try {
    const sub = await run(tidings, ['--set', 'parseWorkers=1', 'feed', 'add', 'alice', `${feeds.base}/feed.xml`], {
      env,
    });
    assert.equal(sub.code, 0, sub.stderr);
    const refresh = await run(tidings, ['--set', 'parseWorkers=1', 'refresh', '--all'], { env });
    assert.equal(refresh.code, 0, refresh.stderr);
    assert.match(refresh.stdout, /refreshed 1 feed\(s\).*0 failed/);
    const list = await run(tidings, ['feed', 'list', 'alice', '--json'], { env });
    assert.equal(JSON.parse(list.stdout)[0].itemCount, 1);
  } finally {
    await feeds.close();
  }

  // The installed server starts and serves its pages and APIs from dist/.
  const server = spawn(tidings, ['serve', '--port', '0'], {
    env: { ...process.env, ...env, TIDINGS_LOG_LEVEL: 'info', TIDINGS_LOG_FORMAT: 'json', TIDINGS_SCHEDULER: 'false' },
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      server.stderr.on('data', (d) => {
        err += d;
        const m = /"url":"(http:\/\/[^"]+)","dataDir[^}]*"msg":"tidings is serving"/.exec(err);
        if (m) resolve(m[1]);
      });
      server.on('close', (code) => reject(new Error(`the installed server exited with ${code}: ${err}`)));
    });
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200, 'the web page (a run-time asset) is served');
    assert.match(await page.text(), /<html/i);
  } finally {
    server.kill('SIGTERM');
  }
});
