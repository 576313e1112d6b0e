// The OpenAI-compatible engine against a local stub server speaking /v1/chat/completions: streamed
// answers, citation markers checked, reasoning handled, usage mapped, every failure a clear error
// and never a hang.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../runtime/app.ts';
import { testApp } from '../../search/testing/fixtures.ts';
import { loadFixture } from '../testing/articles.ts';
import { startLlmStub, type LlmStub, type StubMode } from '../testing/llm-stub.ts';
import { createAnswerService } from '../service.ts';
import { searchService } from '../../search/service.ts';
import { AnswerError, type AnswerEvent, type AnswerRequest, type AnswerService } from '../types.ts';

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

function service(timeoutMs = 5_000, extra: Record<string, unknown> = {}): AnswerService {
  return createAnswerService({
    search: searchService(app),
    config: {
      llmBaseUrl: stub.baseUrl,
      llmApiKey: 'k',
      llmModel: 'stub-model',
      llmTimeoutMs: timeoutMs,
      engineByModel: {},
      ...extra,
    },
  });
}
const ask = (content: string, extra: Partial<AnswerRequest> = {}): AnswerRequest => ({
  model: 'sonar',
  messages: [{ role: 'user', content }],
  scope: { kind: 'instance' },
  filters: {},
  searchContextSize: 'low',
  ...extra,
});
const Q = 'What did NASA announce about the Artemis II launch date?';

async function run(mode: StubMode, req: AnswerRequest = ask(Q), timeoutMs?: number) {
  stub.mode = mode;
  const events: AnswerEvent[] = [];
  for await (const e of service(timeoutMs).stream(req)) events.push(e);
  const content = events
    .filter((e) => e.type === 'delta')
    .map((e) => (e as { text: string }).text)
    .join('');
  return {
    events,
    content,
    sources: events[0] as Extract<AnswerEvent, { type: 'sources' }>,
    done: events[events.length - 1] as Extract<AnswerEvent, { type: 'done' }>,
  };
}

test("streams the model's tokens as they come, grounded in numbered sources, with upstream usage", async () => {
  stub.requests.length = 0;
  const r = await run('normal', ask(Q, { topK: 40, temperature: 0.5 }));
  assert.equal(r.events[0].type, 'sources');
  assert.ok(r.sources.citations.length >= 2);
  assert.equal(r.content, 'Artemis II launches in April 2026 [1]. Starship must refuel first [2].');
  assert.ok(r.events.filter((e) => e.type === 'delta').length >= 3, 'streamed in pieces');
  assert.deepEqual({ p: r.done.usage.promptTokens, c: r.done.usage.completionTokens }, { p: 321, c: 17 });
  const body = stub.requests[0] as {
    model: string;
    stream: boolean;
    stream_options: unknown;
    messages: { role: string; content: string }[];
  };
  assert.equal(body.model, 'stub-model');
  assert.deepEqual([(body as Record<string, unknown>).top_k, (body as Record<string, unknown>).temperature], [40, 0.5]);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.match(body.messages[0].content, /\[1\] NASA announces new launch date for Artemis II/);
  assert.match(body.messages[0].content, /URL: https:\/\/www\.nasa\.gov\/news\/artemis-ii-crew-launch-date/);
  assert.equal(body.messages.at(-1)!.content, Q);
});

test('out-of-range [n] markers are dropped, even when split across chunks; lists are normalized', async () => {
  const r = await run('bad-markers');
  const n = r.sources.citations.length;
  assert.ok(n >= 2 && n < 7);
  assert.equal(r.content, 'NASA delayed Artemis II [1]. The lander needs refueling [2] .');
});

test('without upstream usage, tokens are counted locally', async () => {
  const r = await run('no-usage');
  assert.ok(r.done.usage.promptTokens > 100, 'the grounded prompt is counted');
  assert.ok(r.done.usage.completionTokens > 5);
});

test('reasoning models: inline <think> and reasoning_content both land in the <think> block', async () => {
  for (const mode of ['think-inline', 'reasoning-content'] as const) {
    const r = await run(mode, ask(Q, { model: 'sonar-reasoning' }));
    assert.match(r.content, /^<think>\nQuestion: .*\n[\s\S]*Searched "/, mode);
    assert.match(
      r.content,
      mode === 'think-inline'
        ? /\nThe sources say April 2026\.\n<\/think>\n\n/
        : /\nSource 1 gives the date\.\n<\/think>\n\n/,
      mode,
    );
    assert.ok(
      r.content.endsWith('</think>\n\nArtemis II launches in April 2026 [1].'),
      `${mode}: ${r.content.slice(-80)}`,
    );
    assert.equal(r.content.match(/<think>/g)!.length, 1);
  }
  // A non-reasoning model does not show the upstream reasoning.
  const plain = await run('think-inline');
  assert.equal(plain.content, 'Artemis II launches in April 2026 [1].');
});

test('an HTTP error upstream becomes upstream_error naming the server and status', async () => {
  await assert.rejects(
    run('error-500'),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.code === 'upstream_error' &&
      e.message.includes(stub.baseUrl) &&
      /HTTP 500/.test(e.message) &&
      /CUDA out of memory/.test(e.message),
  );
});

test('garbage in the stream becomes upstream_error', async () => {
  await assert.rejects(
    run('garbage'),
    (e: unknown) =>
      e instanceof AnswerError && e.code === 'upstream_error' && /invalid response|malformed/.test(e.message),
  );
  await assert.rejects(
    run('wrong-shape'),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.code === 'upstream_error' &&
      /not a chat\.completion\.chunk \(choices\.0\.delta\.content: /.test(e.message),
  );
});

test('a slow first token and a stall mid-stream time out instead of hanging', async () => {
  const t0 = Date.now();
  await assert.rejects(
    run('slow-first-token', ask(Q), 300),
    (e: unknown) =>
      e instanceof AnswerError && e.code === 'upstream_timeout' && /did not answer within 300 ms/.test(e.message),
  );
  await assert.rejects(
    run('stall', ask(Q), 300),
    (e: unknown) =>
      e instanceof AnswerError && e.code === 'upstream_timeout' && /stopped sending tokens for 300 ms/.test(e.message),
  );
  assert.ok(Date.now() - t0 < 1_900, 'both failed well before the stub would have continued');
});

test('a server that is down is a clear upstream_error', async () => {
  const svc = createAnswerService({
    search: searchService(app),
    config: {
      llmBaseUrl: 'http://127.0.0.1:9/v1',
      llmApiKey: '',
      llmModel: 'm',
      llmTimeoutMs: 2_000,
      engineByModel: {},
    },
  });
  await assert.rejects(
    svc.complete(ask(Q)),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.code === 'upstream_error' &&
      /could not reach LLM server http:\/\/127\.0\.0\.1:9\/v1/.test(e.message),
  );
});

test('r1-1776 answers without searching; engineByModel keeps chosen models extractive', async () => {
  stub.requests.length = 0;
  const r = await run('normal', ask('Tell me about the Moon.', { model: 'r1-1776' }));
  assert.deepEqual(r.sources.citations, []);
  assert.equal(r.done.usage.searchQueries, 0);
  assert.match(
    r.content,
    /^<think>\nr1-1776 is an offline model[\s\S]*<\/think>\n\nArtemis II launches in April 2026 \. Starship must refuel first \.$/,
  );
  assert.match((stub.requests[0].messages as { content: string }[])[0].content, /Answer from your own knowledge/);
  const mixed = createAnswerService({
    search: searchService(app),
    config: {
      llmBaseUrl: stub.baseUrl,
      llmApiKey: '',
      llmModel: 'm',
      llmTimeoutMs: 2_000,
      engineByModel: { sonar: 'extractive' },
    },
  });
  stub.requests.length = 0;
  const ex = await mixed.complete(ask(Q));
  assert.equal(stub.requests.length, 0, 'sonar stayed extractive');
  assert.match(ex.content, /heat shield\.\[1\]/);
});

test('deep research with a generative engine: the model plans sub-questions and writes the report', async () => {
  stub.mode = 'normal';
  stub.requests.length = 0;
  const r = await service().complete(
    ask('What are the plans for the Artemis Moon missions?', {
      model: 'sonar-deep-research',
      reasoningEffort: 'low',
      returnRelatedQuestions: true,
    }),
  );
  assert.match(
    r.content,
    /Sub-questions:\n- When will Artemis II launch\?\n- What does the Artemis III landing depend on\?/,
  );
  assert.ok(r.usage.searchQueries >= 3);
  assert.deepEqual(r.relatedQuestions, [
    'Why was the Orion heat shield a problem?',
    'When will Starship test refueling?',
  ]);
});

test('when the search finds nothing the model is not asked: a plain "no articles" answer', async () => {
  stub.requests.length = 0;
  const r = await run(
    'normal',
    ask('What did the Quidditch league decide about golden snitches?', { model: 'sonar-reasoning' }),
  );
  assert.equal(stub.requests.length, 0);
  assert.deepEqual(r.sources.citations, []);
  assert.match(
    r.content,
    /No articles found, so the model is not asked[\s\S]*<\/think>\n\nI found no articles about .*Quidditch.* in your feeds\.$/,
  );
});

test('stream transcripts in the formats of vLLM, Ollama and llama.cpp', async () => {
  const fixture = (name: string) => new URL(`./__fixtures__/${name}`, import.meta.url).pathname;
  stub.transcript = fixture('vllm-reasoning.chunks.txt');
  const vllm = await run('replay', ask(Q, { model: 'sonar-reasoning' }));
  assert.match(
    vllm.content,
    /\nSource 1 says April 2026\.\n<\/think>\n\nArtemis II will launch no earlier than April 2026 \[1\]\.$/,
  );
  assert.deepEqual([vllm.done.usage.promptTokens, vllm.done.usage.completionTokens], [612, 29]);

  stub.transcript = fixture('ollama.chunks.txt');
  const ollama = await run('replay');
  assert.equal(ollama.content, 'Artemis II launches in April 2026 [1].', 'the [4] beyond the sources is dropped');
  assert.deepEqual([ollama.done.usage.promptTokens, ollama.done.usage.completionTokens], [598, 14]);

  stub.transcript = fixture('llamacpp-think.chunks.txt');
  const llama = await run('replay', ask(Q, { model: 'sonar-reasoning-pro' }));
  assert.match(
    llama.content,
    /\nThe first source gives the date\.\n<\/think>\n\nArtemis II launches in April 2026\[1\]\.$/,
  );
  assert.deepEqual([llama.done.usage.promptTokens, llama.done.usage.completionTokens], [640, 31]);
  const plain = await run('replay');
  assert.equal(plain.content, 'Artemis II launches in April 2026[1].', 'a non-reasoning model hides the <think>');
});

test('a follow-up question is rewritten by the model into a standalone search query', async () => {
  const r = await run('normal', {
    ...ask(''),
    model: 'sonar-reasoning',
    messages: [
      { role: 'user', content: 'What did the European Central Bank do with interest rates?' },
      { role: 'assistant', content: 'It cut the deposit rate.[1]' },
      { role: 'user', content: 'And what about inflation?' },
    ],
  });
  assert.match(
    r.content,
    /the model rewrote it as "European Central Bank inflation"\.\nSearched "European Central Bank inflation"/,
  );
  assert.ok(r.sources.citations.includes('https://econ.example.org/euro-zone-inflation'));
});
