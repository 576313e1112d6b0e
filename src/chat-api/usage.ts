// Records one row per authenticated request (success or failure) with tokens, searches and cost.
import type { TokenUsage } from '../answer/types.ts';
import type { ApiKey, CostBreakdown } from '../model/chat.ts';
import { ZERO_COST } from './prices.ts';
import type { ChatApi } from './context.ts';

export interface UsageEntry {
  endpoint: 'chat' | 'async';
  model: string;
  status: number;
  errorType?: string | null;
  stream?: boolean;
  usage?: TokenUsage;
  cost?: CostBreakdown;
  /** performance.now() at the start of the request. */
  startedAt: number;
}

export function recordUsage(api: ChatApi, key: ApiKey, e: UsageEntry): void {
  const u = e.usage;
  try {
    api.store.usage.record({
      createdAt: Math.floor(Date.now() / 1000),
      keyId: key.id,
      userId: key.userId,
      endpoint: e.endpoint,
      model: e.model.slice(0, 64),
      status: e.status,
      errorType: e.errorType ?? null,
      stream: e.stream ?? false,
      promptTokens: u?.promptTokens ?? 0,
      completionTokens: u?.completionTokens ?? 0,
      reasoningTokens: u?.reasoningTokens ?? 0,
      citationTokens: u?.citationTokens ?? 0,
      searchQueries: u?.searchQueries ?? 0,
      cost: e.cost ?? ZERO_COST,
      latencyMs: Math.round(performance.now() - e.startedAt),
    });
  } catch (err) {
    // Losing a usage row must not fail the caller's request; the log keeps the evidence.
    api.app.log.error({ err, keyId: key.id }, 'could not record chat usage');
  }
}
