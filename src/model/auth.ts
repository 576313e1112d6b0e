// Plain types of the authentication domain (src/auth) and its storage (src/store/portable/tokens.ts,
// oauth.ts). Times are Unix seconds.

export type Scope = 'read' | 'write';
export type TokenKind = 'clientlogin' | 'oauth_access' | 'oauth_refresh';
export type GrantType = 'authorization_code' | 'refresh_token';

export interface StoredToken {
  id: number;
  userId: number;
  kind: TokenKind;
  /** Space-separated scopes: "read" or "read write". */
  scopes: string;
  clientId: string | null;
  grantId: string | null;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  label: string | null;
}

export interface NewToken {
  tokenHash: string;
  userId: number;
  kind: TokenKind;
  scopes: string;
  clientId?: string | null;
  grantId?: string | null;
  expiresAt: number;
  label?: string | null;
}

export interface OAuthClient {
  id: number;
  clientId: string;
  secretHash: string;
  name: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  createdAt: number;
}

export interface AuthorizationCode {
  id: number;
  clientId: string;
  userId: number;
  /** As sent in the authorization request; null when the request omitted it. */
  redirectUri: string | null;
  scopes: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  grantId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** A code as issued: what is stored is its hash; id, creation and use times come from the store. */
export type NewAuthorizationCode = Omit<AuthorizationCode, 'id' | 'createdAt' | 'usedAt'> & { codeHash: string };
