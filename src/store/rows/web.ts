// Row shapes and mapping of the web app's sessions and conversations, shared by the SQLite and
// PostgreSQL repositories.
import type { WebSession, Conversation, ConversationMessage } from '../../model/web.ts';

export interface SessionRow {
  id: number;
  token_hash: string;
  user_id: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  user_agent: string | null;
}
export const toSession = (r: SessionRow): WebSession => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  userAgent: r.user_agent,
});
export interface ConversationRow {
  id: number;
  user_id: number;
  title: string;
  scope: string;
  model: string;
  created_at: number;
  updated_at: number;
}
export const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  userId: r.user_id,
  title: r.title,
  scope: JSON.parse(r.scope),
  model: r.model,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
export interface MessageRow {
  id: number;
  conversation_id: number;
  role: 'user' | 'assistant';
  content: string;
  sources: string | null;
  related: string | null;
  created_at: number;
}
export const toMessage = (r: MessageRow): ConversationMessage => ({
  id: r.id,
  role: r.role,
  content: r.content,
  sources: r.sources ? JSON.parse(r.sources) : [],
  related: r.related ? JSON.parse(r.related) : [],
  createdAt: r.created_at,
});
