// Checking a username and password (ClientLogin and the OAuth login page), throttled.
import type { App } from '../app.ts';
import { perApp } from '../per-app.ts';
import type { User } from '../model/user.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { LoginThrottle } from './login-throttle.ts';

export type LoginResult =
  | { ok: true; user: User }
  | { ok: false; reason: 'bad-credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

const throttle = perApp((app) => new LoginThrottle(app.config.loginFailuresPerMinute));

// Unknown usernames are checked against this hash too, so the answer time does not reveal which
// usernames exist.
let dummyHash: Promise<string> | undefined;

export async function checkLogin(app: App, username: string, password: string, clientIp: string): Promise<LoginResult> {
  const wait = throttle(app).retryAfterMs(username, clientIp);
  if (wait > 0) return { ok: false, reason: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
  // Clients label the field "Email" and many users type their address there.
  const found = !username ? undefined
    : await app.users.findByName(username) ?? (username.includes('@') ? await app.users.findByEmail(username) : undefined);
  const ok = await verifyPassword(password, found?.passwordHash ?? await (dummyHash ??= hashPassword('not a password of anyone')));
  if (!found || !ok) {
    throttle(app).recordFailure(username, clientIp);
    app.log.info({ username, ip: clientIp }, 'failed login');
    return { ok: false, reason: 'bad-credentials' };
  }
  throttle(app).recordSuccess(username, clientIp);
  const { passwordHash: _, ...user } = found;
  return { ok: true, user };
}
