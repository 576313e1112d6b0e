// Browser sessions of the web app. The cookie holds 32 random bytes; the database keeps only their
// SHA-256 (as for bearer tokens), so a copy of the database opens no session. Sessions slide: each
// use (recorded at most once a minute) pushes the expiry `webSessionDays` ahead.
//
// CSRF: every state-changing request made with the session cookie must carry the header
// X-CSRF-Token = HMAC(server key, "web-csrf", cookie value): a value only our own page can read (it
// comes in the JSON of GET /api/v1/session, which another origin cannot read), so a forged
// cross-site form or fetch cannot send it. The Origin check in the plugin is a second wall.
import type { App } from '../runtime/app.ts';
import type { WebSession } from '../model/web.ts';
import { hashToken, newSecret } from '../auth/passwords.ts';
import { nowSeconds } from '../auth/repositories.ts';
import { safeEqual, sign } from '../secrets/keys.ts';
import { webStore } from './repositories.ts';

export const SESSION_COOKIE = 'tidings_session';
const TOUCH_EVERY_SECONDS = 60;
const PURGE_EVERY_SECONDS = 3600;

export interface OpenedSession {
  token: string;
  session: WebSession;
}

const lastPurge = new WeakMap<App, number>();

export async function openSession(app: App, userId: number, userAgent: string | null): Promise<OpenedSession> {
  const token = newSecret('tdws_');
  const now = nowSeconds();
  const session = await webStore(app).sessions.create(
    {
      tokenHash: hashToken(token),
      userId,
      expiresAt: now + app.config.webSessionDays * 86400,
      userAgent: userAgent?.slice(0, 300) ?? null,
    },
    now,
  );
  if (now - (lastPurge.get(app) ?? 0) >= PURGE_EVERY_SECONDS) {
    lastPurge.set(app, now);
    await webStore(app).sessions.purgeExpired(now);
  }
  return { token, session };
}

/** The live session of a cookie value, its use recorded; undefined when unknown or expired. */
export async function findSession(app: App, token: string | undefined): Promise<WebSession | undefined> {
  if (!token || !/^tdws_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const sessions = webStore(app).sessions;
  const s = await sessions.findByHash(hashToken(token));
  const now = nowSeconds();
  if (!s || s.expiresAt <= now) return undefined;
  if (now - s.lastSeenAt >= TOUCH_EVERY_SECONDS) {
    const expiresAt = now + app.config.webSessionDays * 86400;
    await sessions.touch(s.id, now, expiresAt);
    s.lastSeenAt = now;
    s.expiresAt = expiresAt;
  }
  return s;
}

export async function endSession(app: App, token: string | undefined): Promise<void> {
  if (!token) return;
  const s = await webStore(app).sessions.findByHash(hashToken(token));
  if (s) await webStore(app).sessions.delete(s.id);
}

export async function csrfTokenFor(app: App, sessionToken: string): Promise<string> {
  return await sign(app, 'web-csrf', sessionToken);
}

export async function checkCsrfToken(app: App, sessionToken: string, presented: string | undefined): Promise<boolean> {
  return typeof presented === 'string' && safeEqual(presented, await csrfTokenFor(app, sessionToken));
}
