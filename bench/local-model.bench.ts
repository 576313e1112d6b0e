// npm run bench:local-model — what Tidings adds to the local model's own generation, and the
// memory of one model copy per machine. On the tiny test model (src/answer/testing/tiny-gguf.ts),
// so it runs anywhere without a download; a real model's generation is slower, so the overhead's
// share of it only shrinks.
//
// 1. Time to first token, interleaved runs on one loaded model (medians):
//    - runtime: node-llama-cpp's generation alone, given the exact messages the pipeline built;
//    - host:    the same through the model host's Unix socket (what a worker of --workers N does);
//    - api:     POST /chat/completions (stream, sonar) on the real server: auth, search, prompt
//               (fitted in the model's tokens), engine, SSE, up to the first content chunk.
//    Overhead = api - runtime. Goal: at most 5 % of the time to first token, or 20 ms.
// 2. RSS of every process of `serve --workers 1` and `--workers 2`, with no model, the tiny model
//    and a larger one written the same way (--big-embd, --big-layers), after one answer.
//
//   npm run bench:local-model                       both parts
//   npm run bench:local-model -- --runs 40          more runs for part 1
//   npm run bench:local-model -- --skip-memory      part 1 only
import { readFileSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startServer } from '../src/server/server.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { tinyModelFile } from '../src/answer/testing/local-model.ts';
import { localModelState, startLocalModel } from '../src/answer/local/index.ts';
import { ModelHostClient, serveModel } from '../src/answer/local/host.ts';
import type { LocalModel } from '../src/answer/local/runtime.ts';
import type { ChatCall } from '../src/answer/engines/generative.ts';
import type { ChatMessage } from '../src/answer/types.ts';
import { tempDataDir } from '../test/helpers.ts';
import { answerService } from '../src/answer/service.ts';
import { serve, type Served } from '../test/serve-helper.ts';

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
const RUNS = opt('--runs', 20);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function firstContent(it: AsyncIterable<{ content?: string }>): Promise<void> {
  for await (const d of it) if (d.content) break;
}

async function ttft(): Promise<void> {
  const file = tinyModelFile();
  const dataDir = tempDataDir('tidings-bench-local-');
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir,
        port: 0,
        logLevel: 'silent',
        llmModel: file,
        llmThreads: 1,
        llmParallel: 1,
        llmContextTokens: 4096,
        rateLimits: { sonar: [100000, 100000, 100000, 100000, 100000, 100000] } as never,
      },
    }),
    silentLogger,
  );
  const { userId } = await loadFixture(app);
  const key = (await createApiKey(chatStore(app).keys, userId, 'bench', 0)).key;
  const state = await startLocalModel(app);
  const runtime = state.model!;
  // Records the messages the pipeline hands the model, so the runtime alone gets the same prompt.
  let recorded: ChatMessage[] = [];
  let calledAt = 0;
  const recorder: LocalModel = {
    label: runtime.label,
    contextTokens: runtime.contextTokens,
    status: () => runtime.status(),
    countTokens: (m, s) => runtime.countTokens(m, s),
    chat: (c: ChatCall) => {
      calledAt = performance.now();
      recorded = c.messages;
      return runtime.chat(c);
    },
    close: () => runtime.close(),
  };
  localModelState(app).model = recorder;
  const { url } = await startServer(app);
  const socket = join(dataDir, 'model.sock');
  const hostServer = await serveModel(runtime, socket);
  const client = new ModelHostClient(socket, runtime.contextTokens);
  const body = JSON.stringify({
    model: 'sonar',
    messages: [{ role: 'user', content: 'When will the Artemis II crew launch?' }],
    max_tokens: 8,
    stream: true,
  });
  const api = async () => {
    const t = performance.now();
    const r = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let first = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      if (!first && /"delta":\{[^}]*"content":"[^"]/.test(buf)) first = performance.now() - t;
    }
    return first;
  };
  const direct = async (m: LocalModel) => {
    const t = performance.now();
    await firstContent(m.chat({ messages: recorded, maxTokens: 8, sampling: {} }));
    const ms = performance.now() - t;
    // Let the call end (it frees its sequence) before the next measurement.
    await new Promise((r) => setTimeout(r, 20));
    return ms;
  };
  // The pipeline's own time before the model is called (validation, search, prompt fitted in the
  // model's tokens), in process: what the HTTP figures carry besides the machine's noise.
  const beforeModel = async () => {
    const t = performance.now();
    for await (const ev of answerService(app).stream({
      model: 'sonar',
      messages: [{ role: 'user', content: 'When will the Artemis II crew launch?' }],
      scope: { kind: 'subscriptions', userId },
      filters: {},
      searchContextSize: 'low',
      maxTokens: 8,
    }))
      if (ev.type === 'delta') break;
    await new Promise((r) => setTimeout(r, 20));
    return calledAt - t;
  };
  for (let i = 0; i < 3; i++) await api(); // warm-up (and records the prompt)
  const promptTokens = await runtime.countTokens(recorded);
  const times = { api: [] as number[], runtime: [] as number[], host: [] as number[], pipeline: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    times.pipeline.push(await beforeModel());
    times.api.push(await api());
    times.runtime.push(await direct(runtime));
    times.host.push(await direct(client));
  }
  // Medians, and the fastest run of each (on a shared, noisy machine the least disturbed run is
  // the closest to the work itself).
  const line = (label: string, xs: number[], base?: number[]) => {
    const [m, b] = [median(xs), Math.min(...xs)];
    const vs = base
      ? `  (+${(m - median(base)).toFixed(1)} ms, ${((100 * (m - median(base))) / median(base)).toFixed(1)} %; fastest +${(b - Math.min(...base)).toFixed(1)} ms, ${((100 * (b - Math.min(...base))) / Math.min(...base)).toFixed(1)} %)`
      : '';
    console.log(`${label.padEnd(24)} median ${m.toFixed(1)} ms, fastest ${b.toFixed(1)} ms${vs}`);
  };
  console.log(`## time to first token, tiny model, prompt ${promptTokens} tokens, ${RUNS} interleaved runs`);
  line('runtime alone', times.runtime);
  line('through the model host', times.host, times.runtime);
  line('/chat/completions (api)', times.api, times.runtime);
  console.log(
    `pipeline before the model call (in process): median ${median(times.pipeline).toFixed(2)} ms, fastest ${Math.min(...times.pipeline).toFixed(2)} ms`,
  );
  hostServer.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const rssMB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function memory(): Promise<void> {
  const dataDir = tempDataDir('tidings-bench-local-mem-');
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }), silentLogger);
  const { userId } = await loadFixture(app);
  const key = (await createApiKey(chatStore(app).keys, userId, 'bench', 0)).key;
  await app.close();
  const tiny = tinyModelFile();
  const big = tinyModelFile(
    { embd: opt('--big-embd', 1024), layers: opt('--big-layers', 12), heads: 8, kvHeads: 4 },
    'big.gguf',
  );
  console.log('\n## RSS after one answer (MB): supervisor / model host / workers, and the total');
  for (const [label, file] of [
    ['no model', ''],
    [`tiny model (${(statSync(tiny).size / 1e6).toFixed(1)} MB)`, tiny],
    [`larger model (${(statSync(big).size / 1e6).toFixed(0)} MB)`, big],
  ] as const) {
    for (const workers of [1, 2]) {
      const s: Served = await serve(['--data', dataDir, 'serve', '--port', '0', '--workers', String(workers)], {
        TIDINGS_WORKERS: String(workers),
        TIDINGS_SCHEDULER: 'false',
        TIDINGS_LOG_LEVEL: 'info',
        TIDINGS_LLM_MODEL: file,
        TIDINGS_LLM_THREADS: '1',
        TIDINGS_LLM_CONTEXT_TOKENS: '2048',
      });
      try {
        for (let i = 0; i < workers; i++) {
          const r = await fetch(`${s.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, connection: 'close' },
            body: JSON.stringify({
              model: 'sonar',
              messages: [{ role: 'user', content: 'Artemis II launch?' }],
              max_tokens: 8,
            }),
          });
          await r.text();
        }
        const pids = { supervisor: 0, host: 0, workers: [] as number[] };
        for (const line of s.lines) {
          const l = JSON.parse(line) as { msg?: string; pid?: number };
          if (l.msg === 'worker listening') pids.workers.push(l.pid!);
          if (l.msg === 'local model loaded (one copy for every worker)') pids.host = l.pid!;
        }
        if (workers === 1) pids.workers = [s.process.pid!];
        else pids.supervisor = s.process.pid!;
        const parts = [pids.supervisor, pids.host, ...pids.workers].map((p) => (p ? rssMB(p) : 0));
        const total = parts.reduce((x, y) => x + y, 0);
        console.log(
          `${label.padEnd(26)} --workers ${workers}: ${parts[0] ? parts[0].toFixed(0) : '-'} / ${parts[1] ? parts[1].toFixed(0) : '-'} / ${parts
            .slice(2)
            .map((x) => x.toFixed(0))
            .join(' + ')}  = ${total.toFixed(0)}`,
        );
      } finally {
        await s.stop();
      }
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
}

await ttft();
if (!argv.includes('--skip-memory')) await memory();
