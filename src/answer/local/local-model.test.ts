// The local model runtime on a real GGUF file written by the test (random weights: the text is
// noise, the mechanics are real): the file itself, engine choice, a corrupt file refused with the
// fallback, the slot pool's limits and queue overflow, an abort freeing its sequence at once, and
// a prompt longer than the context fitted in the model's own tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { tinyGguf } from '../testing/tiny-gguf.ts';
import { nativeRuntimeSkip, tinyModelFile } from '../testing/local-model.ts';
import { groundingSource } from '../testing/grounding-source.ts';
import { LocalModelRuntime, SlotPool, type LocalModelSettings } from './runtime.ts';
import { EngineRegistry } from '../engines/select.ts';
import { GenerativeEngine } from '../engines/generative.ts';
import { LocalChatBackend } from '../engines/local.ts';
import type { AnswerError } from '../types.ts';
import type { EngineChunk, EngineRequest } from '../engines/engine.ts';
import { createApp } from '../../server/create-app.ts';
import { loadConfig } from '../../config/config.ts';
import { silentLogger } from '../../log/logger.ts';
import { tempDataDir } from '../../../test/helpers.ts';
import { startLocalModel } from './index.ts';
import { answerService } from '../service.ts';
import { modelRuntimeStatus } from '../../models/index.ts';

const skip = await nativeRuntimeSkip();
const file = tinyModelFile();
const settings = (over: Partial<LocalModelSettings> = {}): LocalModelSettings => ({
  file,
  threads: 1,
  gpuLayers: 0,
  parallel: 1,
  queue: 1,
  contextTokens: 2048,
  ...over,
});

let runtime: LocalModelRuntime;
before(async () => {
  if (!skip) runtime = await LocalModelRuntime.load(settings());
});
after(async () => {
  await runtime?.close();
});

const call = (content: string, maxTokens: number, signal?: AbortSignal) =>
  runtime.chat({ messages: [{ role: 'user', content }], maxTokens, sampling: {}, signal });

test('the tiny GGUF: under 1 MB, the same bytes for the same seed, loaded on the CPU with the settings', {
  skip,
}, async () => {
  assert.ok(statSync(file).size < 1_000_000, `${statSync(file).size} bytes`);
  assert.deepEqual(tinyGguf({ seed: 1 }), readFileSync(file));
  assert.notDeepEqual(tinyGguf({ seed: 2 }), readFileSync(file));
  const s = await runtime.status();
  assert.equal(s.engine, 'local');
  assert.equal(s.state, 'ready');
  assert.equal(s.backend, 'cpu');
  assert.equal(s.gpuLayers, 0);
  assert.equal(s.threads, 1);
  assert.equal(s.contextTokens, 2048);
  assert.ok(s.memoryBytes! > 500_000, 'the weights and the context are counted');
  assert.equal(s.pid, process.pid);
  // It really writes: as many tokens as asked (the file never samples end-of-turn), printable.
  let text = '';
  let usage: { completionTokens: number } | undefined;
  for await (const d of call('Hello there', 20)) {
    text += d.content ?? '';
    if (d.usage) usage = d.usage;
  }
  assert.equal(usage?.completionTokens, 20);
  assert.match(text, /^[\x20-\x7e\n]+$/);
});

test('engine choice: local when a model is loaded, else openai when a server is set, else extractive; engineByModel wins', {
  skip,
}, () => {
  const base = { llmApiKey: '', llmModel: '', llmTimeoutMs: 1000, engineByModel: {} };
  const none = new EngineRegistry({ ...base, llmBaseUrl: '' });
  assert.equal(none.kindFor('sonar'), 'extractive');
  assert.equal(
    new EngineRegistry({ ...base, llmBaseUrl: 'http://127.0.0.1:1/v1', llmModel: 'm' }).kindFor('sonar'),
    'openai',
  );
  const local = new EngineRegistry({ ...base, llmBaseUrl: 'http://127.0.0.1:1/v1', llmModel: 'm' }, () => runtime);
  for (const m of [
    'sonar',
    'sonar-pro',
    'sonar-reasoning',
    'sonar-reasoning-pro',
    'sonar-deep-research',
    'r1-1776',
  ] as const)
    assert.equal(local.kindFor(m), 'local', m);
  const engine = local.engineFor('sonar');
  assert.ok(engine.generative);
  assert.equal(engine.name, 'local model tiny.gguf');
  assert.equal(local.engineFor('r1-1776'), engine, 'one engine for every model');
  const mixed = new EngineRegistry({ ...base, llmBaseUrl: '', engineByModel: { sonar: 'extractive' } }, () => runtime);
  assert.equal(mixed.kindFor('sonar'), 'extractive');
  assert.equal(mixed.kindFor('sonar-pro'), 'local');
  const wantsLocal = new EngineRegistry({ ...base, llmBaseUrl: '', engineByModel: { sonar: 'local' } });
  assert.throws(
    () => wantsLocal.engineFor('sonar'),
    (e: AnswerError) => e.code === 'engine_unavailable' && /no local model is loaded.*model pull/.test(e.message),
  );
  assert.throws(
    () => new EngineRegistry({ ...base, llmBaseUrl: '', engineByModel: { sonar: 'gguf' } }).kindFor('sonar'),
    /known engines: extractive, openai, local/,
  );
});

test('a corrupt model file is refused at start-up with the reason; the server falls back to extractive and says so', {
  skip,
}, async () => {
  const bytes = readFileSync(file);
  const corrupt = tinyModelFile({}, 'corrupt.gguf');
  writeFileSync(corrupt, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await assert.rejects(LocalModelRuntime.load(settings({ file: corrupt })), (e: Error) => {
    assert.match(e.message, /cannot load the model file .*corrupt\.gguf/);
    assert.match(e.message, /pull it again/);
    assert.match(e.message, /not within the file bounds/, "llama.cpp's own reason is passed on");
    return true;
  });
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: { dataDir: tempDataDir('tidings-local-'), llmModel: corrupt, logLevel: 'silent' },
    }),
    silentLogger,
  );
  try {
    const state = await startLocalModel(app);
    assert.equal(state.model, undefined);
    assert.equal(state.status.state, 'failed');
    assert.equal(state.status.engine, 'extractive');
    assert.match(state.status.error!, /corrupt\.gguf/);
    const shown = await modelRuntimeStatus();
    assert.equal(shown.state, 'failed', 'the admin panel and /readyz see the failure');
    // Answers still come, from the extractive engine (no articles: a plain decline).
    const r = await answerService(app).complete({
      model: 'sonar',
      messages: [{ role: 'user', content: 'What happened?' }],
      scope: { kind: 'instance' },
      filters: {},
      searchContextSize: 'low',
    });
    assert.equal(typeof r.content, 'string');
  } finally {
    await app.close();
  }
});

test('one Llama per process: a second runtime shares it, and closing one or failing a load leaves the other writing', {
  skip,
}, async () => {
  const second = await LocalModelRuntime.load(settings());
  const llamaOf = (r: LocalModelRuntime) => (r as unknown as { llama: object }).llama;
  assert.equal(llamaOf(second), llamaOf(runtime), 'no second getLlama (each forks a process to test the binary)');
  await second.close();
  const corrupt = tinyModelFile({}, 'corrupt-2.gguf');
  writeFileSync(corrupt, readFileSync(file).subarray(0, 1000));
  await assert.rejects(LocalModelRuntime.load(settings({ file: corrupt })), /cannot load the model file/);
  let usage: { completionTokens: number } | undefined;
  for await (const d of call('Still there?', 5)) if (d.usage) usage = d.usage;
  assert.equal(usage?.completionTokens, 5);
});

test('slot pool: up to `size` at once, `queueLength` wait, the next is refused at once', async () => {
  const pool = new SlotPool(2, 1);
  await pool.acquire();
  await pool.acquire();
  let third = false;
  const waiting = pool.acquire().then(() => (third = true));
  await assert.rejects(
    pool.acquire(),
    (e: AnswerError) => e.code === 'overloaded' && /TIDINGS_LLM_QUEUE/.test(e.message),
  );
  assert.equal(pool.queued, 1);
  pool.release();
  await waiting;
  assert.ok(third);
  assert.equal(pool.running, 2);
  // A waiter that aborts leaves the queue.
  const ac = new AbortController();
  const aborted = pool.acquire(ac.signal);
  ac.abort(new Error('gone'));
  await assert.rejects(aborted, /gone/);
  assert.equal(pool.queued, 0);
});

test('parallel limit and queue on the real model: the third call is refused; an abort mid-stream frees the sequence at once', {
  skip,
}, async () => {
  // parallel 1, queue 1: A writes, B waits, C is refused.
  const acA = new AbortController();
  const a = call('first', 1500, acA.signal)[Symbol.asyncIterator]();
  assert.ok((await a.next()).value.content !== undefined, 'A streams');
  const bChunks: string[] = [];
  const b = (async () => {
    for await (const d of call('second', 5)) {
      if (d.content) bChunks.push(d.content);
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  const st = await runtime.status();
  assert.deepEqual([st.running, st.queued], [1, 1]);
  await assert.rejects(
    async () => {
      for await (const _ of call('third', 5));
    },
    (e: AnswerError) => e.code === 'overloaded',
  );
  // A's client goes away mid-stream: by the time A's stream has ended, its sequence is B's
  // (A's 1500 tokens would take seconds more).
  acA.abort(new Error('client went away'));
  await assert.rejects(a.next(), /client went away/);
  const handedOver = await runtime.status();
  assert.deepEqual([handedOver.running, handedOver.queued], [1, 0], 'B runs, nobody waits');
  await b;
  assert.ok(bChunks.length > 0, 'B was answered');
  const after = await runtime.status();
  assert.deepEqual([after.running, after.queued], [0, 0]);
});

test("a prompt longer than the context is fitted as the prompt builder does, counted in the model's own tokens", {
  skip,
}, async () => {
  const long = 'The council met on Monday and discussed the budget, the river, the bridge and the election. '.repeat(
    200,
  );
  const req: EngineRequest = {
    question: 'What did the council discuss?',
    history: [
      { role: 'user', content: `An old question ${long.slice(0, 4000)}` },
      { role: 'assistant', content: 'An old answer.' },
    ],
    system: [],
    sources: [1, 2, 3, 4].map((n) => groundingSource(n, `Council story ${n}`, long)),
    searched: true,
    style: 'concise',
    maxTokens: 40,
    sampling: {},
  };
  const backend = new LocalChatBackend(runtime, 'tiny');
  const seen: number[] = [];
  const counting = new GenerativeEngine({
    name: backend.name,
    contextTokens: backend.contextTokens,
    stream: (c) => {
      void backend.countTokens(c.messages).then((n) => seen.push(n));
      return backend.stream(c);
    },
    countTokens: (m) => backend.countTokens(m),
  });
  const chunks: EngineChunk[] = [];
  for await (const c of counting.answer(req)) chunks.push(c);
  const end = chunks.at(-1)!;
  assert.equal(end.type, 'end');
  if (end.type !== 'end') return;
  assert.ok(end.usage!.promptTokens <= 2048 - 40, `prompt ${end.usage!.promptTokens} tokens`);
  assert.ok(end.usage!.promptTokens > 1024, 'the context is used, not emptied');
  assert.equal(end.usage!.completionTokens, 40);
  assert.equal(end.finishReason, 'length');
  // Unfitted, the same request is far over the context.
  const { buildPrompt } = await import('../engines/prompt.ts');
  assert.ok((await backend.countTokens(buildPrompt(req, 2048))) > 2048);
  // The question itself survives the fitting.
  assert.ok(chunks.some((c) => c.type === 'text'));
});

test('a caller that stops reading frees its sequence for the very next call', { skip }, async () => {
  // The consumer's return() (a stop sequence, max_tokens, a client gone) ends the generation; the
  // next call, admitted at once, must find the sequence back (node-llama-cpp reclaims it later).
  for (let i = 0; i < 5; i++) {
    for await (const d of call(`question ${i}`, 500)) if (d.content) break;
  }
  let text = '';
  for await (const d of call('last', 5)) text += d.content ?? '';
  assert.ok(text.length > 0);
  const s = await runtime.status();
  assert.deepEqual([s.running, s.queued], [0, 0]);
});

test('two sequences write at once (TIDINGS_LLM_PARALLEL=2); with no queue the third call is refused', {
  skip,
}, async () => {
  const two = await LocalModelRuntime.load(settings({ parallel: 2, queue: 0 }));
  try {
    const ac = new AbortController();
    const streams = ['one', 'two'].map((q) =>
      two
        .chat({ messages: [{ role: 'user', content: q }], maxTokens: 1500, sampling: {}, signal: ac.signal })
        [Symbol.asyncIterator](),
    );
    // Both have written before either could finish its 1500 tokens.
    for (const s of streams) assert.ok((await s.next()).value?.content !== undefined);
    for (const s of streams) assert.ok((await s.next()).value?.content !== undefined);
    assert.equal((await two.status()).running, 2);
    await assert.rejects(
      async () => {
        for await (const _ of two.chat({ messages: [{ role: 'user', content: 'three' }], maxTokens: 5, sampling: {} }));
      },
      (e: AnswerError) => e.code === 'overloaded',
    );
    ac.abort(new Error('done'));
    for (const s of streams) await assert.rejects(s.next(), /done/);
    assert.equal((await two.status()).running, 0);
  } finally {
    await two.close();
  }
});
