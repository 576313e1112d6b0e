// `tidings serve` relaunches itself in place with V8 flags that bound its memory
// (scripts/process-setup.js); other commands run as started, and an operator's own flags win.
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandOf, DEFAULT_SERVE_NODE_FLAGS, serveNodeFlags } from '../scripts/process-setup.js';
import { startingHeapGrowingPercent } from '../src/runtime/startup-garbage.ts';
import { tempDataDir } from './helpers.ts';
import { serve, serveWorkers, workerPids } from './serve-helper.ts';

test('the subcommand is found past global options and their values', () => {
  assert.equal(commandOf(['serve']), 'serve');
  assert.equal(commandOf(['--data', '/srv/serve', '--set', 'logLevel=info', 'serve', '--port', '8080']), 'serve');
  assert.equal(commandOf(['-v', '--config', 'serve.toml', 'feed', 'add', 'serve', 'http://x/']), 'feed');
  assert.equal(commandOf(['--data=/x', 'user', 'list']), 'user');
  assert.equal(commandOf(['--version']), undefined);
});

test('the default flags give way to the same flag in NODE_OPTIONS or execArgv, or to TIDINGS_SERVE_NODE_FLAGS', () => {
  assert.deepEqual(serveNodeFlags({}, []), DEFAULT_SERVE_NODE_FLAGS.split(' '));
  assert.deepEqual(serveNodeFlags({ NODE_OPTIONS: '--max-semi-space-size=32' }, []), ['--heap-growing-percent=50']);
  assert.deepEqual(serveNodeFlags({ NODE_OPTIONS: '--max_semi_space_size=32' }, []), ['--heap-growing-percent=50']);
  assert.deepEqual(serveNodeFlags({}, ['--max-semi-space-size=2', '--heap-growing-percent=0']), []);
  assert.deepEqual(serveNodeFlags({ TIDINGS_SERVE_NODE_FLAGS: '' }, []), []);
  assert.deepEqual(serveNodeFlags({ TIDINGS_SERVE_NODE_FLAGS: ' --max-old-space-size=300  --stack-size=2000 ' }, []), [
    '--max-old-space-size=300',
    '--stack-size=2000',
  ]);
});

/** The pid of the process serving a data folder (it writes its pid to serve.pid). */
function servingPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'serve.pid'), 'utf8'));
}

/** What `ps -o args=` shows for a process (its title, on Linux). */
function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
}

test('tidings serve runs with the flags, in the process that was started', {
  skip: process.platform !== 'linux' ? 'reads /proc' : false,
  timeout: 120_000,
}, async () => {
  for (const [env, expected] of [
    [{}, true],
    [{ TIDINGS_SERVE_NODE_FLAGS: '' }, false],
  ] as const) {
    const data = tempDataDir();
    const served = await serve(['--data', data, 'serve', '--port', '0', '--host', '127.0.0.1'], {
      TIDINGS_LOG_LEVEL: 'info',
      ...env,
    });
    try {
      // The command line shows the title (below): the server logs the flags it runs with.
      const flags = (await served.waitForLog((l) => l.msg === 'tidings is serving')).nodeFlags as string[];
      assert.equal(
        DEFAULT_SERVE_NODE_FLAGS.split(' ').every((f) => flags.includes(f)),
        expected,
        flags.join(' '),
      );
      assert.equal(servingPid(data), served.process.pid);
      // The relaunched process is the one that was spawned: stopping it stops the server.
      assert.equal((await fetch(`${served.url}/healthz`)).status, 200);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  }
});

test("a first start from a checkout starts over without Node's TypeScript stripper, once", {
  skip:
    process.platform !== 'linux' ? 'reads /proc' : typeof process.execve !== 'function' ? 'no process.execve' : false,
  timeout: 180_000,
}, async () => {
  // An empty compile cache, as after a clone, a `git pull` or a reboot that cleared /tmp; a
  // preloaded module notes at the server's exit whether the stripper was loaded in it.
  const dir = mkdtempSync(join(tmpdir(), 'tidings-compile-cache-'));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `process.on('exit', () => process.getBuiltinModule('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ pid: process.pid, stripper: process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index')) })));`,
  );
  const data = tempDataDir();
  for (const first of [true, false]) {
    const out = join(dir, `exit-${first}.json`);
    const served = await serve(['--data', data, 'serve', '--port', '0', '--host', '127.0.0.1'], {
      TIDINGS_LOG_LEVEL: 'info',
      TIDINGS_SCHEDULER: 'false',
      NODE_COMPILE_CACHE: join(dir, 'cache'),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${probe}`,
      PROBE_OUT: out,
    });
    try {
      assert.equal((await fetch(`${served.url}/healthz`)).status, 200);
    } finally {
      assert.equal(await served.stop(), 0);
    }
    // The process that served (the one spawned: same pid) ended without the stripper loaded.
    const exit = JSON.parse(readFileSync(out, 'utf8')) as { pid: number; stripper: boolean };
    assert.deepEqual(exit, { pid: served.process.pid, stripper: false });
    // It started over on the first start only: the second found the cache warm.
    const startedOver = served.lines.filter((l) => l.includes('starts over without')).length;
    assert.equal(startedOver, first ? 1 : 0, served.lines.join('\n'));
  }
});

test('on a cold compile cache the worker threads find their modules in the cache the main thread wrote', {
  timeout: 120_000,
}, async () => {
  // A parse thread started on a cold cache stripped its modules' types itself and kept Node's
  // TypeScript stripper (~15 MB a thread). `tidings serve` writes the threads' modules to the
  // cache before it starts over (src/cli/thread-modules.ts). Each run: a
  // process on an empty cache, whose parse thread runs a probe (plain JavaScript, so that it
  // strips nothing itself) saying whether the thread loaded the stripper.
  const dir = mkdtempSync(join(tmpdir(), 'tidings-thread-cache-'));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    "export const runInWorker = () => process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index'));",
  );
  const src = new URL('../src/', import.meta.url).href;
  const script = join(dir, 'run.mjs');
  writeFileSync(
    script,
    `const { loadWorkerThreadModules } = await import('${src}cli/thread-modules.ts');
const { ParsePool } = await import('${src}feeds/parse-pool/parse-pool.ts');
const wrote = process.env.WRITE === '1';
if (wrote) {
  await loadWorkerThreadModules();
  (await import('node:module')).flushCompileCache();
}
const pool = new ParsePool(1);
const thread = await pool.runModule(new URL('file://${probe}'), null, 60_000, 'probe');
console.log(JSON.stringify({ wrote, thread }));
process.exit(0);`,
  );
  const run = (write: boolean, cache: string) => {
    const r = spawnSync(process.execPath, [script], {
      env: { ...process.env, NODE_COMPILE_CACHE: join(dir, cache), WRITE: write ? '1' : '0' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { wrote: boolean; thread: boolean };
  };
  // Without writing the cache first, the thread loads the stripper (what the probe must see).
  assert.deepEqual(run(false, 'cold'), { wrote: false, thread: true });
  // Written by the main thread first: the thread strips nothing.
  assert.deepEqual(run(true, 'written'), { wrote: true, thread: false });
});

test('the processes are titled "tidings" and "tidings worker N" in ps and top', {
  skip: process.platform !== 'linux' ? 'reads /proc' : false,
  timeout: 120_000,
}, async () => {
  const s = await serveWorkers(tempDataDir(), 2);
  try {
    for (const w of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === w);
    assert.equal(commandLine(s.process.pid!), 'tidings');
    assert.equal(readFileSync(`/proc/${s.process.pid}/comm`, 'utf8').trim(), 'tidings');
    for (const [slot, pid] of workerPids(s)) {
      assert.equal(commandLine(pid), `tidings worker ${slot}`);
      // The kernel keeps 15 characters of the name top shows.
      assert.equal(readFileSync(`/proc/${pid}/comm`, 'utf8').replace(/\n$/, ''), 'tidings worker ');
    }
  } finally {
    assert.equal(await s.stop(), 0);
  }
});

test("a compact-heap pass restores the process's own heap growing setting, the server's included", () => {
  assert.equal(startingHeapGrowingPercent([], ''), 0);
  assert.equal(startingHeapGrowingPercent([], '--max-old-space-size=300 --heap-growing-percent=40'), 40);
  assert.equal(startingHeapGrowingPercent(['--max-semi-space-size=8', '--heap-growing-percent=50'], ''), 50);
  assert.equal(startingHeapGrowingPercent(['--heap_growing_percent=20', '--heap-growing-percent=70'], ''), 70);
});
