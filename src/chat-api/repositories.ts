// The chat API's repositories, taken from the App's store.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import type {
  ApiKeyRepository,
  ChatUsageRepository,
  AsyncJobRepository,
  AccessRequestRepository,
} from '../store/repositories.ts';

export interface ChatStore {
  keys: ApiKeyRepository;
  usage: ChatUsageRepository;
  jobs: AsyncJobRepository;
  access: AccessRequestRepository;
}

export const chatStore: (app: App) => ChatStore = perApp((app) => ({
  keys: app.store.apiKeys,
  usage: app.store.chatUsage,
  jobs: app.store.asyncJobs,
  access: app.store.accessRequests,
}));
