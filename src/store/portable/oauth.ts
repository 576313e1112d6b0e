// OAuth 2 clients and authorization codes (src/auth/oauth).
import type { Sql } from '../sql.ts';
import type { OAuthClientRepository, AuthorizationCodeRepository } from '../repositories.ts';
import type { OAuthClient, GrantType, AuthorizationCode, NewAuthorizationCode } from '../../model/auth.ts';

interface ClientRow {
  id: number;
  client_id: string;
  secret_hash: string;
  name: string;
  redirect_uris: string;
  grant_types: string;
  created_at: number;
}
const toClient = (r: ClientRow): OAuthClient => ({
  id: r.id,
  clientId: r.client_id,
  secretHash: r.secret_hash,
  name: r.name,
  redirectUris: JSON.parse(r.redirect_uris),
  grantTypes: JSON.parse(r.grant_types),
  createdAt: r.created_at,
});

export class SqlOAuthClientRepository implements OAuthClientRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(
    c: { clientId: string; secretHash: string; name: string; redirectUris: string[]; grantTypes: GrantType[] },
    now: number,
  ): Promise<OAuthClient> {
    const r = (await this.s
      .prepare(`INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, grant_types, created_at)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING *`)
      .get(
        c.clientId,
        c.secretHash,
        c.name,
        JSON.stringify(c.redirectUris),
        JSON.stringify(c.grantTypes),
        now,
      )) as ClientRow;
    return toClient(r);
  }
  async findByClientId(clientId: string): Promise<OAuthClient | undefined> {
    const r = (await this.s.prepare('SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId)) as
      | ClientRow
      | undefined;
    return r ? toClient(r) : undefined;
  }
  async list(): Promise<OAuthClient[]> {
    return ((await this.s.prepare('SELECT * FROM oauth_clients ORDER BY id').all()) as ClientRow[]).map(toClient);
  }
  async delete(clientId: string): Promise<boolean> {
    // Tokens and codes of the client go with it (ON DELETE CASCADE).
    return (await this.s.prepare('DELETE FROM oauth_clients WHERE client_id = ?').run(clientId)).changes > 0;
  }
}

interface CodeRow {
  id: number;
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string | null;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  grant_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
const toCode = (r: CodeRow): AuthorizationCode => ({
  id: r.id,
  clientId: r.client_id,
  userId: r.user_id,
  redirectUri: r.redirect_uri,
  scopes: r.scopes,
  codeChallenge: r.code_challenge,
  codeChallengeMethod: r.code_challenge_method,
  grantId: r.grant_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

export class SqlAuthorizationCodeRepository implements AuthorizationCodeRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async insert(c: NewAuthorizationCode, now: number): Promise<AuthorizationCode> {
    const r = (await this.s
      .prepare(`INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, code_challenge,
      code_challenge_method, grant_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`)
      .get(
        c.codeHash,
        c.clientId,
        c.userId,
        c.redirectUri,
        c.scopes,
        c.codeChallenge,
        c.codeChallengeMethod,
        c.grantId,
        now,
        c.expiresAt,
      )) as CodeRow;
    return toCode(r);
  }
  async findByHash(codeHash: string): Promise<AuthorizationCode | undefined> {
    const r = (await this.s.prepare('SELECT * FROM oauth_codes WHERE code_hash = ?').get(codeHash)) as
      | CodeRow
      | undefined;
    return r ? toCode(r) : undefined;
  }
  async markUsed(id: number, now: number): Promise<boolean> {
    return (
      (await this.s.prepare('UPDATE oauth_codes SET used_at = ? WHERE id = ? AND used_at IS NULL').run(now, id))
        .changes > 0
    );
  }
  async purge(before: number): Promise<number> {
    return (await this.s.prepare('DELETE FROM oauth_codes WHERE expires_at < ?').run(before)).changes;
  }
}
