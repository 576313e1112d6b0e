// Storage interfaces the domain code depends on. The SQLite implementations live in ./sqlite/;
// a PostgreSQL backend implements the same interfaces without touching the domain.
// Each domain adds its repository interface here (one small interface per entity).
import type { User } from '../model/user.ts';
import type { StoredToken, NewToken, OAuthClient, GrantType, AuthorizationCode, NewAuthorizationCode } from '../model/auth.ts';

export interface UserRepository {
  create(username: string, passwordHash: string, email?: string | null): User;
  findByName(username: string): (User & { passwordHash: string }) | undefined;
  findById(id: number): User | undefined;
  list(): User[];
  setPasswordHash(id: number, passwordHash: string): void;
  delete(id: number): boolean;
}

// Authentication (src/auth): bearer tokens, OAuth clients and authorization codes.

export interface TokenRepository {
  insert(token: NewToken, now: number): StoredToken;
  findByHash(tokenHash: string): StoredToken | undefined;
  findById(id: number): StoredToken | undefined;
  /** Records use; callers throttle it (once a minute per token) to avoid a write per request. */
  markUsed(id: number, now: number): void;
  /** Returns false when the token does not exist or was already revoked. */
  revoke(id: number, now: number): boolean;
  revokeAllForUser(userId: number, now: number): number;
  /** Revokes every token descending from one authorization code (code reuse, refresh reuse). */
  revokeGrant(grantId: string, now: number): number;
  listForUser(userId: number): StoredToken[];
  /** Deletes tokens that expired or were revoked before `before`. */
  purge(before: number): number;
}

export interface OAuthClientRepository {
  create(c: { clientId: string; secretHash: string; name: string; redirectUris: string[]; grantTypes: GrantType[] }, now: number): OAuthClient;
  findByClientId(clientId: string): OAuthClient | undefined;
  list(): OAuthClient[];
  delete(clientId: string): boolean;
}

export interface AuthorizationCodeRepository {
  insert(code: NewAuthorizationCode, now: number): AuthorizationCode;
  findByHash(codeHash: string): AuthorizationCode | undefined;
  /** Marks the code used; false when it was already used (a concurrent or replayed exchange). */
  markUsed(id: number, now: number): boolean;
  purge(before: number): number;
}

/** Named server-side secrets (HMAC keys), created once and kept. */
export interface AuthSecretRepository {
  getOrCreate(name: string, create: () => string, now: number): string;
}
