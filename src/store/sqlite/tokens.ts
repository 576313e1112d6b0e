import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { TokenRepository, AuthSecretRepository } from '../repositories.ts';
import type { StoredToken, NewToken, TokenKind } from '../../model/auth.ts';

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

export class SqliteTokenRepository implements TokenRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async insert(t: NewToken, now: number): Promise<StoredToken> {
    const r = this.s
      .get(`INSERT INTO auth_tokens (token_hash, user_id, kind, scopes, client_id, grant_id, created_at, expires_at, label)
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
      ) as unknown as Row;
    return toToken(r);
  }
  async findByHash(tokenHash: string): Promise<StoredToken | undefined> {
    const r = this.s.get('SELECT * FROM auth_tokens WHERE token_hash = ?').get(tokenHash) as Row | undefined;
    return r ? toToken(r) : undefined;
  }
  async findById(id: number): Promise<StoredToken | undefined> {
    const r = this.s.get('SELECT * FROM auth_tokens WHERE id = ?').get(id) as Row | undefined;
    return r ? toToken(r) : undefined;
  }
  async markUsed(id: number, now: number): Promise<void> {
    this.s.get('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?').run(now, id);
  }
  async revoke(id: number, now: number): Promise<boolean> {
    return (
      Number(
        this.s.get('UPDATE auth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id).changes,
      ) > 0
    );
  }
  async revokeAllForUser(userId: number, now: number): Promise<number> {
    return Number(
      this.s.get('UPDATE auth_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(now, userId)
        .changes,
    );
  }
  async revokeGrant(grantId: string, now: number): Promise<number> {
    return Number(
      this.s.get('UPDATE auth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(now, grantId)
        .changes,
    );
  }
  async listForUser(userId: number): Promise<StoredToken[]> {
    return (this.s.get('SELECT * FROM auth_tokens WHERE user_id = ? ORDER BY id').all(userId) as unknown as Row[]).map(
      toToken,
    );
  }
  async deleteIdleClientLogin(userId: number, label: string | null, idleSince: number): Promise<number> {
    return Number(
      this.s
        .get(`DELETE FROM auth_tokens WHERE user_id = ? AND kind = 'clientlogin' AND label IS ?
                                AND coalesce(last_used_at, created_at) < ?`)
        .run(userId, label, idleSince).changes,
    );
  }
  async purge(before: number): Promise<number> {
    return Number(
      this.s.get('DELETE FROM auth_tokens WHERE expires_at < ? OR revoked_at < ?').run(before, before).changes,
    );
  }
}

export class SqliteAuthSecretRepository implements AuthSecretRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async getOrCreate(name: string, create: () => string, now: number): Promise<string> {
    // INSERT OR IGNORE then SELECT: two processes (server and CLI) racing agree on one value.
    this.s
      .get('INSERT OR IGNORE INTO auth_secrets (name, value, created_at) VALUES (?, ?, ?)')
      .run(name, create(), now);
    return (this.s.get('SELECT value FROM auth_secrets WHERE name = ?').get(name) as { value: string }).value;
  }
}
