// CSRF protection of the consent form without server-side state: the GET sets a random cookie, and
// the form carries an HMAC over that cookie, the issue time and every authorization parameter. A
// POST passes only with the same browser's cookie, within FORM_TTL, with the parameters unchanged.
// Another site can neither read the cookie nor forge the MAC, so it cannot post a consent (or a
// login) on the user's behalf; nor can the hidden fields be edited to retarget the grant.
import { randomBytes } from 'node:crypto';
import type { App } from '../../runtime/app.ts';
import { sign, safeEqual } from '../../secrets/keys.ts';
import { AUTHORIZATION_PARAMS, type AuthorizationParams } from './authorize.ts';

export const CSRF_COOKIE = 'tidings_oauth_csrf';
const FORM_TTL_SECONDS = 3600;

export function newBrowserSecret(): string {
  return randomBytes(24).toString('base64url');
}

function mac(app: App, browserSecret: string, issuedAt: number, params: AuthorizationParams): Promise<string> {
  return sign(
    app,
    'oauth-consent-form',
    browserSecret,
    String(issuedAt),
    JSON.stringify(AUTHORIZATION_PARAMS.map((k) => params[k] ?? null)),
  );
}

export async function consentFormToken(
  app: App,
  browserSecret: string,
  params: AuthorizationParams,
  now = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `${now}.${await mac(app, browserSecret, now, params)}`;
}

export type CsrfCheck = 'ok' | 'missing' | 'invalid' | 'expired';

export async function checkConsentFormToken(
  app: App,
  browserSecret: string | undefined,
  token: string | undefined,
  params: AuthorizationParams,
  now = Math.floor(Date.now() / 1000),
): Promise<CsrfCheck> {
  if (!token || !browserSecret) return 'missing';
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return 'invalid';
  const issuedAt = Number(m[1]);
  if (!safeEqual(m[2], await mac(app, browserSecret, issuedAt, params))) return 'invalid';
  if (issuedAt > now + 60 || now - issuedAt > FORM_TTL_SECONDS) return 'expired';
  return 'ok';
}

/** Reads one cookie from a Cookie header (no library needed for a single name/value pair). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
