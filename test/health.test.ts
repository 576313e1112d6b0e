// /healthz (liveness) and /readyz (readiness): ready while the database answers, 503 with
// Retry-After while it does not (PostgreSQL behind a TCP proxy the test cuts and restores), while
// Redis does not (limits counted there), and while the server drains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startServer } from '../src/server/server.ts';
import { markDraining } from '../src/server/health.ts';
import { freshPostgresDatabase, postgresProxyTarget, TEST_DATABASE_URL, tempDataDir } from './helpers.ts';
import { redisUnavailable, startRedis } from './redis-server.ts';

async function served(overrides: Partial<Config>): Promise<{ app: App; url: string }> {
  const config = loadConfig({
    env: {},
    overrides: { dataDir: tempDataDir('tidings-health-'), port: 0, logLevel: 'silent', ...overrides },
  });
  const app = await createApp(config, silentLogger);
  const { url } = await startServer(app);
  return { app, url };
}

async function get(url: string): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const r = await fetch(url);
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
}

test('/healthz says the process lives, /readyz that it can serve, until it drains', async () => {
  const { app, url } = await served({});
  try {
    const live = await get(`${url}/healthz`);
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { ok: true, worker: null, pid: process.pid });
    assert.equal((await get(`${url}/readyz`)).status, 200);
    markDraining(app);
    const draining = await get(`${url}/readyz`);
    assert.equal(draining.status, 503);
    assert.equal(draining.retryAfter, '5');
    assert.equal(draining.body.reason, 'draining');
    assert.equal((await get(`${url}/healthz`)).status, 200, 'still alive while draining');
  } finally {
    await app.close();
  }
});

/** A TCP proxy to the PostgreSQL server that can be cut (connections dropped, new ones refused) and restored. */
async function cuttableProxy(target: net.NetConnectOpts) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
    async restore() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: () => new Promise<void>((r) => (server.listening ? server.close(() => r()) : r())),
  };
}

test('/readyz answers 503 while PostgreSQL is unreachable and 200 again once it is back', {
  skip: TEST_DATABASE_URL ? false : 'skipped: runs on the PostgreSQL pass (TIDINGS_TEST_DATABASE_URL)',
}, async () => {
  const { target, viaPort } = postgresProxyTarget(freshPostgresDatabase());
  const proxy = await cuttableProxy(target);
  const { app, url } = await served({ databaseUrl: viaPort(proxy.port) });
  try {
    assert.equal((await get(`${url}/readyz`)).status, 200);
    await proxy.cut();
    const down = await get(`${url}/readyz`);
    assert.equal(down.status, 503);
    assert.equal(down.retryAfter, '5');
    assert.deepEqual(down.body, { ok: false, reason: 'database unreachable', worker: null, pid: process.pid });
    assert.equal((await get(`${url}/healthz`)).status, 200, 'alive all the same: no restart needed');
    await proxy.restore();
    assert.equal((await get(`${url}/readyz`)).status, 200, 'ready again without a restart');
  } finally {
    await app.close();
    await proxy.close();
  }
});

test('/readyz answers 503 while the Redis that limits count in is unreachable', {
  skip: redisUnavailable() ?? false,
}, async () => {
  const redis = await startRedis();
  const { app, url } = await served({ redisUrl: redis.url });
  try {
    assert.equal(app.limits.kind, 'redis');
    assert.equal((await get(`${url}/readyz`)).status, 200);
    await redis.stop();
    const down = await get(`${url}/readyz`);
    assert.equal(down.status, 503);
    assert.equal(down.body.reason, 'redis unreachable');
  } finally {
    await app.close();
  }
});
