// Many connections at once (issue 25, "Load"): `tidings serve --workers N` under wrk with 300 and
// 1,000 keep-alive connections on an authenticated Reader call, and, 2 s into each run, a burst of
// 500 new connections each timing connect + GET /healthz (what clients arriving at a busy server
// wait for), with the kernel's count of connections dropped at a full accept queue.
//
//   node bench/connections.bench.ts [--seconds 10] [--workers 1,2] [--connections 300,1000] [--cold]
//     [--variants 'before:TIDINGS_LISTEN_BACKLOG=511;after:']
//
// Each variant is a name and environment settings for the server (NAME=VALUE, comma-separated),
// run in turn for every worker count, so before and after come from the same run.
//
// Loopback only; every wrk run is bounded (--seconds, 30 s request timeout).
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { loadavg, availableParallelism } from 'node:os';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from '../test/helpers.ts';
import { startServeProcess } from './serve-process.ts';
import { runWrk, wrkAvailable } from './wrk-client.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const SECONDS = Number(arg('seconds', '10'));
const WORKERS = arg('workers', '1,2').split(',').map(Number);
const CONNECTIONS = arg('connections', '300,1000').split(',').map(Number);
const VARIANTS = arg('variants', 'default:')
  .split(';')
  .filter(Boolean)
  .map((v) => {
    const [name, settings = ''] = v.split(/:(.*)/s);
    const env = Object.fromEntries(
      settings
        .split(',')
        .filter(Boolean)
        .map((kv) => kv.split('=') as [string, string]),
    );
    return { name: name!, env };
  });

/** Connect + GET /healthz on a new connection, in ms (Infinity past 30 s). */
function probeOnce(port: number): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const s = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      s.destroy();
      resolve(Infinity);
    }, 30_000);
    s.on('connect', () => s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    s.once('data', () => {
      clearTimeout(timer);
      resolve(performance.now() - t0);
      s.destroy();
    });
    s.on('error', () => {
      clearTimeout(timer);
      resolve(Infinity);
    });
  });
}

/** The kernel's counters of connections dropped at a full accept queue (namespace-wide: other programs count too). */
function listenDrops(): number {
  try {
    const out = execFileSync('nstat', ['-az', 'TcpExtListenOverflows', 'TcpExtListenDrops'], { encoding: 'utf8' });
    return [...out.matchAll(/TcpExtListen\w+\s+(\d+)/g)].reduce((n, m) => Math.max(n, Number(m[1])), 0);
  } catch {
    return NaN;
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const ms = (x: number) =>
  Number.isFinite(x) ? (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`) : '> 30 s';

async function main(): Promise<void> {
  if (!wrkAvailable()) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const dataDir = tempDataDir('tidings-conn-bench-');
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }), silentLogger);
  await app.users.create('bench', await hashPassword('bench-password-1'), 'bench@example.org');
  await app.close();
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ${availableParallelism()} cores`,
  );
  console.log(
    '| variant | workers | connections | wrk req/s | wrk p50 | wrk p99 | wrk errors | burst of 500 new: p50 | p99 | max | accept-queue drops |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const workers of WORKERS)
    for (const variant of VARIANTS) {
      const server = await startServeProcess(dataDir, workers, { TIDINGS_LOG_LEVEL: 'warn', ...variant.env });
      try {
        const port = Number(new URL(server.url).port);
        const login = await fetch(`${server.url}/accounts/ClientLogin`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'Email=bench&Passwd=bench-password-1',
        });
        const auth = /Auth=(\S+)/.exec(await login.text())?.[1];
        if (!auth) throw new Error(`ClientLogin failed: HTTP ${login.status}`);
        const headers = { authorization: `GoogleLogin auth=${auth}` };
        const request = { method: 'GET' as const, path: '/reader/api/0/unread-count?output=json', headers };
        // Warm: the Reader modules load on first use, and a cold JIT made the first seconds of the
        // first run look like a 3 s stall that has nothing to do with connections.
        await runWrk(server.url, request, { connections: 50, seconds: 3 });
        for (const connections of CONNECTIONS) {
          const probes: number[] = [];
          let running = true;
          const probing = (async () => {
            await new Promise((r) => setTimeout(r, 300)); // wrk's connections opened first
            while (running) {
              probes.push(await probeOnce(port));
              await new Promise((r) => setTimeout(r, 100));
            }
          })();
          // 500 clients arriving at once, 2 s into the run: what the accept queue does with a burst.
          const burst = (async () => {
            await new Promise((r) => setTimeout(r, 2000));
            return Promise.all(Array.from({ length: 500 }, () => probeOnce(port)));
          })();
          const drops0 = listenDrops();
          const r = await runWrk(
            server.url,
            { method: 'GET', path: '/reader/api/0/unread-count?output=json', headers },
            { connections, seconds: SECONDS },
          );
          running = false;
          await probing;
          const b = await burst;
          const drops = listenDrops() - drops0;
          console.log(
            `| ${variant.name} | ${workers} | ${connections} | ${r.rps.toFixed(0)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${r.errors} | ${ms(pct(b, 50))} | ${ms(pct(b, 99))} | ${ms(Math.max(...b))} | ${drops} |`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  console.log(
    `load average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
