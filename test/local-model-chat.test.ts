// The six models end to end through /chat/completions on the local engine: a real GGUF written by
// the test, loaded by node-llama-cpp, behind the real server, search index and pipelines. The
// model's text is noise (random weights); the wire shape, the citations, the <think> block and the
// usage are checked, streamed and not; then the overload answer (429) and an abort that frees its
// sequence for the request waiting behind it; and /readyz's model details.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startServer } from '../src/server/server.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { nativeRuntimeSkip, tinyModelFile } from '../src/answer/testing/local-model.ts';
import { localModelState, localModelStatus, startLocalModel } from '../src/answer/local/index.ts';
import { sseEvents } from './chat-api-helpers.ts';
import { tempDataDir } from './helpers.ts';

const skip = await nativeRuntimeSkip();
let app: App;
let url: string;
let key: string;

before(async () => {
  if (skip) return;
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir: tempDataDir('tidings-local-chat-'),
      port: 0,
      logLevel: 'silent',
      llmModel: tinyModelFile(),
      llmThreads: 1,
      llmParallel: 1,
      llmQueue: 1,
      llmContextTokens: 4096,
      betaOpenToAll: true,
      rateLimits: { sonar: [1000, 1000, 1000, 1000, 1000, 1000] } as never,
    },
  });
  app = await createApp(config, silentLogger);
  const { userId } = await loadFixture(app);
  key = (await createApiKey(chatStore(app).keys, userId, 'test', 0)).key;
  await startLocalModel(app);
  url = (await startServer(app)).url;
});
after(async () => {
  await app?.close();
});

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    signal,
  });

const MODELS = ['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research', 'r1-1776'];
const REASONING = new Set(['sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research', 'r1-1776']);
const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'When will the Artemis II crew launch?' }],
  // The <think> block's pipeline steps (deep research: plan, rounds, reading) count against
  // max_tokens too: room for them and for the model's words after them.
  max_tokens: model === 'sonar-deep-research' ? 1200 : model.startsWith('sonar-reasoning') ? 600 : 48,
  ...extra,
});

/** What every answer of `model` must show, whatever the noise the model wrote. */
function checkAnswer(model: string, content: string, citations: string[], usage: any, finish: string): void {
  if (model === 'r1-1776') assert.deepEqual(citations, [], 'offline chat: no search, no citations');
  else {
    assert.ok(citations.length >= 2, `${model}: citations from the feeds (${citations.length})`);
    assert.ok(citations.every((c) => c.startsWith('https://')));
    assert.ok(
      citations.some((c) => c.includes('artemis')),
      'the Artemis articles are cited',
    );
  }
  if (REASONING.has(model)) {
    assert.match(content, /^<think>\n[\s\S]+\n<\/think>\n\n/, `${model}: opens with its <think> block`);
    const think = content.slice(0, content.indexOf('</think>'));
    if (model !== 'r1-1776') assert.match(think, /Searched "/, 'the pipeline steps are in <think>');
  } else assert.doesNotMatch(content, /<think>/);
  const answer = content.replace(/^<think>[\s\S]*?<\/think>\n\n/, '');
  assert.ok(answer.length > 0, `${model}: the model wrote an answer`);
  // Every [n] left in the text points into the citations (out-of-range markers are dropped).
  for (const m of answer.matchAll(/\[(\d+)\]/g)) assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= citations.length);
  assert.ok(usage.prompt_tokens > 100, `${model}: prompt tokens counted by the model (${usage.prompt_tokens})`);
  assert.ok(usage.completion_tokens > 0);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  assert.equal(finish, 'length', 'the test model never ends a turn: it stops at max_tokens');
}

for (const model of MODELS) {
  test(`${model} on the local model, not streamed: spec shape, citations, <think>, usage`, { skip }, async () => {
    const r = await post(body(model));
    assert.equal(r.status, 200, await r.clone().text());
    const c: any = await r.json();
    assert.equal(c.object, 'chat.completion');
    assert.equal(c.model, model);
    assert.deepEqual(
      c.search_results.map((s: { url: string }) => s.url),
      c.citations,
    );
    checkAnswer(model, c.choices[0].message.content, c.citations, c.usage, c.choices[0].finish_reason);
  });

  test(`${model} on the local model, streamed: chunks, then finish and usage`, { skip }, async () => {
    const r = await post(body(model, { stream: true }));
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
    const events = sseEvents(await r.text());
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.filter((e) => e !== '[DONE]');
    assert.ok(chunks.length > 3, 'tokens arrive in several chunks');
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === model));
    const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    const last = chunks.at(-1);
    checkAnswer(model, content, last.citations ?? chunks[0].citations, last.usage, last.choices[0].finish_reason);
  });
}

test('/readyz says the local model answers, on which backend, with how many threads', { skip }, async () => {
  const r: any = await (await fetch(`${url}/readyz`)).json();
  assert.equal(r.ok, true);
  assert.equal(r.model.engine, 'local');
  assert.equal(r.model.state, 'ready');
  assert.equal(r.model.backend, 'cpu');
  assert.equal(r.model.threads, 1);
  assert.equal(r.model.pid, process.pid, 'a single process holds the model itself');
  assert.match(r.model.file, /tiny\.gguf$/);
});

test('a thinking model is asked to think only where its thoughts are shown (reasoning models), not for sonar or the short asks', {
  skip,
}, async () => {
  const state = localModelState(app);
  const real = state.model!;
  const calls: { thinking: boolean | undefined; maxTokens: number | undefined }[] = [];
  state.model = {
    label: real.label,
    contextTokens: real.contextTokens,
    status: () => real.status(),
    countTokens: (m, sig) => real.countTokens(m, sig),
    close: () => real.close(),
    chat: (c) => {
      calls.push({ thinking: c.thinking, maxTokens: c.maxTokens });
      return real.chat(c);
    },
  };
  try {
    assert.equal((await post(body('sonar', { return_related_questions: true }))).status, 200);
    assert.equal(calls[0]?.thinking, false, 'sonar shows no reasoning: no thinking');
    assert.ok(calls.length >= 2, 'related questions asked the model too');
    assert.ok(
      calls.slice(1).every((c) => c.thinking === false && c.maxTokens === 200),
      JSON.stringify(calls),
    );
    calls.length = 0;
    assert.equal((await post(body('sonar-reasoning'))).status, 200);
    assert.equal(calls[0]?.thinking, true, 'sonar-reasoning shows its reasoning in <think>');
  } finally {
    state.model = real;
  }
});

test("past the parallel limit and the queue a request gets 429 in Sonar's shape; an abort mid-stream hands its sequence to the waiting request", {
  skip,
}, async () => {
  // TIDINGS_LLM_PARALLEL=1, TIDINGS_LLM_QUEUE=1: A streams, B waits, C is refused.
  const long = {
    model: 'r1-1776',
    messages: [{ role: 'user', content: 'Tell a long story.' }],
    max_tokens: 3500,
    stream: true,
  };
  const acA = new AbortController();
  const a = await post(long, acA.signal);
  const readerA = a.body!.getReader();
  await readerA.read();
  await readerA.read();
  const b = post({ ...long, max_tokens: 8 });
  // B is queued once the runtime counts it.
  for (let i = 0; i < 200 && (await localModelStatus(app)).queued !== 1; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal((await localModelStatus(app)).queued, 1);
  const c = await post({ ...long, stream: false, max_tokens: 8 });
  assert.equal(c.status, 429);
  assert.equal(c.headers.get('retry-after'), '2');
  const err: any = await c.json();
  assert.equal(err.error.type, 'rate_limit_exceeded');
  assert.equal(err.error.code, 429);
  assert.match(err.error.message, /local model is busy/);
  // A's client goes away: the server aborts A's generation and B is written at once.
  acA.abort();
  const rb = await b;
  assert.equal(rb.status, 200);
  const events = sseEvents(await rb.text());
  assert.equal(events.at(-1), '[DONE]');
  const s = await localModelStatus(app);
  assert.deepEqual([s.running, s.queued], [0, 0], 'A no longer holds a sequence');
});
