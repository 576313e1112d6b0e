// Real clients against the real server (buildServer: reader API, auth and chat API together) on
// 127.0.0.1, with the real answer pipeline (extractive engine) over articles stored in SQLite:
// the OpenAI SDK, the Perplexity SDK, the AI SDK 7 with @ai-sdk/perplexity 4, and the stricter
// AI SDK 6 with @ai-sdk/perplexity 3 (npm aliases). Streaming and not: text, citations/sources in
// order, search results, usage, cost, finish reason, and error messages reaching the caller.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Perplexity from '@perplexity-ai/perplexity_ai';
import { generateText, streamText } from 'ai';
import { createPerplexity } from '@ai-sdk/perplexity';
import { generateText as generateText6, streamText as streamText6 } from 'ai6';
import { createPerplexity as createPerplexity3 } from 'ai-sdk-perplexity3';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../src/server/server.ts';
import type { App } from '../src/runtime/app.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { openApp } from './chat-api-helpers.ts';
import { tempDataDir, ROOT } from './helpers.ts';
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let app: App, server: FastifyInstance, url: string, apiKey: string;
const QUESTION = 'When will the Artemis II crew launch around the Moon?';
const NASA = /^https:\/\/www\.nasa\.gov\//;

before(async () => {
  app = await openApp(tempDataDir('tidings-chat-clients-'));
  const { userId } = await loadFixture(app);
  apiKey = (await createApiKey(chatStore(app).keys, userId, 'clients', 0)).key;
  server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const addr = server.server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
after(async () => {
  await server.close();
  await app.close();
});

test('each AI SDK provider resolves its own matching @ai-sdk/provider-utils (the aliased 3.x must not get 5.x)', async () => {
  const versionSeenFrom = (pkg: string, dep: string) => {
    const req = createRequire(join(ROOT, 'node_modules', pkg, 'package.json'));
    let dir = dirname(req.resolve(dep));
    const versionIn = (d: string) =>
      existsSync(join(d, 'package.json'))
        ? JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).version
        : undefined;
    while (!versionIn(dir)) dir = dirname(dir);
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string;
  };
  assert.match(versionSeenFrom('ai-sdk-perplexity3', '@ai-sdk/provider-utils'), /^4\./);
  assert.match(versionSeenFrom('ai6', '@ai-sdk/provider-utils'), /^4\./);
  assert.match(versionSeenFrom('@ai-sdk/perplexity', '@ai-sdk/provider-utils'), /^5\./);
});

/** The reference answer, fetched raw. */
async function reference(model = 'sonar'): Promise<any> {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: QUESTION }] }),
  });
  assert.equal(res.status, 200);
  return res.json();
}

function checkAnswer(content: string, citations: string[]) {
  assert.ok(citations.length > 0, 'the answer cites sources');
  assert.ok(
    citations.every((c) => NASA.test(c)),
    `only the key owner's subscriptions are searched: ${citations}`,
  );
  assert.match(content, /\[1\]/);
  assert.match(content, /Artemis II/);
}

test('OpenAI SDK: non-streaming and streaming, citations, search_results and usage.cost where it leaves them', async () => {
  const client = new OpenAI({ baseURL: url, apiKey, maxRetries: 0 });
  const ref = await reference();
  const r = await client.chat.completions.create({ model: 'sonar', messages: [{ role: 'user', content: QUESTION }] });
  const extra = r as unknown as {
    citations: string[];
    search_results: { url: string }[];
    usage: { cost: { total_cost: number } };
  };
  checkAnswer(r.choices[0].message.content!, extra.citations);
  assert.equal(r.choices[0].message.content, ref.choices[0].message.content);
  assert.deepEqual(extra.citations, ref.citations);
  assert.deepEqual(
    extra.search_results.map((s) => s.url),
    ref.citations,
  );
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.ok(r.usage!.prompt_tokens > 0 && r.usage!.completion_tokens > 0);
  assert.equal(extra.usage.cost.total_cost, ref.usage.cost.total_cost);

  const stream = await client.chat.completions.create({
    model: 'sonar',
    messages: [{ role: 'user', content: QUESTION }],
    stream: true,
  });
  let text = '';
  let first: any, last: any;
  for await (const chunk of stream) {
    first ??= chunk;
    last = chunk;
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, ref.choices[0].message.content, 'streamed text == non-streamed text');
  assert.deepEqual(first.citations, ref.citations);
  assert.equal(last.choices[0].finish_reason, 'stop');
  assert.deepEqual(last.usage, ref.usage);

  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] }),
    (e: any) =>
      e instanceof OpenAI.BadRequestError && /Invalid model 'gpt-4'\. Permitted models: sonar/.test(e.message),
  );
  await assert.rejects(
    new OpenAI({ baseURL: url, apiKey: 'wrong', maxRetries: 0 }).chat.completions.create({
      model: 'sonar',
      messages: [{ role: 'user', content: 'x' }],
    }),
    (e: any) => e instanceof OpenAI.AuthenticationError && /Invalid or revoked API key/.test(e.message),
  );
  const models = await client.models.list();
  assert.ok(models.data.some((m) => m.id === 'sonar-deep-research'));
});

test('Perplexity SDK: chat completions streaming and not, and the async API', async () => {
  const client = new Perplexity({ baseURL: url, apiKey, maxRetries: 0 });
  const ref = await reference('sonar-pro');
  const r = await client.chat.completions.create({
    model: 'sonar-pro',
    messages: [{ role: 'user', content: QUESTION }],
  });
  const content = r.choices[0].message.content as string;
  checkAnswer(content, r.citations!);
  assert.equal(content, ref.choices[0].message.content);
  assert.deepEqual(
    r.search_results!.map((s) => s.url),
    r.citations,
  );
  assert.equal(r.usage!.search_context_size, 'low');
  assert.equal(r.usage!.cost!.request_cost, 0.006);
  assert.equal(r.usage!.cost!.total_cost, ref.usage.cost.total_cost);

  const stream = await client.chat.completions.create({
    model: 'sonar-pro',
    messages: [{ role: 'user', content: QUESTION }],
    stream: true,
  });
  let text = '',
    finish: string | null | undefined,
    usage: any,
    citations: string[] | undefined | null;
  for await (const chunk of stream) {
    citations ??= chunk.citations;
    const d = chunk.choices[0]?.delta?.content;
    if (typeof d === 'string') text += d;
    if (chunk.choices[0]?.finish_reason) {
      finish = chunk.choices[0].finish_reason;
      usage = chunk.usage;
    }
  }
  assert.equal(text, content);
  assert.deepEqual(citations, r.citations);
  assert.equal(finish, 'stop');
  assert.equal(usage.cost.total_cost, ref.usage.cost.total_cost);

  await assert.rejects(
    client.chat.completions.create({ model: 'sonar', messages: [{ role: 'user', content: 'x' }], temperature: 3 }),
    (e: any) => e.status === 400 && /temperature must be a number from 0 to 2 \(got 3\)/.test(e.message),
  );

  const job = await client.async.chat.completions.create({
    request: { model: 'sonar-deep-research', messages: [{ role: 'user', content: QUESTION }] },
  });
  assert.equal(job.status, 'CREATED');
  let got = await client.async.chat.completions.get(job.id);
  for (let i = 0; i < 300 && (got.status === 'CREATED' || got.status === 'IN_PROGRESS'); i++) {
    await new Promise((res) => setTimeout(res, 50));
    got = await client.async.chat.completions.get(job.id);
  }
  assert.equal(got.status, 'COMPLETED', got.error_message ?? '');
  assert.match(got.response!.choices[0].message.content as string, /^<think>\n/);
  assert.ok((got.response!.usage as any).num_search_queries > 0);
  const list = await client.async.chat.completions.list();
  assert.ok(list.requests.some((x) => x.id === job.id && x.status === 'COMPLETED'));
});

for (const [label, gen, strm, create] of [
  ['AI SDK 7 + @ai-sdk/perplexity 4', generateText, streamText, createPerplexity],
  ['AI SDK 6 + @ai-sdk/perplexity 3', generateText6, streamText6, createPerplexity3],
] as const) {
  test(`${label}: generateText and streamText with sources, usage, cost, finish reason, errors`, async () => {
    const provider = (create as typeof createPerplexity)({ baseURL: url, apiKey });
    const ref = await reference('sonar');
    const r = await (gen as typeof generateText)({ model: provider('sonar'), prompt: QUESTION, maxRetries: 0 });
    assert.equal(r.text, ref.choices[0].message.content);
    assert.deepEqual(
      r.sources.map((s: any) => s.url),
      ref.citations,
      'sources in citation order',
    );
    assert.equal(r.finishReason, 'stop');
    assert.equal(r.usage.inputTokens, ref.usage.prompt_tokens);
    assert.equal(r.usage.outputTokens, ref.usage.completion_tokens);
    const meta = r.providerMetadata!.perplexity as any;
    assert.equal(meta.cost.totalCost, ref.usage.cost.total_cost);
    assert.equal(meta.cost.requestCost, 0.005);

    const s = (strm as typeof streamText)({
      model: provider('sonar'),
      prompt: QUESTION,
      maxRetries: 0,
      onError: ({ error }) => {
        throw error;
      },
    });
    const parts: string[] = [];
    const errors: unknown[] = [];
    for await (const p of s.fullStream as AsyncIterable<any>) {
      if (p.type === 'text-delta') parts.push(p.text ?? p.delta ?? p.textDelta);
      if (p.type === 'error') errors.push(p.error);
    }
    assert.deepEqual(errors, [], 'no stream errors');
    assert.equal(parts.join(''), ref.choices[0].message.content);
    assert.deepEqual(
      (await s.sources).map((x: any) => x.url),
      ref.citations,
    );
    assert.equal(await s.finishReason, 'stop');
    assert.equal((await s.usage).outputTokens, ref.usage.completion_tokens);
    assert.equal(((await s.providerMetadata)!.perplexity as any).cost.totalCost, ref.usage.cost.total_cost);

    const cut = await (gen as typeof generateText)({
      model: provider('sonar'),
      prompt: QUESTION,
      maxRetries: 0,
      maxOutputTokens: 5,
    });
    assert.equal(cut.finishReason, 'length');
    assert.equal(cut.usage.outputTokens, 5);
    assert.ok(ref.choices[0].message.content.startsWith(cut.text), 'the cut text is a prefix of the full answer');

    await assert.rejects(
      (gen as typeof generateText)({ model: provider('gpt-4'), prompt: 'x', maxRetries: 0 }),
      (e: any) => /Invalid model 'gpt-4'\. Permitted models/.test(e.message),
    );
    await assert.rejects(
      (gen as typeof generateText)({ model: provider('sonar'), prompt: 'x', maxRetries: 0, maxOutputTokens: 100000 }),
      (e: any) => /max_tokens must be an integer from 1 to 8192 for sonar/.test(e.message),
    );
  });
}

test('reasoning model through the AI SDK: <think> stays inline in the text', async () => {
  const r = await generateText({
    model: createPerplexity({ baseURL: url, apiKey })('sonar-reasoning'),
    prompt: QUESTION,
    maxRetries: 0,
  });
  assert.match(r.text, /^<think>\n[\s\S]*<\/think>\n\n/);
});

test('the server-wide 404: JSON for chat paths, the ClientLogin shape under /accounts', async () => {
  const chat = await fetch(`${url}/v1/nothing`);
  assert.equal(chat.status, 404);
  assert.deepEqual(Object.keys(((await chat.json()) as any).error).sort(), ['code', 'message', 'type']);
  const reader = await fetch(`${url}/accounts/nothing`);
  assert.equal(reader.status, 404);
  assert.match(await reader.text(), /^Error=NotFound\nInfo=unknown endpoint GET \/accounts\/nothing/);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
});

test("search_streams (our extension) narrows the search to the key owner's streams, on the real pipeline", async () => {
  const ask = (streams: string[]) =>
    fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sonar',
        messages: [{ role: 'user', content: QUESTION }],
        search_streams: streams,
      }),
    });
  const ok = await ask(['feed/https://www.nasa.gov/feed/']);
  assert.equal(ok.status, 200);
  const j = (await ok.json()) as any;
  assert.ok(j.citations.length > 0 && j.citations.every((c: string) => NASA.test(c)));
  const other = await ask(['feed/https://econ.example.org/feed']);
  assert.equal(other.status, 400);
  const e = (await other.json()) as any;
  assert.equal(e.error.type, 'bad_request');
  assert.match(e.error.message, /search_streams: not subscribed to feed\/https:\/\/econ\.example\.org\/feed/);
});

test('every model the extractive engine serves: streamed text == non-streamed text on the real pipeline', async () => {
  const send = async (model: string, stream: boolean) => {
    const res = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: QUESTION }] }),
    });
    assert.equal(res.status, 200, `${model}: ${res.status}`);
    return stream ? res.text() : res.json();
  };
  for (const model of ['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research']) {
    const plain = (await send(model, false)) as any;
    const sse = (await send(model, true)) as string;
    const chunks = sse
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)));
    assert.ok(sse.trimEnd().endsWith('data: [DONE]'), model);
    assert.equal(chunks.map((c) => c.choices[0].delta.content).join(''), plain.choices[0].message.content, model);
    assert.deepEqual(chunks[0].citations, plain.citations, model);
    assert.equal(chunks.at(-1).usage.completion_tokens, plain.usage.completion_tokens, model);
    assert.equal(chunks.at(-1).usage.cost.total_cost, plain.usage.cost.total_cost, model);
    if (model !== 'sonar' && model !== 'sonar-pro') assert.match(plain.choices[0].message.content, /^<think>\n/, model);
  }
});
