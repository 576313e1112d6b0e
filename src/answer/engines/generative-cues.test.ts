// What the generative engine is told, checked at the protocol-faithful LLM stub: today's date (the
// request's asOf), each source's date, the period the question's time words name, the standalone
// query a follow-up was searched as, and the wider source list (every source drawn on, not only
// the best few).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../runtime/app.ts';
import { testApp } from '../../search/testing/fixtures.ts';
import { ARTICLES, loadFixture } from '../testing/articles.ts';
import { startLlmStub, type LlmStub } from '../testing/llm-stub.ts';
import { createAnswerService } from '../service.ts';
import { searchService } from '../../search/service.ts';

let app: App;
let stub: LlmStub;
before(async () => {
  app = await testApp();
  await loadFixture(app);
  stub = await startLlmStub();
});
after(async () => {
  await stub.close();
  await app.close();
});

const newest = Math.max(...ARTICLES.map((a) => a.publishedAt));
const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

test('the prompt carries today, the sources with their dates, the time words and the resolved follow-up', async () => {
  stub.mode = 'normal';
  stub.requests.length = 0;
  const service = createAnswerService({
    search: searchService(app),
    config: {
      llmBaseUrl: stub.baseUrl,
      llmApiKey: 'k',
      llmModel: 'stub-model',
      llmTimeoutMs: 5_000,
      engineByModel: {},
    },
  });
  const asOf = newest + 3600;
  const r = await service.complete({
    model: 'sonar',
    messages: [
      { role: 'user', content: 'What did NASA announce about the Artemis II crew?' },
      { role: 'assistant', content: 'NASA named the crew.' },
      { role: 'user', content: 'And when does it launch, as announced this week?' },
    ],
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
    asOf,
  });
  const answer = stub.requests.find((r) => r.stream === true) as { messages: { role: string; content: string }[] };
  assert.ok(answer, 'the answer was requested');
  const system = answer.messages[0]!.content;
  assert.match(system, new RegExp(`Today is ${iso(asOf)}\\.`));
  assert.match(
    system,
    /The question asks about "this week", that is \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d: prefer sources from then\./,
  );
  assert.match(system, /when sources of different dates disagree, give the newest/);
  assert.match(system, /The question follows up on the conversation; it was searched as "[^"]+"/);
  // Every source drawn on is numbered with its date: the prompt's list is the citations' list.
  const numbered = [...system.matchAll(/^\[(\d+)\] .+ \(.+, (\d{4}-\d\d-\d\d)\)$/gm)];
  assert.ok(numbered.length >= 2, `${numbered.length} sources in the prompt`);
  assert.equal(numbered.length, r.citations.length);
  for (const [i, m] of numbered.entries())
    assert.equal(m[2], iso(ARTICLES.find((a) => a.url === r.citations[i])!.publishedAt), `date of [${i + 1}]`);
  // The follow-up itself is asked as written, after the earlier turns.
  assert.deepEqual(
    answer.messages.slice(-3).map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
});
