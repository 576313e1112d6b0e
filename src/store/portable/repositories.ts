// The repositories written once over the portable statement interface (../sql.ts), held by both
// stores: each store extends this class with its executor and adds its own hot-path repositories.
import type { Sql } from '../sql.ts';
import { SqlFeverRepository } from './fever.ts';
import { SqlFeedIconRepository } from './feed-icons.ts';
import { SqlFullTextRepository } from './full-text.ts';
import { SqlWebSubRepository } from './websub.ts';
import { SqlFilterRuleRepository } from './filter-rules.ts';
import { SqlWebhookRepository } from './webhooks.ts';
import { SqlUpkeepLeaseRepository } from './upkeep-leases.ts';
import { SqlConversationRepository, SqlWebAccountRepository, SqlWebSessionRepository } from './web.ts';

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
  readonly upkeepLeases;

  constructor(sql: Sql) {
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
    this.upkeepLeases = new SqlUpkeepLeaseRepository(sql);
  }
}
