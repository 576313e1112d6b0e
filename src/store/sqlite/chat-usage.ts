import type { Db } from './db.ts';
import { StatementCache } from './db.ts';
import type { ChatUsageRepository } from '../repositories.ts';
import type { UsageRecord, UsageTotals } from '../../model/chat.ts';

export class SqliteChatUsageRepository implements ChatUsageRepository {
  private readonly s: StatementCache;
  constructor(db: Db) {
    this.s = new StatementCache(db);
  }

  async record(r: UsageRecord): Promise<void> {
    this.s
      .get(`INSERT INTO chat_usage (created_at, key_id, user_id, endpoint, model, status, error_type, stream,
        prompt_tokens, completion_tokens, reasoning_tokens, citation_tokens, search_queries,
        input_cost, output_cost, reasoning_cost, citation_cost, search_cost, request_cost, total_cost, latency_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        r.createdAt,
        r.keyId,
        r.userId,
        r.endpoint,
        r.model,
        r.status,
        r.errorType,
        r.stream ? 1 : 0,
        r.promptTokens,
        r.completionTokens,
        r.reasoningTokens,
        r.citationTokens,
        r.searchQueries,
        r.cost.input,
        r.cost.output,
        r.cost.reasoning,
        r.cost.citation,
        r.cost.searchQueries,
        r.cost.request,
        r.cost.total,
        r.latencyMs,
      );
  }

  async totals(opts: { userId?: number; since?: number }): Promise<UsageTotals[]> {
    const rows = this.s
      .get(`
      SELECT u.key_id AS keyId, coalesce(k.name, '') AS keyName, coalesce(us.username, '') AS username, u.model AS model,
             count(*) AS requests, sum(u.status >= 400) AS errors,
             sum(u.prompt_tokens) AS promptTokens, sum(u.completion_tokens) AS completionTokens,
             sum(u.reasoning_tokens) AS reasoningTokens, sum(u.citation_tokens) AS citationTokens,
             sum(u.search_queries) AS searchQueries, sum(u.total_cost) AS cost
        FROM chat_usage u
        LEFT JOIN api_keys k ON k.id = u.key_id
        LEFT JOIN users us ON us.id = u.user_id
       WHERE (?1 IS NULL OR u.user_id = ?1) AND u.created_at >= ?2
       GROUP BY u.key_id, u.model
       ORDER BY username, u.key_id, u.model`)
      .all(opts.userId ?? null, opts.since ?? 0);
    return (rows as unknown as UsageTotals[]).map((r) => ({ ...r, cost: Math.round(r.cost * 1e6) / 1e6 }));
  }
}
