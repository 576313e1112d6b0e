// `tidings serve` the way a new operator first runs it, with real processes: on PostgreSQL with a
// data folder nothing created yet (the README's `TIDINGS_DATABASE_URL=… npm start` on a fresh
// machine), and a worker whose messages to its supervisor fail.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshPostgresDatabase, ROOT, TEST_DATABASE_URL, tempDataDir } from './helpers.ts';
import { postgresUnavailable, startCluster, type Cluster } from './postgres-cluster.ts';
import { request, serve, serveWorkers, workerPids } from './serve-helper.ts';

let cluster: Cluster | undefined;
after(() => cluster?.stop());
async function pgDatabase(): Promise<string> {
  if (TEST_DATABASE_URL) return freshPostgresDatabase();
  cluster ??= await startCluster();
  return freshPostgresDatabase(cluster.url);
}

test('serve --workers 2 on PostgreSQL with a data folder that does not exist: creates it for serve.pid and serves', {
  skip: postgresUnavailable() ?? false,
}, async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'tidings-pg-fresh-')), 'not', 'yet');
  const s = await serve(['--data', dataDir, 'serve', '--port', '0', '--workers', '2'], {
    TIDINGS_DATABASE_URL: await pgDatabase(),
    TIDINGS_SCHEDULER: 'false',
    TIDINGS_WORKER_BALANCING: 'round-robin',
  });
  try {
    const pidFile = join(dataDir, 'serve.pid');
    assert.equal(readFileSync(pidFile, 'utf8').trim(), String(s.process.pid), 'the supervisor wrote serve.pid');
    for (const w of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === w);
    const pids = workerPids(s);
    const seen = new Set<number>();
    for (let i = 0; i < 10; i++) {
      const r = await request(`${s.url}/readyz`);
      assert.equal(r.status, 200, r.body);
      seen.add(r.worker!);
    }
    assert.deepEqual([...seen].sort(), [1, 2], 'both workers serve');
    assert.deepEqual(workerPids(s), pids, 'no worker died and was replaced');
    assert.ok(!s.lines.some((l) => /worker died|EPIPE|ENOENT/.test(l)), s.lines.join('\n'));
    assert.equal(await s.stop(), 0);
    assert.equal(existsSync(pidFile), false, 'serve.pid is removed at the end');
  } finally {
    if (s.process.exitCode === null) await s.stop('SIGKILL');
  }
});

test('a worker serves on when a message to its supervisor fails (the channel closed)', async () => {
  // A process with a real IPC channel whose parent closes it, then sends as a worker does.
  const supervisor = pathToFileURL(join(ROOT, 'src/cli/supervisor.ts')).href;
  const code = `
    import { tellSupervisor } from ${JSON.stringify(supervisor)};
    import { createLogger } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/log/logger.ts')).href)};
    const log = createLogger('warn', 'json');
    process.once('disconnect', () => {
      tellSupervisor(log, { type: 'draining' });
      setTimeout(() => { process.stdout.write('still serving\\n'); process.exit(0); }, 200);
    });
    process.send({ type: 'ready' });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.once('message', () => child.disconnect());
  // 'exit' and the ends of the output: 'close' never comes for a child whose channel was disconnected.
  const [[exitCode]] = await Promise.all([once(child, 'exit'), once(child.stdout!, 'end'), once(child.stderr!, 'end')]);
  assert.equal(exitCode, 0, stderr);
  assert.match(stdout, /still serving/);
  assert.match(stderr, /could not tell the supervisor; serving on/);
});

test('/metrics under --workers 2 adds up the counters of both workers, whichever answers', async () => {
  const dataDir = tempDataDir('tidings-metrics-');
  const s = await serveWorkers(dataDir, 2, { TIDINGS_WORKER_BALANCING: 'round-robin' });
  try {
    const served = new Map<number, number>();
    for (let i = 0; i < 12; i++) {
      const r = await request(`${s.url}/healthz`);
      assert.equal(r.status, 200);
      served.set(r.worker!, (served.get(r.worker!) ?? 0) + 1);
    }
    assert.deepEqual([...served.keys()].sort(), [1, 2], 'both workers served /healthz');
    const healthz = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('tidings_http_requests_total{') && l.includes('route="/healthz"'))
        .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    const answeredBy = new Set<number>();
    for (let i = 0; i < 6 && answeredBy.size < 2; i++) {
      const m = await request(`${s.url}/metrics`);
      assert.equal(m.status, 200, m.body);
      answeredBy.add(m.worker!);
      assert.equal(healthz(m.body), 12, `worker ${m.worker} reports both workers' requests:\n${m.body}`);
      assert.match(m.body, /^tidings_metrics_workers\{state="reporting"\} 2$/m);
      assert.match(m.body, /^tidings_metrics_workers\{state="missing"\} 0$/m);
      // Counted once, not once per worker: every worker sees the same database file.
      const db = /^tidings_database_bytes\{file="db"\} (\d+)$/m.exec(m.body);
      if (db) assert.ok(Number(db[1]) <= statSync(join(dataDir, 'tidings.db')).size * 1.5, db[0]);
    }
    assert.deepEqual([...answeredBy].sort(), [1, 2], 'both workers answered /metrics');
  } finally {
    await s.stop();
  }
});
