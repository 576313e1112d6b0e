// The client IP behind the login throttle: X-Forwarded-For is believed only from configured proxies
// (TIDINGS_TRUST_PROXY), and guessing one username from many addresses is slowed down without
// locking the real user out. Real HTTP requests against a real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig, ConfigError, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { buildServer } from '../src/server/server.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from './helpers.ts';

const PASSWORD = 'correct horse battery';

async function start(overrides: Partial<Config>) {
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir: tempDataDir('tidings-proxy-'),
        schedulerEnabled: false,
        loginFailuresPerMinute: 3,
        ...overrides,
      },
    }),
    pino({ level: 'info' }, sink),
  );
  await app.users.create('alice', await hashPassword(PASSWORD));
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  const login = async (password: string, forwardedFor?: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'alice', Passwd: password }),
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    });
    await res.text();
    return { status: res.status, ms: performance.now() - t0, retryAfter: res.headers.get('retry-after') };
  };
  return {
    login,
    lines,
    async close() {
      await server.close();
      await app.close();
    },
  };
}

test('without TIDINGS_TRUST_PROXY a new X-Forwarded-For per try neither dodges the throttle nor shows in the log', async () => {
  const s = await start({});
  try {
    for (let i = 0; i < 3; i++) assert.equal((await s.login('guess', `203.0.113.${i}`)).status, 401);
    const next = await s.login('guess', '203.0.113.99');
    assert.equal(next.status, 429, 'all tries come from 127.0.0.1 whatever the header says');
    assert.equal((await s.login(PASSWORD, '198.51.100.1')).status, 429, 'the right password waits too');
    const failed = s.lines.filter((l) => l.msg === 'failed login');
    assert.equal(failed.length, 3);
    assert.ok(
      failed.every((l) => l.ip === '127.0.0.1'),
      `logged addresses: ${failed.map((l) => l.ip)}`,
    );
    assert.ok(!JSON.stringify(s.lines).includes('203.0.113.'), 'spoofed addresses appear nowhere in the log');
  } finally {
    await s.close();
  }
});

test('behind a trusted proxy the client IP is the nearest untrusted X-Forwarded-For address', async () => {
  const s = await start({ trustProxy: ['127.0.0.1'] });
  try {
    // The proxy appends the real client (198.51.100.7) to whatever the client sent (10.9.9.9).
    assert.equal((await s.login('guess', '10.9.9.9, 198.51.100.7')).status, 401);
    assert.equal(s.lines.find((l) => l.msg === 'failed login')?.ip, '198.51.100.7');
    // Failures that claim to come from 127.0.0.1 count against the address the proxy saw, so they
    // cannot lock out the real 127.0.0.1 client.
    for (let i = 0; i < 4; i++) await s.login('guess', '127.0.0.1, 198.51.100.8');
    assert.equal((await s.login('guess', '127.0.0.1, 198.51.100.8')).status, 429);
    assert.equal((await s.login(PASSWORD)).status, 200, 'the real local client still logs in');
  } finally {
    await s.close();
  }
});

test('guessing one username from many addresses meets growing delays, not a lockout', async () => {
  const s = await start({ trustProxy: ['127.0.0.1'] });
  try {
    assert.equal((await s.login(PASSWORD, '192.0.2.50')).status, 200, 'the owner logs in from home first');
    // Three failures are free (loginFailuresPerMinute = 3), each from a new address.
    for (let i = 0; i < 3; i++) {
      const r = await s.login('guess', `203.0.113.${i}`);
      assert.equal(r.status, 401);
    }
    const fourth = await s.login('guess', '203.0.113.10');
    assert.equal(fourth.status, 401);
    assert.ok(fourth.ms >= 450, `the 4th failure waited ${fourth.ms.toFixed(0)} ms (0.5 s expected)`);
    const fifth = await s.login('guess', '203.0.113.11');
    assert.ok(fifth.ms >= 950, `the 5th failure waited ${fifth.ms.toFixed(0)} ms (1 s expected)`);
    // Parallel tries do not multiply the rate: only two delayed attempts wait at once.
    const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => s.login('guess', `203.0.113.${20 + i}`)));
    const refused = burst.filter((r) => r.status === 429);
    assert.equal(refused.length, 3, `statuses: ${burst.map((r) => r.status)}`);
    assert.ok(refused.every((r) => Number(r.retryAfter) >= 1));
    // The owner's known address skips the delay; a new address gets in too, after the wait.
    const home = await s.login(PASSWORD, '192.0.2.50');
    assert.equal(home.status, 200);
    assert.ok(home.ms < 4000, `known address waited ${home.ms.toFixed(0)} ms`);
    const elsewhere = await s.login(PASSWORD, '192.0.2.77');
    assert.equal(elsewhere.status, 200, 'the right password works from a new address after the delay: no lockout');
    assert.ok(elsewhere.ms >= 7500, `new address waited ${elsewhere.ms.toFixed(0)} ms (8 s expected after 7 failures)`);
  } finally {
    await s.close();
  }
});

test('TIDINGS_TRUST_PROXY takes addresses and CIDRs and names a bad entry', () => {
  const c = loadConfig({ env: { TIDINGS_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' } });
  assert.deepEqual(c.trustProxy, ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
  assert.deepEqual(loadConfig({ env: {} }).trustProxy, [], 'off by default');
  assert.throws(
    () => loadConfig({ env: { TIDINGS_TRUST_PROXY: 'true' } }),
    (e: Error) => e instanceof ConfigError && /trustProxy: "true"/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: { TIDINGS_TRUST_PROXY: '10.0.0.0/33' } }), ConfigError);
});
