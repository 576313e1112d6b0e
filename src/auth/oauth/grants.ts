// The token endpoint's grants (RFC 6749 §4.1.3, §6; RFC 7636 §4.6), free of HTTP. Every failure is
// an OAuthError carrying its RFC 6749 §5.2 code.
import type { App } from '../../runtime/app.ts';
import type { OAuthClient } from '../../model/auth.ts';
import { hashToken } from '../passwords.ts';
import { authStore, nowSeconds } from '../repositories.ts';
import { issueOAuthToken, ACCESS_TOKEN_TTL_SECONDS } from '../tokens.ts';
import { parseScopes, formatScopes, isSubset } from '../scopes.ts';
import { safeEqual } from '../../secrets/keys.ts';
import { OAuthError } from './errors.ts';
import { s256, PKCE_VALUE } from './authorize.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export async function exchangeCode(
  app: App,
  client: OAuthClient,
  p: { code?: string; redirect_uri?: string; code_verifier?: string },
): Promise<TokenResponse> {
  if (!p.code) throw new OAuthError('invalid_request', 'code is missing');
  const s = authStore(app);
  const now = nowSeconds();
  const code = await s.codes.findByHash(hashToken(p.code));
  if (!code) throw new OAuthError('invalid_grant', 'the authorization code is unknown');
  if (code.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
  if (code.usedAt !== null) {
    // A replayed code may be stolen: revoke what the first exchange issued (RFC 6749 §4.1.2).
    const revoked = await s.tokens.revokeGrant(code.grantId, now);
    app.log.warn(
      { clientId: client.clientId, userId: code.userId, revoked },
      'authorization code reused; its tokens are revoked',
    );
    throw new OAuthError('invalid_grant', 'the authorization code was already used');
  }
  if (code.expiresAt <= now) throw new OAuthError('invalid_grant', 'the authorization code expired; authorize again');
  if (code.redirectUri !== null) {
    if (p.redirect_uri === undefined)
      throw new OAuthError(
        'invalid_request',
        'redirect_uri is missing; send the one used in the authorization request',
      );
    if (p.redirect_uri !== code.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the one used in the authorization request');
  } else if (p.redirect_uri !== undefined && !client.redirectUris.includes(p.redirect_uri)) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one used in the authorization request');
  }
  if (code.codeChallenge !== null) {
    if (!p.code_verifier)
      throw new OAuthError(
        'invalid_grant',
        'code_verifier is missing: the authorization request sent a code_challenge',
      );
    if (!PKCE_VALUE.test(p.code_verifier) || !safeEqual(s256(p.code_verifier), code.codeChallenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
  } else if (p.code_verifier !== undefined) {
    // Refuse rather than ignore: a verifier without a challenge hints at a PKCE downgrade.
    throw new OAuthError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
  }
  return app.store.transaction(async () => {
    if (!(await s.codes.markUsed(code.id, now)))
      throw new OAuthError('invalid_grant', 'the authorization code was already used');
    return issuePair(app, client, {
      userId: code.userId,
      grantId: code.grantId,
      grantScopes: code.scopes,
      accessScopes: code.scopes,
    });
  });
}

export async function refresh(
  app: App,
  client: OAuthClient,
  p: { refresh_token?: string; scope?: string },
): Promise<TokenResponse> {
  if (!p.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is missing');
  const s = authStore(app);
  const now = nowSeconds();
  const t = await s.tokens.findByHash(hashToken(p.refresh_token));
  if (!t || t.kind !== 'oauth_refresh') throw new OAuthError('invalid_grant', 'the refresh token is unknown');
  if (t.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
  if (t.revokedAt !== null) {
    // Rotated tokens are revoked; seeing one again means two parties hold it: end the whole grant
    // (OAuth 2.0 Security BCP, refresh token rotation).
    if (t.grantId) await s.tokens.revokeGrant(t.grantId, now);
    app.log.warn(
      { clientId: client.clientId, userId: t.userId },
      'revoked refresh token presented; the grant is revoked',
    );
    throw new OAuthError('invalid_grant', 'the refresh token was revoked or already used');
  }
  if (t.expiresAt <= now) throw new OAuthError('invalid_grant', 'the refresh token expired; authorize again');
  const granted = parseScopes(t.scopes)!;
  let accessScopes = t.scopes;
  if (p.scope !== undefined && p.scope.trim() !== '') {
    const asked = parseScopes(p.scope);
    if (!asked) throw new OAuthError('invalid_scope', `scope "${p.scope}" is not valid; use "read" or "read write"`);
    if (!isSubset(asked, granted))
      throw new OAuthError('invalid_scope', `scope "${p.scope}" exceeds the granted scope "${t.scopes}"`);
    accessScopes = formatScopes(asked);
  }
  return app.store.transaction(async () => {
    if (!(await s.tokens.revoke(t.id, now)))
      throw new OAuthError('invalid_grant', 'the refresh token was revoked or already used');
    // The new refresh token keeps the original grant's scope (RFC 6749 §6), whatever this access token narrowed to.
    return issuePair(app, client, { userId: t.userId, grantId: t.grantId!, grantScopes: t.scopes, accessScopes });
  });
}

async function issuePair(
  app: App,
  client: OAuthClient,
  g: { userId: number; grantId: string; grantScopes: string; accessScopes: string },
): Promise<TokenResponse> {
  const base = { userId: g.userId, clientId: client.clientId, grantId: g.grantId };
  const access = await issueOAuthToken(app, 'oauth_access', { ...base, scopes: g.accessScopes });
  const out: TokenResponse = {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: g.accessScopes,
  };
  if (client.grantTypes.includes('refresh_token')) {
    out.refresh_token = (await issueOAuthToken(app, 'oauth_refresh', { ...base, scopes: g.grantScopes })).token;
  }
  return out;
}

/**
 * RFC 7009 revocation: revoking a refresh token ends its whole grant; revoking an access token
 * ends only that token. Unknown tokens and other clients' tokens are ignored (the answer is the same).
 */
export async function revokeToken(app: App, client: OAuthClient, token: string): Promise<void> {
  const s = authStore(app);
  const t = await s.tokens.findByHash(hashToken(token));
  if (!t || t.clientId !== client.clientId) return;
  const now = nowSeconds();
  if (t.kind === 'oauth_refresh' && t.grantId) await s.tokens.revokeGrant(t.grantId, now);
  else await s.tokens.revoke(t.id, now);
}
