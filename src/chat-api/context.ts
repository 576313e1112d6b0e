// Everything one running chat API needs, built once per server from the App and plugin options.
import type { App } from '../runtime/app.ts';
import type { AnswerService } from '../answer/types.ts';
import { chatStore, type ChatStore } from './repositories.ts';
import { configuredPrices, type PriceTable } from './prices.ts';
import { LeakyBucketLimiter, rateLimitTable } from './rate-limit.ts';
import type { RateFamily } from './models.ts';
import { UsageRecorder } from './usage.ts';
import { timedAnswers } from '../answer/timed-answers.ts';

export interface ChatApi {
  app: App;
  store: ChatStore;
  answers: AnswerService;
  prices: PriceTable;
  rateLimits: Record<RateFamily, number[]>;
  limiter: LeakyBucketLimiter;
  usage: UsageRecorder;
  /** Silence before an SSE stream's first event after which headers and keep-alive comments go out. */
  keepAliveMs: number;
}

export function createChatApi(app: App, answers: AnswerService, keepAliveMs = 10_000): ChatApi {
  const api = {
    app,
    store: chatStore(app),
    answers: timedAnswers(app, answers),
    prices: configuredPrices(app.config),
    rateLimits: rateLimitTable(app.config.rateLimits),
    limiter: new LeakyBucketLimiter(app.limits),
    keepAliveMs,
  } as ChatApi;
  api.usage = new UsageRecorder(api);
  return api;
}
