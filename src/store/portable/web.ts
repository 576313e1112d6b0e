// Repositories of the web app (src/web): sessions, settings, conversations.
import type { Sql } from '../sql.ts';
import type { WebSessionRepository, WebAccountRepository, ConversationRepository } from '../repositories.ts';
import type { WebSession, Conversation, ConversationMessage, NewConversationMessage } from '../../model/web.ts';
import {
  type SessionRow,
  toSession,
  type ConversationRow,
  toConversation,
  type MessageRow,
  toMessage,
} from '../rows/web.ts';

export class SqlWebSessionRepository implements WebSessionRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(
    s: { tokenHash: string; userId: number; expiresAt: number; userAgent: string | null },
    now: number,
  ): Promise<WebSession> {
    return toSession(
      (await this.s
        .prepare(`INSERT INTO web_sessions (token_hash, user_id, created_at, last_seen_at, expires_at, user_agent)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING *`)
        .get(s.tokenHash, s.userId, now, now, s.expiresAt, s.userAgent)) as unknown as SessionRow,
    );
  }
  async findByHash(tokenHash: string): Promise<WebSession | undefined> {
    const r = (await this.s.prepare('SELECT * FROM web_sessions WHERE token_hash = ?').get(tokenHash)) as
      | SessionRow
      | undefined;
    return r ? toSession(r) : undefined;
  }
  async touch(id: number, now: number, expiresAt: number): Promise<void> {
    await this.s
      .prepare('UPDATE web_sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?')
      .run(now, expiresAt, id);
  }
  async expire(id: number, at: number): Promise<void> {
    await this.s.prepare('UPDATE web_sessions SET expires_at = ? WHERE id = ?').run(at, id);
  }
  async delete(id: number): Promise<boolean> {
    return Number((await this.s.prepare('DELETE FROM web_sessions WHERE id = ?').run(id)).changes) > 0;
  }
  async deleteAllForUser(userId: number, exceptId?: number): Promise<number> {
    return Number(
      (await this.s.prepare('DELETE FROM web_sessions WHERE user_id = ? AND id <> ?').run(userId, exceptId ?? -1))
        .changes,
    );
  }
  async listForUser(userId: number): Promise<WebSession[]> {
    return (
      (await this.s
        .prepare('SELECT * FROM web_sessions WHERE user_id = ? ORDER BY last_seen_at DESC')
        .all(userId)) as unknown as SessionRow[]
    ).map(toSession);
  }
  async purgeExpired(now: number): Promise<number> {
    return Number((await this.s.prepare('DELETE FROM web_sessions WHERE expires_at <= ?').run(now)).changes);
  }
}

export class SqlWebAccountRepository implements WebAccountRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async settings(userId: number): Promise<string | undefined> {
    return (
      (await this.s.prepare('SELECT settings FROM web_settings WHERE user_id = ?').get(userId)) as
        | { settings: string }
        | undefined
    )?.settings;
  }
  async saveSettings(userId: number, json: string): Promise<void> {
    await this.s
      .prepare(
        'INSERT INTO web_settings (user_id, settings) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET settings = excluded.settings',
      )
      .run(userId, json);
  }
  async userCount(): Promise<number> {
    return Number(((await this.s.prepare('SELECT count(*) AS n FROM users').get()) as { n: number }).n);
  }
  async replaceSetupToken(tokenHash: string, now: number): Promise<void> {
    await this.s
      .prepare(`INSERT INTO web_setup_token (id, token_hash, created_at) VALUES (1, ?, ?)
        ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`)
      .run(tokenHash, now);
  }
  async restoreSetupToken(tokenHash: string, now: number): Promise<boolean> {
    const r = await this.s
      .prepare('INSERT OR IGNORE INTO web_setup_token (id, token_hash, created_at) VALUES (1, ?, ?)')
      .run(tokenHash, now);
    return Number(r.changes) > 0;
  }
  async hasSetupToken(tokenHash: string): Promise<boolean> {
    return (await this.s.prepare('SELECT id FROM web_setup_token WHERE token_hash = ?').get(tokenHash)) !== undefined;
  }
  async consumeSetupToken(tokenHash: string): Promise<boolean> {
    // One statement: of two requests racing with the right secret, only one deletes the row.
    const r = await this.s.prepare('DELETE FROM web_setup_token WHERE token_hash = ? RETURNING id').get(tokenHash);
    return r !== undefined;
  }
  async clearSetupToken(): Promise<void> {
    await this.s.prepare('DELETE FROM web_setup_token').run();
  }
}

export class SqlConversationRepository implements ConversationRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(
    c: { userId: number; title: string; scope: unknown; model: string },
    now: number,
  ): Promise<Conversation> {
    return toConversation(
      (await this.s
        .prepare(`INSERT INTO web_conversations (user_id, title, scope, model, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING *`)
        .get(c.userId, c.title, JSON.stringify(c.scope), c.model, now, now)) as unknown as ConversationRow,
    );
  }
  async find(userId: number, id: number): Promise<Conversation | undefined> {
    const r = (await this.s.prepare('SELECT * FROM web_conversations WHERE id = ? AND user_id = ?').get(id, userId)) as
      | ConversationRow
      | undefined;
    return r ? toConversation(r) : undefined;
  }
  async list(userId: number, limit: number): Promise<Conversation[]> {
    return (
      (await this.s
        .prepare('SELECT * FROM web_conversations WHERE user_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?')
        .all(userId, limit)) as unknown as ConversationRow[]
    ).map(toConversation);
  }
  async addMessage(conversationId: number, m: NewConversationMessage, now: number): Promise<ConversationMessage> {
    await this.s.prepare('UPDATE web_conversations SET updated_at = ? WHERE id = ?').run(now, conversationId);
    return toMessage(
      (await this.s
        .prepare(`INSERT INTO web_messages (conversation_id, role, content, sources, related, created_at)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING *`)
        .get(
          conversationId,
          m.role,
          m.content,
          m.sources ? JSON.stringify(m.sources) : null,
          m.related ? JSON.stringify(m.related) : null,
          now,
        )) as unknown as MessageRow,
    );
  }
  async messages(conversationId: number): Promise<ConversationMessage[]> {
    return (
      (await this.s
        .prepare('SELECT * FROM web_messages WHERE conversation_id = ? ORDER BY id')
        .all(conversationId)) as unknown as MessageRow[]
    ).map(toMessage);
  }
  async delete(userId: number, id: number): Promise<boolean> {
    return (
      Number(
        (await this.s.prepare('DELETE FROM web_conversations WHERE id = ? AND user_id = ?').run(id, userId)).changes,
      ) > 0
    );
  }
}
