// Several listening sockets per server process (TIDINGS_ACCEPT_SOCKETS, SO_REUSEPORT on Linux):
// connections the kernel hands to any of them are served like the others, closing the app closes
// them all, and a port another program holds still fails to bind (the sockets never share a port
// with someone else's server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startServer } from '../src/server/server.ts';
import { tempDataDir } from './helpers.ts';

const linux = process.platform === 'linux';

async function app(overrides: Record<string, unknown> = {}) {
  return createApp(
    loadConfig({
      env: {},
      overrides: { dataDir: tempDataDir('tidings-accept-'), port: 0, logLevel: 'silent', ...overrides },
    }),
    silentLogger,
  );
}

const listeners = (port: number) =>
  execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean).length;

test('8 accept sockets: all listen, every connection is served, close stops them all', {
  skip: linux ? false : 'SO_REUSEPORT spreads connections on Linux only',
}, async () => {
  const a = await app({ acceptSockets: 8 });
  const { url } = await startServer(a);
  const port = Number(new URL(url).port);
  try {
    assert.equal(listeners(port), 8, 'eight listening sockets on the port');
    // New connections each (no keep-alive): the kernel spreads them over the eight sockets.
    const answers = await Promise.all(
      Array.from({ length: 64 }, () => fetch(`${url}/healthz`, { headers: { connection: 'close' } })),
    );
    assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
    // Keep-alive connections left idle, some accepted by the extra sockets.
    const kept = await Promise.all(Array.from({ length: 32 }, () => fetch(`${url}/healthz`)));
    await Promise.all(kept.map((r) => r.arrayBuffer()));
  } finally {
    const t0 = Date.now();
    await a.close();
    // Fastify closes idle connections at once; waiting for the extra sockets' own close first
    // waited for their connections' 72 s keep-alive (a web API test's close took 70 s).
    assert.ok(Date.now() - t0 < 20_000, `closing took ${Date.now() - t0} ms`);
  }
  assert.equal(listeners(port), 0, 'no socket left listening');
  await assert.rejects(fetch(`${url}/healthz`), 'nothing accepts any more');
});

test('a port another program holds is refused as before, accept sockets or not', {
  skip: linux ? false : 'SO_REUSEPORT spreads connections on Linux only',
}, async () => {
  const other = net.createServer();
  await new Promise<void>((r) => other.listen({ port: 0, host: '127.0.0.1', reusePort: true }, r));
  const port = (other.address() as net.AddressInfo).port;
  const a = await app({ acceptSockets: 8, port });
  try {
    await assert.rejects(startServer(a), (e: NodeJS.ErrnoException) => e.code === 'EADDRINUSE');
  } finally {
    await a.close();
    await new Promise((r) => other.close(r));
  }
});

test('acceptSockets 1: one listening socket, as Node does by default', async () => {
  const a = await app({ acceptSockets: 1 });
  const { url } = await startServer(a);
  try {
    if (linux) assert.equal(listeners(Number(new URL(url).port)), 1);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
  } finally {
    await a.close();
  }
});
