// The web app's repositories, taken from the App's store (SQL in src/store/sqlite/web.ts, tables
// in migration 070_web_app).
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import type { ConversationRepository, WebAccountRepository, WebSessionRepository } from '../store/repositories.ts';

export interface WebStore {
  sessions: WebSessionRepository;
  accounts: WebAccountRepository;
  conversations: ConversationRepository;
}

export const webStore: (app: App) => WebStore = perApp((app) => ({
  sessions: app.store.webSessions,
  accounts: app.store.webAccounts,
  conversations: app.store.conversations,
}));
