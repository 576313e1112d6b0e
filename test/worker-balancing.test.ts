// How `tidings serve --workers N` spreads connections. Under reuse-port (the default on Linux)
// each worker binds the port itself and the supervisor holds no listening socket while they
// serve (it is out of the data path); --port 0 still gives one port for every worker; a killed
// worker's replacement binds it again and serves; SIGTERM drains every worker and exits 0.
// Round-robin (the other mode) is what test/workers.test.ts runs on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tempDataDir } from './helpers.ts';
import { request, serve, serveWorkers, workerPids } from './serve-helper.ts';

/** The pids holding a listening TCP socket on `port` (Linux /proc). */
function listenersOf(port: number, pids: number[]): number[] {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address, f[3] state (0A = LISTEN), f[9] inode
      if (f[1]?.endsWith(hex) && f[3] === '0A') inodes.add(f[9]!);
    }
  }
  const fds = (pid: number) => {
    try {
      return readdirSync(`/proc/${pid}/fd`);
    } catch {
      return []; // a process that is gone
    }
  };
  return pids.filter((pid) =>
    fds(pid).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    }),
  );
}

test('reuse-port: every worker listens on the one port itself, the supervisor not at all', {
  skip: process.platform !== 'linux' && 'SO_REUSEPORT balancing is Linux only (round-robin elsewhere)',
}, async () => {
  const s = await serveWorkers(tempDataDir('tidings-balancing-'), 2, {
    TIDINGS_WORKER_BALANCING: 'reuse-port',
    TIDINGS_LOG_LEVEL: 'info',
  });
  try {
    const serving = await s.waitForLog((l) => l.msg === 'tidings is serving');
    assert.equal(serving.balancing, 'reuse-port');
    const port = Number(new URL(s.url).port);
    assert.ok(port > 0, s.url);
    for (const n of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === n);
    const pids = workerPids(s);
    assert.equal(pids.size, 2);
    assert.deepEqual(
      listenersOf(port, [s.process.pid!, ...pids.values()]).sort(),
      [...pids.values()].sort(),
      'the workers hold the listening sockets; the supervisor (which held the port while they started) none',
    );
    // SO_REUSEPORT must not let a second server share the port by mistake.
    await assert.rejects(
      serve(['--data', tempDataDir('tidings-balancing-'), 'serve', '--port', String(port), '--workers', '2'], {
        TIDINGS_SCHEDULER: 'false',
        TIDINGS_WORKER_BALANCING: 'reuse-port',
      }),
      /cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\): choose another port/,
    );
    // New connections reach both workers (the kernel hashes each connection's addresses).
    const seen = new Set<number | undefined>();
    for (let i = 0; i < 60 && seen.size < 2; i++) seen.add((await request(`${s.url}/healthz`)).worker);
    assert.deepEqual([...seen].sort(), [1, 2]);

    // A killed worker's replacement binds the same port again and serves.
    const oldPid = pids.get(2)!;
    process.kill(oldPid, 'SIGKILL');
    const back = await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === 2 && l.pid !== oldPid);
    await s.waitForLog((l) => l.msg === 'worker restarted and listening' && l.worker === 2);
    const again = new Set<number | undefined>();
    for (let i = 0; i < 60 && !again.has(2); i++) {
      const r = await request(`${s.url}/healthz`);
      assert.equal(r.status, 200);
      again.add(r.worker);
    }
    assert.ok(again.has(2), 'the replacement serves');
    assert.deepEqual(
      listenersOf(port, [s.process.pid!, oldPid, back.pid!, pids.get(1)!]).sort(),
      [pids.get(1)!, back.pid!].sort(),
    );
  } finally {
    assert.equal(await s.stop(), 0, s.lines.slice(-20).join('\n'));
  }
  assert.equal(s.lines.filter((l) => l.includes('drained and stopped')).length, 2, 'both workers drained');
});

test('a bad TIDINGS_WORKER_BALANCING is refused with the values to use', async () => {
  await assert.rejects(
    serveWorkers(tempDataDir('tidings-balancing-'), 2, { TIDINGS_WORKER_BALANCING: 'random' }),
    /workerBalancing \(TIDINGS_WORKER_BALANCING\) must be auto, reuse-port or round-robin, got "random"/,
  );
});

test('round-robin is the default: the supervisor hands out connections, exactly in turn', async () => {
  const s = await serveWorkers(tempDataDir('tidings-balancing-'), 2, { TIDINGS_LOG_LEVEL: 'info' });
  try {
    const serving = await s.waitForLog((l) => l.msg === 'tidings is serving');
    assert.equal(serving.balancing, 'round-robin');
    const seen = new Set<number | undefined>();
    for (let i = 0; i < 4; i++) seen.add((await request(`${s.url}/healthz`)).worker);
    assert.deepEqual([...seen].sort(), [1, 2]);
  } finally {
    assert.equal(await s.stop(), 0, s.lines.slice(-20).join('\n'));
  }
});
