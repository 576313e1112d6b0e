import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkWriter, toCompletionObject, toWireUsage } from './completion-object.ts';
import { DEFAULT_PRICES, computeCost } from './prices.ts';
import type { AnswerResult } from '../answer/types.ts';

const result: AnswerResult = {
  content: 'A "quoted"\nline\u2028with [1] and émoji 🚀',
  citations: ['https://a.example/1'],
  searchResults: [
    { title: 'A', url: 'https://a.example/1', date: null, last_updated: null, snippet: '', source: 'web' },
  ],
  finishReason: 'length',
  usage: { promptTokens: 10, completionTokens: 5, searchQueries: 1 },
};

test('chunks are valid SSE data lines carrying the exact text', () => {
  const w = new ChunkWriter('id-1', 'sonar', 123);
  w.setSources(result.citations, result.searchResults);
  const s = w.delta(result.content);
  assert.ok(s.startsWith('data: ') && s.endsWith('\n\n'));
  assert.equal(s.slice(6, -2).includes('\n'), false, 'one line per event');
  const c = JSON.parse(s.slice(6));
  assert.equal(c.choices[0].delta.content, result.content);
  assert.deepEqual(c.citations, result.citations);
  assert.equal(c.object, 'chat.completion.chunk');
  const usage = toWireUsage('sonar', result.usage, 'low', computeCost(DEFAULT_PRICES, 'sonar', result.usage, 'low'));
  const [last, done] = w.final({ finishReason: 'length', usage, images: [] }).split('\n\n').filter(Boolean);
  assert.equal(done, 'data: [DONE]');
  const l = JSON.parse(last.slice(6));
  assert.equal(l.choices[0].finish_reason, 'length');
  assert.deepEqual(l.choices[0].delta, { role: 'assistant', content: '' });
  assert.deepEqual(l.images, []);
  assert.equal(l.related_questions, undefined);
  assert.equal(l.usage.cost.total_cost, 0.005015);
});

test('toCompletionObject: defaults, requested extras only, deep-research usage fields', () => {
  const o = toCompletionObject(result, 'sonar');
  assert.equal(o.choices[0].finish_reason, 'length');
  assert.equal(o.usage.search_context_size, 'low');
  assert.equal('images' in o, false);
  assert.deepEqual(
    toCompletionObject(result, 'sonar', { returnImages: true, returnRelatedQuestions: true }).related_questions,
    [],
  );
  const dr = toCompletionObject(
    {
      ...result,
      usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 2, citationTokens: 3, searchQueries: 4 },
    },
    'sonar-deep-research',
    { searchContextSize: 'high' },
  );
  assert.deepEqual(Object.keys(dr.usage), [
    'prompt_tokens',
    'completion_tokens',
    'total_tokens',
    'search_context_size',
    'citation_tokens',
    'num_search_queries',
    'reasoning_tokens',
    'cost',
  ]);
  assert.deepEqual(Object.keys(dr.usage.cost), [
    'input_tokens_cost',
    'output_tokens_cost',
    'citation_tokens_cost',
    'reasoning_tokens_cost',
    'search_queries_cost',
    'total_cost',
  ]);
  assert.equal(dr.usage.cost.search_queries_cost, 0.02);
});
