// Records one row per authenticated request (success or failure) with tokens, searches and cost.
// Rows are written in batches: the requests that finish in one turn of the event loop share one
// transaction, flushed right after that turn (setImmediate), so under load one commit serves many
// requests (a commit per request was the API layer's largest cost) while a row still lands within
// a millisecond or so of its response. Writes run one after another; flush() returns when every
// row added so far is written, so a server that drains can flush last, before the store closes.
import type { TokenUsage } from '../answer/types.ts';
import type { ApiKey, CostBreakdown, UsageRecord } from '../model/chat.ts';
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

export class UsageRecorder {
  private pending: UsageRecord[] = [];
  private scheduled = false;
  private readonly api: ChatApi;
  constructor(api: ChatApi) {
    this.api = api;
  }

  add(r: UsageRecord): void {
    this.pending.push(r);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  private writing: Promise<void> = Promise.resolve();

  /** Writes the rows added so far; resolves when they (and any write already running) are stored. */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.pending.length === 0) return this.writing;
    const rows = this.pending;
    this.pending = [];
    this.writing = this.writing.then(() => this.write(rows));
    return this.writing;
  }

  private async write(rows: UsageRecord[]): Promise<void> {
    try {
      const write = async () => {
        for (const r of rows) await this.api.store.usage.record(r);
      };
      // One row is one statement, atomic on its own: a transaction would only add BEGIN and COMMIT
      // round trips (on PostgreSQL 3 statements instead of 1 for an answer that finishes alone).
      await (rows.length === 1 ? write() : this.api.app.store.transaction(write));
    } catch (err) {
      // Losing usage rows must not fail requests; the log keeps the evidence.
      this.api.app.log.error({ err, rows: rows.length }, 'could not record chat usage');
    }
  }
}

export function recordUsage(api: ChatApi, key: ApiKey, e: UsageEntry): void {
  const u = e.usage;
  api.usage.add({
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
}
