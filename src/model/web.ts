// Plain types of the web app (src/web) and its storage (src/store/sqlite/web.ts). Times are Unix seconds.

export interface WebSession {
  id: number;
  userId: number;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  userAgent: string | null;
}

/** Which articles an Ask conversation searches. */
export type AskScope =
  | { kind: 'all' }
  | { kind: 'starred' }
  | { kind: 'folder'; name: string }
  | { kind: 'feed'; feedId: number }
  | { kind: 'article'; itemId: number };

/** A cited article as the Ask page shows it. */
export interface SourceCard {
  n: number;
  title: string;
  url: string;
  /** The name the user gave the feed (else the feed's own title), or the web site's host. */
  feed: string;
  /** The subscription's feed id (absent for web results and for answers kept before it existed). */
  feedId?: number | null;
  /** The icon Tidings serves for that feed (a URL relative to the page), or null: a placeholder. */
  icon?: string | null;
  date: string | null;
  snippet: string;
}

export interface Conversation {
  id: number;
  userId: number;
  title: string;
  scope: AskScope;
  model: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewConversationMessage {
  role: 'user' | 'assistant';
  content: string;
  sources?: SourceCard[];
  related?: string[];
}

export interface ConversationMessage {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  sources: SourceCard[];
  related: string[];
  createdAt: number;
}
