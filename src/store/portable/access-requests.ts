// Requests for a higher chat API tier, and the operator's decisions (src/chat-api/access-form.ts; keys in src/auth/api-keys.ts).
import type { Sql } from '../sql.ts';
import type { AccessRequestRepository } from '../repositories.ts';
import type { AccessRequest, AccessRequestStatus } from '../../model/chat.ts';

interface Row {
  id: number;
  key_id: string;
  user_id: number;
  username: string;
  tier: number;
  requested_tier: number;
  reason: string;
  status: AccessRequestStatus;
  granted_tier: number | null;
  note: string | null;
  created_at: number;
  decided_at: number | null;
}
const toRequest = (r: Row): AccessRequest => ({
  id: r.id,
  keyId: r.key_id,
  userId: r.user_id,
  username: r.username,
  currentTier: r.tier,
  requestedTier: r.requested_tier,
  reason: r.reason,
  status: r.status,
  grantedTier: r.granted_tier,
  note: r.note,
  createdAt: r.created_at,
  decidedAt: r.decided_at,
});
const SELECT = `SELECT a.*, k.user_id, k.tier, u.username FROM chat_access_requests a
  JOIN api_keys k ON k.id = a.key_id JOIN users u ON u.id = k.user_id`;

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class SqlAccessRequestRepository implements AccessRequestRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(r: { keyId: string; requestedTier: number; reason: string }): Promise<AccessRequest> {
    const { id } = (await this.s
      .prepare(
        'INSERT INTO chat_access_requests (key_id, requested_tier, reason, created_at) VALUES (?, ?, ?, ?) RETURNING id',
      )
      .get(r.keyId, r.requestedTier, r.reason, nowSeconds())) as { id: number };
    return (await this.find(id))!;
  }
  async find(id: number) {
    const r = (await this.s.prepare(`${SELECT} WHERE a.id = ?`).get(id)) as Row | undefined;
    return r ? toRequest(r) : undefined;
  }
  async list(status?: AccessRequestStatus): Promise<AccessRequest[]> {
    const rows = status
      ? await this.s.prepare(`${SELECT} WHERE a.status = ? ORDER BY a.id`).all(status)
      : await this.s.prepare(`${SELECT} ORDER BY a.id`).all();
    return (rows as Row[]).map(toRequest);
  }
  async decide(
    id: number,
    status: 'approved' | 'denied',
    grantedTier: number | null,
    note: string | null,
  ): Promise<boolean> {
    return (
      (
        await this.s
          .prepare(
            `UPDATE chat_access_requests SET status = ?, granted_tier = ?, note = ?, decided_at = ? WHERE id = ? AND status = 'pending'`,
          )
          .run(status, grantedTier, note, nowSeconds(), id)
      ).changes > 0
    );
  }
}
