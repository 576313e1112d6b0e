// Access and refresh tokens (Reader API ClientLogin, OAuth) and the server's own secrets (src/auth).
import type { Sql } from '../sql.ts';
import type { TokenRepository, AuthSecretRepository } from '../repositories.ts';
import type { StoredToken, NewToken, TokenKind } from '../../model/auth.ts';
import type { AuthRowCache } from './auth-row-cache.ts';

interface Row {
  id: number;
  token_hash: string;
  user_id: number;
  kind: TokenKind;
  scopes: string;
  client_id: string | null;
  grant_id: string | null;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  label: string | null;
}

const toToken = (r: Row): StoredToken => ({
  id: r.id,
  userId: r.user_id,
  kind: r.kind,
  scopes: r.scopes,
  clientId: r.client_id,
  grantId: r.grant_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  label: r.label,
});

export class SqlTokenRepository implements TokenRepository {
  private readonly s: Sql;
  /** Rows kept for authentication (./auth-row-cache.ts); null: every lookup reads. */
  private readonly cache: AuthRowCache<StoredToken> | null;
  constructor(sql: Sql, cache: AuthRowCache<StoredToken> | null = null) {
    this.s = sql;
    this.cache = cache;
  }

  /** Runs a write that may revoke or delete tokens, forgetting every kept row once it is sent. */
  private forgetting(write: Promise<{ changes: number }>): Promise<number> {
    const changes = write.then((r) => r.changes);
    return this.cache ? this.cache.forgetting(changes) : changes;
  }

  async insert(t: NewToken, now: number): Promise<StoredToken> {
    const r = (await this.s
      .prepare(`INSERT INTO auth_tokens (token_hash, user_id, kind, scopes, client_id, grant_id, created_at, expires_at, label)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`)
      .get(
        t.tokenHash,
        t.userId,
        t.kind,
        t.scopes,
        t.clientId ?? null,
        t.grantId ?? null,
        now,
        t.expiresAt,
        t.label ?? null,
      )) as Row;
    return toToken(r);
  }
  async findByHash(tokenHash: string): Promise<StoredToken | undefined> {
    // Inside a transaction (refresh-token rotation, replay checks) always the row as it is now.
    const cache = this.cache && !this.s.inTransaction ? this.cache : null;
    const cached = cache?.get(tokenHash);
    if (cached) return cached;
    const readAt = cache?.mark() ?? 0;
    const r = (await this.s.prepare('SELECT * FROM auth_tokens WHERE token_hash = ?').get(tokenHash)) as
      | Row
      | undefined;
    if (!r) return undefined;
    const token = toToken(r);
    cache?.set(tokenHash, token, readAt);
    return token;
  }
  async findById(id: number): Promise<StoredToken | undefined> {
    const r = (await this.s.prepare('SELECT * FROM auth_tokens WHERE id = ?').get(id)) as Row | undefined;
    return r ? toToken(r) : undefined;
  }
  async markUsed(id: number, now: number): Promise<void> {
    await this.s.prepare('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?').run(now, id);
    this.cache?.update((t) => (t.id === id ? { ...t, lastUsedAt: now } : t));
  }
  async revoke(id: number, now: number): Promise<boolean> {
    return (
      (await this.forgetting(
        this.s.prepare('UPDATE auth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id),
      )) > 0
    );
  }
  revokeAllForUser(userId: number, now: number): Promise<number> {
    return this.forgetting(
      this.s.prepare('UPDATE auth_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(now, userId),
    );
  }
  revokeGrant(grantId: string, now: number): Promise<number> {
    return this.forgetting(
      this.s
        .prepare('UPDATE auth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL')
        .run(now, grantId),
    );
  }
  async listForUser(userId: number): Promise<StoredToken[]> {
    return ((await this.s.prepare('SELECT * FROM auth_tokens WHERE user_id = ? ORDER BY id').all(userId)) as Row[]).map(
      toToken,
    );
  }
  deleteIdleClientLogin(userId: number, label: string | null, idleSince: number): Promise<number> {
    return this.forgetting(
      this.s
        .prepare(`DELETE FROM auth_tokens WHERE user_id = ? AND kind = 'clientlogin' AND label IS NOT DISTINCT FROM ?
          AND coalesce(last_used_at, created_at) < ?`)
        .run(userId, label, idleSince),
    );
  }
  purge(before: number): Promise<number> {
    return this.forgetting(
      this.s.prepare('DELETE FROM auth_tokens WHERE expires_at < ?1 OR revoked_at < ?1').run(before),
    );
  }
}

export class SqlAuthSecretRepository implements AuthSecretRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async getOrCreate(name: string, create: () => string, now: number): Promise<string> {
    // Insert-if-absent then read: processes racing (server and CLI) agree on one value.
    await this.s
      .prepare('INSERT OR IGNORE INTO auth_secrets (name, value, created_at) VALUES (?, ?, ?)')
      .run(name, create(), now);
    return ((await this.s.prepare('SELECT value FROM auth_secrets WHERE name = ?').get(name)) as { value: string })
      .value;
  }
}
