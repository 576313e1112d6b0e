// The default price table (the seed's per-token prices and "$5 per 1000 searches", with the
// vendor's request fees by search context size) and the cost of one request. Operators override
// any entry with the `prices` option (JSON merged over this table), e.g.
//   TIDINGS_PRICES='{"sonar":{"input":0.5},"searchPer1000":4}'
import type { SearchContextSize, SonarModel, TokenUsage } from '../answer/types.ts';
import type { CostBreakdown } from '../model/chat.ts';

export interface ModelPrice {
  /** US$ per million tokens. */
  input: number;
  output: number;
  reasoning?: number;
  citation?: number;
  /** US$ per 1000 requests by search context size; absent = billed per search query instead. */
  requestFee?: Record<SearchContextSize, number>;
}

export interface PriceTable {
  models: Record<SonarModel, ModelPrice>;
  /** US$ per 1000 searches (seed: $5), billed per search on models without a request fee. */
  searchPer1000: number;
}

export const DEFAULT_PRICES: PriceTable = {
  models: {
    sonar: { input: 1, output: 1, requestFee: { low: 5, medium: 8, high: 12 } },
    'sonar-pro': { input: 3, output: 15, requestFee: { low: 6, medium: 10, high: 14 } },
    'sonar-reasoning': { input: 1, output: 5, requestFee: { low: 5, medium: 8, high: 12 } },
    'sonar-reasoning-pro': { input: 2, output: 8, requestFee: { low: 6, medium: 10, high: 14 } },
    'sonar-deep-research': { input: 2, output: 8, reasoning: 3, citation: 2 },
    'r1-1776': { input: 2, output: 8 },
  },
  searchPer1000: 5,
};

/**
 * Builds the table from the `prices` option. Accepted shapes: `{"sonar": {"input": 1}}` (model
 * entries at top level) or `{"models": {...}, "searchPer1000": 5}`; unknown models are an error.
 */
export function priceTable(overrides: Record<string, any> = {}): PriceTable {
  const table: PriceTable = structuredClone(DEFAULT_PRICES);
  const modelOverrides: Record<string, any> = { ...(overrides.models ?? {}) };
  for (const [k, v] of Object.entries(overrides)) if (k !== 'models' && k !== 'searchPer1000') modelOverrides[k] = v;
  for (const [model, p] of Object.entries(modelOverrides)) {
    if (!(model in table.models))
      throw new Error(`prices: unknown model "${model}" (models: ${Object.keys(table.models).join(', ')})`);
    const cur = table.models[model as SonarModel];
    table.models[model as SonarModel] = {
      ...cur,
      ...p,
      ...(p.requestFee
        ? { requestFee: { ...(cur.requestFee ?? { low: 0, medium: 0, high: 0 }), ...p.requestFee } }
        : {}),
    };
  }
  if (typeof overrides.searchPer1000 === 'number') table.searchPer1000 = overrides.searchPer1000;
  return table;
}

/** Whether the operator configured prices (TIDINGS_PRICE_TABLE=sonar or TIDINGS_PRICES). */
export function pricesConfigured(config: { priceTable: string; prices: Record<string, any> }): boolean {
  return config.priceTable === 'sonar' || Object.keys(config.prices).length > 0;
}

const FREE: PriceTable = {
  models: Object.fromEntries(Object.keys(DEFAULT_PRICES.models).map((m) => [m, { input: 0, output: 0 }])) as Record<
    SonarModel,
    ModelPrice
  >,
  searchPer1000: 0,
};

/**
 * The prices in force: the Sonar table (with the overrides) when configured, else all zero, so a
 * personal server does not show Perplexity's prices for answers it computed itself.
 */
export function configuredPrices(config: { priceTable: string; prices: Record<string, any> }): PriceTable {
  return pricesConfigured(config) ? priceTable(config.prices) : structuredClone(FREE);
}

/** Rounds to a nanodollar so sums of float products print cleanly. */
const usd = (x: number): number => Math.round(x * 1e9) / 1e9;

/**
 * Cost of one answer. Billing of searches (documented in README.md):
 * - models with a request fee (sonar, sonar-pro, sonar-reasoning, sonar-reasoning-pro): the fee by
 *   search context size covers the request's searches (at "low" it is exactly the seed's $5 per
 *   1000); no fee when the request ran no search (disable_search);
 * - sonar-deep-research (no request fee): searchPer1000 per search query it ran;
 * - r1-1776: never searches, so tokens only.
 */
export function computeCost(
  table: PriceTable,
  model: SonarModel,
  usage: TokenUsage,
  contextSize: SearchContextSize,
): CostBreakdown {
  const p = table.models[model];
  const input = usd((usage.promptTokens * p.input) / 1e6);
  const output = usd((usage.completionTokens * p.output) / 1e6);
  const reasoning = p.reasoning !== undefined ? usd(((usage.reasoningTokens ?? 0) * p.reasoning) / 1e6) : 0;
  const citation = p.citation !== undefined ? usd(((usage.citationTokens ?? 0) * p.citation) / 1e6) : 0;
  const request = p.requestFee && usage.searchQueries > 0 ? usd(p.requestFee[contextSize] / 1000) : 0;
  const searchQueries = p.requestFee ? 0 : usd((usage.searchQueries * table.searchPer1000) / 1000);
  return {
    input,
    output,
    reasoning,
    citation,
    searchQueries,
    request,
    total: usd(input + output + reasoning + citation + searchQueries + request),
  };
}

export const ZERO_COST: CostBreakdown = {
  input: 0,
  output: 0,
  reasoning: 0,
  citation: 0,
  searchQueries: 0,
  request: 0,
  total: 0,
};
