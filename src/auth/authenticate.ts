// Request authentication for the APIs, free of HTTP: callers pass header and parameter values as
// strings. Used by the Google Reader API (src/reader-api) on every request.
//
//   const auth = authenticate(app, req.headers.authorization);
//   if (!auth) -> 401 with X-Reader-Google-Bad-Token: true
//   if (isWrite && !hasScope(auth, 'write')) -> 403 insufficient_scope
//   if (isWrite && !checkWriteToken(app, auth, params.T)) -> 401
import type { App } from '../runtime/app.ts';
import type { Scope } from '../model/auth.ts';
import { findLiveToken } from './tokens.ts';
import { authStore, nowSeconds } from './repositories.ts';
import { sign, safeEqual } from '../secrets/keys.ts';

export interface Authenticated {
  userId: number;
  scopes: Set<Scope>;
  via: 'clientlogin' | 'oauth';
  /** Id of the token row (for logs and revocation); never the token itself. */
  tokenId: number;
}

// "GoogleLogin auth=<token>" (ClientLogin) and "Bearer <token>" (OAuth), schemes case-insensitive,
// extra spaces tolerated. Either scheme may carry either kind of token: clients are inconsistent
// and the token itself says what it is.
const GOOGLE_LOGIN = /^\s*googlelogin\s+auth\s*=\s*(\S+)\s*$/i;
const BEARER = /^\s*bearer\s+(\S+)\s*$/i;
// Clients that lost their token send these literally (JavaScript string conversion).
const NO_TOKEN = new Set(['', 'undefined', 'null']);

/** Record last use at most once a minute per token: a write per API request would cost more than the read. */
const LAST_USED_RESOLUTION_SECONDS = 60;

/** Extracts the token from an Authorization header value; undefined when there is none. */
export function tokenFromAuthorization(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const m = GOOGLE_LOGIN.exec(authorization) ?? BEARER.exec(authorization);
  if (!m || NO_TOKEN.has(m[1])) return undefined;
  return m[1];
}

/**
 * The user and scopes behind an Authorization header, or null for a missing, malformed, unknown,
 * expired or revoked token. OAuth refresh tokens never authenticate API requests.
 */
export async function authenticate(app: App, authorization: string | undefined): Promise<Authenticated | null> {
  const token = tokenFromAuthorization(authorization);
  if (!token) return null;
  const now = nowSeconds();
  const t = await findLiveToken(app, token, now);
  if (!t || t.kind === 'oauth_refresh') return null;
  if (t.lastUsedAt === null || now - t.lastUsedAt >= LAST_USED_RESOLUTION_SECONDS)
    await authStore(app).tokens.markUsed(t.id, now);
  const scopes = new Set<Scope>();
  for (const s of t.scopes.split(' ')) if (s === 'read' || s === 'write') scopes.add(s);
  return { userId: t.userId, scopes, via: t.kind === 'clientlogin' ? 'clientlogin' : 'oauth', tokenId: t.id };
}

export function hasScope(auth: Authenticated, scope: Scope): boolean {
  return auth.scopes.has(scope);
}

/**
 * The value of GET /reader/api/0/token: stable per user (an HMAC of the user id under the server
 * key), so every session and every client of one user sees the same value and nothing is stored.
 * 43 base64url characters: no whitespace. It guards against cross-site form posts only, which the
 * header-authenticated API does not suffer from, so it need not rotate with sessions.
 */
export function writeToken(app: App, userId: number): Promise<string> {
  return sign(app, 'reader-write-token', String(userId));
}

/**
 * The optional T parameter of write calls. Absent or empty (after trimming): accepted, since many
 * clients never send it. Present and not this user's write token: rejected (answer 401).
 */
export async function checkWriteToken(app: App, auth: Authenticated, t: string | undefined): Promise<boolean> {
  const v = t?.trim();
  if (!v) return true;
  return safeEqual(v, await writeToken(app, auth.userId));
}
