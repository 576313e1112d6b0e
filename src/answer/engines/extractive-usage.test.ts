// The extractive engine's usage (issue 26.4): the prompt is its question and sources' texts; the
// completion is counted only when read, as the pipeline counts the text it streamed instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractiveEngine } from './extractive.ts';
import type { EngineUsage, GroundingSource } from './engine.ts';
import { groundingSource } from '../testing/grounding-source.ts';
import { countTokens } from '../tokens.ts';

const sources = [
  groundingSource(
    1,
    'Strong earthquake shakes northern Japan',
    'A magnitude 6.1 earthquake hit the island of Hokkaido on Wednesday, the Japan Meteorological Agency said. No tsunami warning was issued.',
  ),
  groundingSource(
    2,
    'Aftershocks rattle Hokkaido',
    'Hundreds of aftershocks followed the magnitude 6.1 earthquake that hit Hokkaido, officials said on Wednesday.',
  ),
];

async function run(question: string, given: GroundingSource[]): Promise<{ text: string; usage: EngineUsage }> {
  let text = '';
  let usage: EngineUsage | undefined;
  for await (const chunk of new ExtractiveEngine().answer({
    question,
    history: [],
    system: [],
    sources: given,
    searched: true,
    style: 'concise',
    sampling: {},
  })) {
    if (chunk.type === 'text') text += chunk.text;
    if (chunk.type === 'end') usage = chunk.usage;
  }
  assert.ok(usage);
  return { text, usage };
}

test('usage: the prompt counted up front, the completion when read, both exact', async () => {
  for (const [question, given] of [
    ['What magnitude was the earthquake that hit Hokkaido?', sources],
    ['Who won the chess championship in Marlow?', sources],
    ['Who won the chess championship in Marlow?', []],
  ] as const) {
    const { text, usage } = await run(question, [...given]);
    assert.ok(text.length > 0);
    const prompt = given.reduce((n, s) => s.texts.reduce((m, t) => m + 1 + countTokens(t), n), countTokens(question));
    assert.equal(usage.promptTokens, prompt);
    // A getter: nothing is counted unless a caller asks (the pipeline does not, ../pipelines/run-engine.ts).
    assert.equal(typeof Object.getOwnPropertyDescriptor(usage, 'completionTokens')?.get, 'function');
    assert.equal(usage.completionTokens, countTokens(text), question);
    assert.equal(usage.completionTokens, countTokens(text), 'read twice');
    assert.deepEqual(JSON.parse(JSON.stringify(usage)), { promptTokens: prompt, completionTokens: countTokens(text) });
  }
});
