// The chat API's repositories for one App (memoized, so the server and CLI share one set per App).
import { perApp, type App } from '../app.ts';
import type { ApiKeyRepository, ChatUsageRepository, AsyncJobRepository, AccessRequestRepository } from '../store/repositories.ts';
import { SqliteApiKeyRepository } from '../store/sqlite/api-keys.ts';
import { SqliteChatUsageRepository } from '../store/sqlite/chat-usage.ts';
import { SqliteAsyncJobRepository } from '../store/sqlite/chat-jobs.ts';
import { SqliteAccessRequestRepository } from '../store/sqlite/access-requests.ts';

export interface ChatStore {
  keys: ApiKeyRepository;
  usage: ChatUsageRepository;
  jobs: AsyncJobRepository;
  access: AccessRequestRepository;
}

export const chatStore: (app: App) => ChatStore = perApp((app) => ({
  keys: new SqliteApiKeyRepository(app.db),
  usage: new SqliteChatUsageRepository(app.db),
  jobs: new SqliteAsyncJobRepository(app.db),
  access: new SqliteAccessRequestRepository(app.db),
}));
