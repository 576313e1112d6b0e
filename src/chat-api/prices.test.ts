import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeCost, priceTable, DEFAULT_PRICES } from './prices.ts';

const usage = {
  promptTokens: 1_000_000,
  completionTokens: 2_000_000,
  reasoningTokens: 3_000_000,
  citationTokens: 4_000_000,
  searchQueries: 10,
};

test("the default table is the seed's per-token prices", () => {
  const want: Record<string, [number, number]> = {
    'sonar-deep-research': [2, 8],
    'sonar-reasoning-pro': [2, 8],
    'sonar-reasoning': [1, 5],
    'sonar-pro': [3, 15],
    sonar: [1, 1],
    'r1-1776': [2, 8],
  };
  for (const [m, [i, o]] of Object.entries(want))
    assert.deepEqual(
      [DEFAULT_PRICES.models[m as 'sonar'].input, DEFAULT_PRICES.models[m as 'sonar'].output],
      [i, o],
      m,
    );
  assert.equal(DEFAULT_PRICES.models['sonar-deep-research'].reasoning, 3);
  assert.equal(DEFAULT_PRICES.searchPer1000, 5);
});

test('request-fee models: tokens plus the fee by context size; no fee without a search', () => {
  const c = computeCost(DEFAULT_PRICES, 'sonar-pro', usage, 'medium');
  assert.deepEqual(c, {
    input: 3,
    output: 30,
    reasoning: 0,
    citation: 0,
    searchQueries: 0,
    request: 0.01,
    total: 33.01,
  });
  assert.equal(computeCost(DEFAULT_PRICES, 'sonar', { ...usage, searchQueries: 0 }, 'high').request, 0);
  assert.equal(
    computeCost(DEFAULT_PRICES, 'sonar', { ...usage, searchQueries: 1 }, 'low').request,
    0.005,
    '$5 per 1000 at low',
  );
});

test('deep research: reasoning, citation tokens and $5 per 1000 searches; r1-1776 tokens only', () => {
  const c = computeCost(DEFAULT_PRICES, 'sonar-deep-research', usage, 'high');
  assert.deepEqual(c, {
    input: 2,
    output: 16,
    reasoning: 9,
    citation: 8,
    searchQueries: 0.05,
    request: 0,
    total: 35.05,
  });
  const r1 = computeCost(
    DEFAULT_PRICES,
    'r1-1776',
    { promptTokens: 10, completionTokens: 10, searchQueries: 0 },
    'low',
  );
  assert.equal(r1.total, 0.0001);
});

test('configuration overrides merge over the table', () => {
  const t = priceTable({
    sonar: { input: 0.5, requestFee: { low: 1 } },
    models: { 'sonar-pro': { output: 10 } },
    searchPer1000: 4,
  });
  assert.equal(t.models.sonar.input, 0.5);
  assert.equal(t.models.sonar.output, 1);
  assert.deepEqual(t.models.sonar.requestFee, { low: 1, medium: 8, high: 12 });
  assert.equal(t.models['sonar-pro'].output, 10);
  assert.equal(t.searchPer1000, 4);
  assert.equal(DEFAULT_PRICES.models.sonar.input, 1, 'the default table is not modified');
  assert.throws(() => priceTable({ 'gpt-4': { input: 1 } }), /unknown model "gpt-4"/);
});
