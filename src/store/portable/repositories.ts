// The repositories written once over the portable statement interface (../sql.ts), held by both
// stores: each store extends this class with its executor and adds its own hot-path repositories.
import type { Sql } from '../sql.ts';
import type { StoredToken } from '../../model/auth.ts';
import type { StoredApiKey } from '../../model/chat.ts';
import type { AuthRowCache } from './auth-row-cache.ts';
import { SqlFeverRepository } from './fever.ts';
import { SqlFeedIconRepository } from './feed-icons.ts';
import { SqlFullTextRepository } from './full-text.ts';
import { SqlWebSubRepository } from './websub.ts';
import { SqlFilterRuleRepository } from './filter-rules.ts';
import { SqlWebhookRepository } from './webhooks.ts';
import { SqlUpkeepLeaseRepository } from './upkeep-leases.ts';
import { SqlConversationRepository, SqlWebAccountRepository, SqlWebSessionRepository } from './web.ts';
import { SqlUserRepository } from './users.ts';
import { SqlAuthSecretRepository, SqlTokenRepository } from './tokens.ts';
import { SqlAuthorizationCodeRepository, SqlOAuthClientRepository } from './oauth.ts';
import { SqlApiKeyRepository } from './api-keys.ts';
import { SqlAccessRequestRepository } from './access-requests.ts';
import { SqlChatUsageRepository } from './chat-usage.ts';
import { SqlAsyncJobRepository } from './chat-jobs.ts';

/** What a backend adds to the portable repositories. */
export interface PortableOptions {
  /** Token rows kept briefly for authentication (both backends: a round trip on PostgreSQL, a cold statement on SQLite); none: read every time. */
  tokenRows?: AuthRowCache<StoredToken>;
  /** Chat API key rows kept the same way (every chat answer authenticates). */
  apiKeyRows?: AuthRowCache<StoredApiKey>;
  /**
   * Runs a write of chat usage rows (a table nothing caches) so that the change signal does not move
   * for it (SQLite: SqliteChangeSignal.quietWrite; PostgreSQL needs none, no trigger notifies it).
   */
  quietWrite?: <T>(write: () => T) => T;
}

export abstract class PortableRepositories {
  protected readonly sql: Sql;
  readonly fever;
  readonly feedIcons;
  readonly fullText;
  readonly webSub;
  readonly filterRules;
  readonly webhooks;
  readonly webSessions;
  readonly webAccounts;
  readonly conversations;
  readonly users;
  readonly tokens;
  readonly authSecrets;
  readonly oauthClients;
  readonly authCodes;
  readonly apiKeys;
  readonly accessRequests;
  readonly chatUsage;
  readonly asyncJobs;
  readonly upkeepLeases;

  constructor(sql: Sql, options: PortableOptions = {}) {
    this.sql = sql;
    this.fever = new SqlFeverRepository(sql);
    this.feedIcons = new SqlFeedIconRepository(sql);
    this.fullText = new SqlFullTextRepository(sql);
    this.webSub = new SqlWebSubRepository(sql);
    this.filterRules = new SqlFilterRuleRepository(sql);
    this.webhooks = new SqlWebhookRepository(sql);
    this.webSessions = new SqlWebSessionRepository(sql);
    this.webAccounts = new SqlWebAccountRepository(sql);
    this.conversations = new SqlConversationRepository(sql);
    // A deleted user's tokens and keys go with them (ON DELETE CASCADE): their rows are forgotten too.
    this.users = new SqlUserRepository(
      sql,
      [options.tokenRows, options.apiKeyRows].filter((c) => c !== undefined),
    );
    this.tokens = new SqlTokenRepository(sql, options.tokenRows);
    this.authSecrets = new SqlAuthSecretRepository(sql);
    this.oauthClients = new SqlOAuthClientRepository(sql);
    this.authCodes = new SqlAuthorizationCodeRepository(sql);
    this.apiKeys = new SqlApiKeyRepository(sql, options.apiKeyRows);
    this.accessRequests = new SqlAccessRequestRepository(sql);
    this.chatUsage = new SqlChatUsageRepository(sql, options.quietWrite);
    this.asyncJobs = new SqlAsyncJobRepository(sql);
    this.upkeepLeases = new SqlUpkeepLeaseRepository(sql);
  }
}
