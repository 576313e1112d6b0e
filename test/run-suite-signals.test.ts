// A suite run stopped by a signal (Ctrl-C, CI's timeout) leaves nothing running: the PostgreSQL
// cluster a test started, the processes tests spawned and the run's temp folder all go with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { processAlive, ROOT } from './helpers.ts';
import { postgresBinDir } from './postgres-cluster.ts';

async function until(check: () => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`a run stopped by ${signal} stops its clusters and processes and removes its temp folder`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'suite-signal-'));
    const report = join(dir, 'report.json');
    const withCluster = Boolean(postgresBinDir());
    // The fixture is a test file that starts what real tests start, says where, and never ends.
    const fixture = join(dir, 'hangs.test.mjs');
    writeFileSync(
      fixture,
      `import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startCluster } from ${JSON.stringify(pathToFileURL(join(ROOT, 'test/postgres-cluster.ts')).href)};
test('hangs', async () => {
  const cluster = ${withCluster} ? await startCluster() : undefined;
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  // Written whole, then renamed: the test reads it as soon as it exists (a loaded machine saw it empty).
  writeFileSync(${JSON.stringify(`${report}.part`)}, JSON.stringify({ temp: tmpdir(), cluster: cluster?.dir, child: child.pid }));
  renameSync(${JSON.stringify(`${report}.part`)}, ${JSON.stringify(report)});
  await new Promise(() => setInterval(() => {}, 1000));
});
`,
    );
    const runner = spawn(process.execPath, [join(ROOT, 'test/run-suite.ts'), fixture], {
      cwd: ROOT,
      // Without NODE_TEST_CONTEXT: node:test refuses a run() it takes for one nested in this test file.
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    runner.stderr.on('data', (d) => {
      stderr += d;
    });
    runner.stdout.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((r) => runner.on('exit', (code) => r(code)));
    try {
      await until(() => existsSync(report), 'the fixture to start its cluster and child').catch((e) => {
        throw new Error(`${e.message}; the runner said: ${stderr}${stdout}`);
      });
      const { temp, cluster, child } = JSON.parse(readFileSync(report, 'utf8')) as {
        temp: string;
        cluster?: string;
        child: number;
      };
      const postmaster = cluster
        ? Number(readFileSync(join(cluster, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
        : undefined;
      assert.ok(temp.startsWith(tmpdir()) && temp.includes('tidings-suite-'), temp);
      assert.ok(processAlive(child));
      if (postmaster) assert.ok(processAlive(postmaster));

      runner.kill(signal);
      const code = await exited;
      assert.equal(code, signal === 'SIGTERM' ? 143 : 130, stderr);
      assert.match(stderr, new RegExp(`${signal}, stopping the run's test processes and PostgreSQL clusters`));
      await until(() => !processAlive(child), 'the spawned child to be gone', 5_000);
      if (postmaster) await until(() => !processAlive(postmaster), 'the PostgreSQL server to be gone', 10_000);
      assert.equal(existsSync(temp), false, `${temp} was left behind`);
      if (!withCluster) t.diagnostic('PostgreSQL is not installed: only the child process and the folder were checked');
    } finally {
      runner.kill('SIGKILL');
    }
  });
}
