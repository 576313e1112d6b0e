// The grounded prompt fits the model's context window, whatever the conversation and sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPrompt } from './prompt.ts';
import type { EngineRequest, GroundingSource } from './engine.ts';
import { countTokens } from '../tokens.ts';

const source = (n: number, words: number): GroundingSource => ({
  n,
  hit: {
    itemId: n,
    url: `https://news.example.org/${n}`,
    title: `Story ${n}`,
    sourceName: 'news.example.org',
    publishedAt: 1_700_000_000,
    updatedAt: null,
    passages: [],
    score: 1,
    imageUrl: null,
    origin: 'local',
  },
  texts: [Array.from({ length: words }, (_, i) => `word${i % 97}`).join(' ') + '.'],
});

const request = (over: Partial<EngineRequest>): EngineRequest => ({
  question: 'What happened?',
  history: [],
  system: [],
  sources: [],
  searched: true,
  style: 'concise',
  sampling: {},
  ...over,
});

const total = (msgs: { content: string }[]) => msgs.reduce((n, m) => n + countTokens(m.content) + 8, 0);

test('sources are cut to fit the context window, with room left for the answer', () => {
  const req = request({ sources: [1, 2, 3, 4].map((n) => source(n, 3_000)), maxTokens: 500 });
  const msgs = buildPrompt(req, 4_096);
  assert.ok(total(msgs) + 500 <= 4_096, `${total(msgs)} prompt tokens`);
  for (const n of [1, 2, 3, 4])
    assert.match(
      msgs[0].content,
      new RegExp(
        `\\[${n}\\] Story ${n} \\(news\\.example\\.org, 2023-11-14\\)\\nURL: https://news\\.example\\.org/${n}\\nword0`,
      ),
    );
  // A roomy window keeps every word.
  const roomy = buildPrompt(req, 128_000);
  assert.ok(roomy[0].content.includes(req.sources[3].texts[0]));
});

test('a long conversation loses its oldest turns, never the system messages or the question', () => {
  const long = 'blah '.repeat(1_500);
  const history = [
    { role: 'user' as const, content: `first ${long}` },
    { role: 'assistant' as const, content: `reply ${long}` },
    { role: 'user' as const, content: 'second question' },
    { role: 'assistant' as const, content: 'second reply' },
  ];
  const msgs = buildPrompt(request({ history, system: ['Answer in French.'], searched: false }), 2_048);
  assert.deepEqual(
    msgs.map((m) => m.content.slice(0, 15)),
    [msgs[0].content.slice(0, 15), 'Answer in Frenc', 'second question', 'second reply', 'What happened?'],
  );
  assert.ok(total(msgs) <= 2_048);
});

test('a roundup tells the model its sources are the newest articles, to be told newest first with their dates', () => {
  const text = (over: Partial<EngineRequest>) =>
    buildPrompt(request({ question: "What's new?", sources: [source(1, 20)], ...over }))
      .map((m) => m.content)
      .join('\n');
  assert.match(text({ roundup: true }), /the sources are the newest articles in the user's feeds, newest first/);
  assert.doesNotMatch(text({}), /newest articles in the user's feeds/);
});
