// The chat API's usage log, a row per request (src/chat-api/usage.ts), and its totals per key and model.
import type { Sql } from '../sql.ts';
import type { ChatUsageRepository } from '../repositories.ts';
import type { UsageRecord, UsageTotals } from '../../model/chat.ts';

export class SqlChatUsageRepository implements ChatUsageRepository {
  private readonly s: Sql;
  /** Runs the row's write (PortableOptions.quietWrite): on SQLite the statement runs within the call. */
  private readonly quiet: <T>(write: () => T) => T;
  constructor(sql: Sql, quietWrite: <T>(write: () => T) => T = (write) => write()) {
    this.s = sql;
    this.quiet = quietWrite;
  }

  async record(r: UsageRecord): Promise<void> {
    const insert =
      this.s.prepare(`INSERT INTO chat_usage (created_at, key_id, user_id, endpoint, model, status, error_type, stream,
        prompt_tokens, completion_tokens, reasoning_tokens, citation_tokens, search_queries,
        input_cost, output_cost, reasoning_cost, citation_cost, search_cost, request_cost, total_cost, latency_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    await this.quiet(() =>
      insert.run(
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
      ),
    );
  }

  async totals(opts: { userId?: number; since?: number }): Promise<UsageTotals[]> {
    // max() of the key's name and the user's: one value per key (PostgreSQL wants every column
    // not grouped by inside an aggregate). Ordered by the user name (column 3).
    const rows = (await this.s
      .prepare(`
      SELECT u.key_id AS keyId, coalesce(max(k.name), '') AS keyName, coalesce(max(us.username), '') AS username,
             u.model AS model, count(*) AS requests, sum(CASE WHEN u.status >= 400 THEN 1 ELSE 0 END) AS errors,
             sum(u.prompt_tokens) AS promptTokens, sum(u.completion_tokens) AS completionTokens,
             sum(u.reasoning_tokens) AS reasoningTokens, sum(u.citation_tokens) AS citationTokens,
             sum(u.search_queries) AS searchQueries, sum(u.total_cost) AS cost
        FROM chat_usage u
        LEFT JOIN api_keys k ON k.id = u.key_id
        LEFT JOIN users us ON us.id = u.user_id
       WHERE (CAST(?1 AS BIGINT) IS NULL OR u.user_id = ?1) AND u.created_at >= ?2
       GROUP BY u.key_id, u.model
       ORDER BY 3, u.key_id, u.model`)
      .all(opts.userId ?? null, opts.since ?? 0)) as UsageTotals[];
    return rows.map((r) => ({ ...r, cost: Math.round(r.cost * 1e6) / 1e6 }));
  }
}
