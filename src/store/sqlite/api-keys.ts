import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { ApiKeyRepository } from '../repositories.ts';
import { BETA_FEATURES, type ApiKey, type BetaFeature } from '../../model/chat.ts';

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

export class SqliteApiKeyRepository implements ApiKeyRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async create(k: { id: string; userId: number; name: string; keyHash: string; tier: number }): Promise<ApiKey> {
    const r = this.s
      .get('INSERT INTO api_keys (id, user_id, name, key_hash, tier, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *')
      .get(k.id, k.userId, k.name, k.keyHash, k.tier, Math.floor(Date.now() / 1000)) as unknown as Row;
    return toKey(r);
  }
  async findById(id: string) {
    const r = this.s.get('SELECT * FROM api_keys WHERE id = ?').get(id) as Row | undefined;
    return r ? { ...toKey(r), keyHash: r.key_hash } : undefined;
  }
  async list(userId?: number): Promise<ApiKey[]> {
    const rows =
      userId === undefined
        ? this.s.get('SELECT * FROM api_keys ORDER BY created_at, id').all()
        : this.s.get('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, id').all(userId);
    return (rows as unknown as Row[]).map(toKey);
  }
  async rename(id: string, name: string): Promise<boolean> {
    return Number(this.s.get('UPDATE api_keys SET name = ? WHERE id = ?').run(name, id).changes) > 0;
  }
  async revoke(id: string): Promise<boolean> {
    return (
      Number(
        this.s
          .get('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
          .run(Math.floor(Date.now() / 1000), id).changes,
      ) > 0
    );
  }
  async setDisabled(id: string, disabled: boolean): Promise<boolean> {
    return Number(this.s.get('UPDATE api_keys SET disabled = ? WHERE id = ?').run(disabled ? 1 : 0, id).changes) > 0;
  }
  async setTier(id: string, tier: number): Promise<boolean> {
    return Number(this.s.get('UPDATE api_keys SET tier = ? WHERE id = ?').run(tier, id).changes) > 0;
  }
  async setFeatures(id: string, features: BetaFeature[]): Promise<boolean> {
    return (
      Number(
        this.s.get('UPDATE api_keys SET features = ? WHERE id = ?').run([...new Set(features)].join(','), id).changes,
      ) > 0
    );
  }
}
