// Issuing bearer tokens. A token is a prefix naming its kind plus 32 random bytes in base64url
// (43 characters: no '=', '&' or whitespace, safe in the ClientLogin "Auth=" line and in headers).
// Only its SHA-256 hash is stored, so a leaked database does not leak usable tokens.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { StoredToken, TokenKind } from '../model/auth.ts';
import { newSecret, hashToken } from './passwords.ts';
import { authStore, nowSeconds } from './repositories.ts';

/** Prefixes make a leaked token recognisable (secret scanners) and tell kinds apart in logs. */
export const TOKEN_PREFIX: Record<TokenKind | 'code', string> = {
  clientlogin: 'tdgl_',
  oauth_access: 'tdat_',
  oauth_refresh: 'tdrt_',
  code: 'tdac_',
};

export const ACCESS_TOKEN_TTL_SECONDS = 86400;
export const CODE_TTL_SECONDS = 600;

export interface IssuedToken {
  token: string;
  record: StoredToken;
}

/**
 * A client that logs in again (many Reader clients do at every launch or sync) supersedes its
 * earlier tokens: those of the same user and client label idle this long are deleted, so tokens do
 * not pile up. Another device with the same client that still syncs keeps its token; one idle
 * longer simply logs in again on its next 401, as Reader clients do.
 */
export const CLIENTLOGIN_SUPERSEDE_IDLE_SECONDS = 86400;

export async function issueClientLoginToken(
  app: App,
  userId: number,
  label: string | null = null,
): Promise<IssuedToken> {
  const token = newSecret(TOKEN_PREFIX.clientlogin);
  const now = nowSeconds();
  await authStore(app).tokens.deleteIdleClientLogin(userId, label, now - CLIENTLOGIN_SUPERSEDE_IDLE_SECONDS);
  const record = await authStore(app).tokens.insert(
    {
      tokenHash: hashToken(token),
      userId,
      kind: 'clientlogin',
      scopes: 'read write',
      expiresAt: now + app.config.tokenTtlDays * 86400,
      label,
    },
    now,
  );
  await purgeOccasionally(app, now);
  return { token, record };
}

export async function issueOAuthToken(
  app: App,
  kind: 'oauth_access' | 'oauth_refresh',
  g: { userId: number; scopes: string; clientId: string; grantId: string },
): Promise<IssuedToken> {
  const token = newSecret(TOKEN_PREFIX[kind]);
  const now = nowSeconds();
  const ttl = kind === 'oauth_access' ? ACCESS_TOKEN_TTL_SECONDS : app.config.oauthRefreshTtlDays * 86400;
  const record = await authStore(app).tokens.insert(
    {
      tokenHash: hashToken(token),
      userId: g.userId,
      kind,
      scopes: g.scopes,
      clientId: g.clientId,
      grantId: g.grantId,
      expiresAt: now + ttl,
    },
    now,
  );
  await purgeOccasionally(app, now);
  return { token, record };
}

/** A stored token that is neither expired nor revoked, looked up by the token's hash. */
export async function findLiveToken(app: App, token: string, now = nowSeconds()): Promise<StoredToken | undefined> {
  const t = await authStore(app).tokens.findByHash(hashToken(token));
  if (!t || t.revokedAt !== null || t.expiresAt <= now) return undefined;
  return t;
}

// Expired and revoked rows are kept a while (so `token list` can show them and a replayed refresh
// token is recognised as stolen), then deleted; at most once an hour, piggybacked on issuing.
const KEEP_DEAD_SECONDS = 30 * 86400;
const lastPurge = perApp(() => ({ at: 0 }));
async function purgeOccasionally(app: App, now: number): Promise<void> {
  const last = lastPurge(app);
  if (now - last.at < 3600) return;
  last.at = now;
  const s = authStore(app);
  await s.tokens.purge(now - KEEP_DEAD_SECONDS);
  await s.codes.purge(now - KEEP_DEAD_SECONDS);
}

/** Revokes a token; revoking an OAuth refresh token ends its whole grant (its access tokens too). Returns how many. */
export async function revokeStoredToken(app: App, t: StoredToken): Promise<number> {
  const s = authStore(app);
  const now = nowSeconds();
  if (t.kind === 'oauth_refresh' && t.grantId) return s.tokens.revokeGrant(t.grantId, now);
  return (await s.tokens.revoke(t.id, now)) ? 1 : 0;
}
