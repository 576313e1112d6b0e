// The chat API's keys (src/auth/api-keys.ts). The rows read to authenticate are reused briefly, like
// Reader API tokens (./auth-row-cache.ts): every chat answer authenticates, and on PostgreSQL that
// lookup was a round trip of its own (on SQLite a statement, now one pragma per event-loop turn). An operator's change of a key's tier or state from the CLI
// must still apply to the running server at once (the access-request flow promises it): the
// change notifies every process at its commit (migration 135), this process's own writes forget
// at once.
import type { Sql } from '../sql.ts';
import type { ApiKeyRepository } from '../repositories.ts';
import { BETA_FEATURES, type ApiKey, type BetaFeature, type StoredApiKey } from '../../model/chat.ts';
import type { AuthRowCache } from './auth-row-cache.ts';

interface Row {
  id: string;
  user_id: number;
  name: string;
  key_hash: string;
  tier: number;
  features: string;
  disabled: number;
  created_at: number;
  revoked_at: number | null;
}

const toKey = (r: Row): ApiKey => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  tier: r.tier,
  features: r.features.split(',').filter((f): f is BetaFeature => (BETA_FEATURES as readonly string[]).includes(f)),
  disabled: r.disabled === 1,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class SqlApiKeyRepository implements ApiKeyRepository {
  private readonly s: Sql;
  /** Rows kept for authentication (./auth-row-cache.ts); null: every lookup reads. */
  private readonly cache: AuthRowCache<StoredApiKey> | null;
  constructor(sql: Sql, cache: AuthRowCache<StoredApiKey> | null = null) {
    this.s = sql;
    this.cache = cache;
  }

  async create(k: { id: string; userId: number; name: string; keyHash: string; tier: number }): Promise<ApiKey> {
    const r = (await this.s
      .prepare(
        'INSERT INTO api_keys (id, user_id, name, key_hash, tier, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
      )
      .get(k.id, k.userId, k.name, k.keyHash, k.tier, nowSeconds())) as Row;
    return toKey(r);
  }
  async findById(id: string): Promise<StoredApiKey | undefined> {
    // Inside a transaction always the row as it is now.
    const cache = this.cache && !this.s.inTransaction ? this.cache : null;
    const cached = cache?.get(id);
    if (cached) return cached;
    const readAt = cache?.mark() ?? 0;
    const r = (await this.s.prepare('SELECT * FROM api_keys WHERE id = ?').get(id)) as Row | undefined;
    if (!r) return undefined;
    const key = { ...toKey(r), keyHash: r.key_hash };
    cache?.set(id, key, readAt);
    return key;
  }
  async list(userId?: number): Promise<ApiKey[]> {
    const rows =
      userId === undefined
        ? await this.s.prepare('SELECT * FROM api_keys ORDER BY created_at, id').all()
        : await this.s.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, id').all(userId);
    return (rows as Row[]).map(toKey);
  }
  /** Runs an update of a key, forgetting every kept row once it is sent (each one changes what a key may do, or its name). */
  private async changed(sql: string, ...params: unknown[]): Promise<boolean> {
    const write = this.s.prepare(sql).run(...params);
    return (await (this.cache ? this.cache.forgetting(write) : write)).changes > 0;
  }
  rename(id: string, name: string) {
    return this.changed('UPDATE api_keys SET name = ? WHERE id = ?', name, id);
  }
  revoke(id: string) {
    return this.changed('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', nowSeconds(), id);
  }
  setDisabled(id: string, disabled: boolean) {
    return this.changed('UPDATE api_keys SET disabled = ? WHERE id = ?', disabled ? 1 : 0, id);
  }
  setTier(id: string, tier: number) {
    return this.changed('UPDATE api_keys SET tier = ? WHERE id = ?', tier, id);
  }
  setFeatures(id: string, features: BetaFeature[]) {
    return this.changed('UPDATE api_keys SET features = ? WHERE id = ?', [...new Set(features)].join(','), id);
  }
}
