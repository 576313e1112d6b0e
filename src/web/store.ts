// The web app's repositories for one App (SQL lives in src/store/sqlite/web.ts).
import { perApp, type App } from '../app.ts';
import type { ConversationRepository, WebAccountRepository, WebSessionRepository } from '../store/repositories.ts';
import { SqliteConversationRepository, SqliteWebAccountRepository, SqliteWebSessionRepository } from '../store/sqlite/web.ts';

export interface WebStore {
  sessions: WebSessionRepository;
  accounts: WebAccountRepository;
  conversations: ConversationRepository;
}

export const webStore: (app: App) => WebStore = perApp((app) => ({
  sessions: new SqliteWebSessionRepository(app.db),
  accounts: new SqliteWebAccountRepository(app.db),
  conversations: new SqliteConversationRepository(app.db),
}));
