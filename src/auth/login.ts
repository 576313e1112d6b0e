// Checking a username and password (ClientLogin and the OAuth login page), throttled.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { User } from '../model/user.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoginThrottle } from './login-throttle.ts';

export type LoginResult =
  | { ok: true; user: User }
  | { ok: false; reason: 'bad-credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

const throttle = perApp((app) => {
  // Delayed attempts end when the app closes, so a shutdown never waits out a 30 s slow-down.
  const closing = new AbortController();
  app.onClose(() => closing.abort());
  return { throttle: new LoginThrottle(app.limits, app.config.loginFailuresPerMinute), closing: closing.signal };
});

// Unknown usernames are checked against this hash too, so the answer time does not reveal which
// usernames exist.
let dummyHash: Promise<string> | undefined;

export async function checkLogin(app: App, username: string, password: string, clientIp: string): Promise<LoginResult> {
  const { throttle: t, closing } = throttle(app);
  const wait = await t.retryAfterMs(username, clientIp);
  if (wait > 0) return { ok: false, reason: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
  const slow = await t.slowDown(username, clientIp);
  if ('busyRetryAfterMs' in slow)
    return { ok: false, reason: 'throttled', retryAfterSeconds: Math.ceil(slow.busyRetryAfterMs / 1000) };
  if (!('slot' in slow)) return check(app, t, username, password, clientIp);
  // Many recent failures for this username from other addresses: wait before checking.
  try {
    try {
      await sleep(slow.delayMs, undefined, { signal: closing });
    } catch {
      return { ok: false, reason: 'throttled', retryAfterSeconds: Math.ceil(slow.delayMs / 1000) };
    }
    return await check(app, t, username, password, clientIp);
  } finally {
    await t.release(username, slow.slot);
  }
}

async function check(
  app: App,
  t: LoginThrottle,
  username: string,
  password: string,
  clientIp: string,
): Promise<LoginResult> {
  // Clients label the field "Email" and many users type their address there.
  const found = !username
    ? undefined
    : ((await app.users.findByName(username)) ??
      (username.includes('@') ? await app.users.findByEmail(username) : undefined));
  const ok = await verifyPassword(
    password,
    found?.passwordHash ?? (await (dummyHash ??= hashPassword('not a password of anyone'))),
  );
  if (!found || !ok) {
    await t.recordFailure(username, clientIp);
    app.log.info({ username, ip: clientIp }, 'failed login');
    return { ok: false, reason: 'bad-credentials' };
  }
  await t.recordSuccess(username, clientIp);
  const { passwordHash: _, ...user } = found;
  return { ok: true, user };
}
