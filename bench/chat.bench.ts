// Chat completions API benchmark (`npm run bench:chat [articles=2000] [seconds=4]`).
// `npm run bench:chat -- --workers N [articles] [seconds]`: only end-to-end throughput at 16
// clients through `tidings serve --workers 1` and then `--workers N` (real processes on one data
// folder or --backend postgres / BENCH_DATABASE_URL), same run, with the ratio.
//
// 1. Extractive engine on the news corpus (../shared/corpus/news), sonar, the key owner's
//    subscriptions as scope: requests/s and p50/p99 latency through the HTTP API at 1, 16 and 64
//    concurrent clients; the same questions through the pipeline directly (answerService.complete)
//    as the baseline of the same run -> the API layer's overhead (ms and ratio); streaming time to
//    first byte.
// 2. A stub OpenAI-compatible upstream streaming tokens at a fixed rate (first token after 50 ms,
//    then one per 5 ms): time to first token through the API over the upstream's own.
// Server and load generator share this process (2 cores): requests/s are a floor.
// --backend postgres runs it on PostgreSQL (a throwaway cluster; or --database-url postgres://…, or
// BENCH_DATABASE_URL=postgres://…): a new database on that server per part.
import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { buildServer } from '../src/server/server.ts';
import { answerService } from '../src/answer/service.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { hasNews, readArticles, readQuestions, loadArticles } from '../src/answer/testing/news-corpus.ts';
import { freshPostgresDatabase, tempDataDir } from '../test/helpers.ts';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { chatApiPlugin } from '../src/chat-api/plugin.ts';
import type { AnswerEvent, AnswerRequest, AnswerService } from '../src/answer/types.ts';
import { testSql } from '../src/store/testing.ts';
import { benchBackend, flagValue, positionals } from './backend.ts';

const ARGS = positionals(process.argv.slice(2), ['backend', 'database-url', 'workers', 'rounds']);
const ARTICLES = Number(ARGS[0] ?? 2000);
const SECONDS = Number(ARGS[1] ?? 4);
const BACKEND = await benchBackend(
  process.env.BENCH_DATABASE_URL && !process.argv.includes('--database-url')
    ? [...process.argv, '--database-url', process.env.BENCH_DATABASE_URL]
    : process.argv,
);
const WORKERS = Number(flagValue(process.argv, 'workers') ?? 0);
/** --rounds R: the --workers run alternates 1 and N workers R times (2 by default). */
const ROUNDS = Number(flagValue(process.argv, 'rounds') ?? 2);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

interface Env {
  app: App;
  server: FastifyInstance;
  pool: Pool;
  key: string;
  userId: number;
  close(): Promise<void>;
}

async function startEnv(
  overrides: Partial<Config>,
  load: (app: App) => Promise<unknown> | void,
  answers?: AnswerService,
): Promise<Env> {
  const databaseUrl = BACKEND.databaseUrl ? freshPostgresDatabase(BACKEND.databaseUrl) : '';
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        databaseUrl,
        dataDir: tempDataDir('tidings-chat-bench-'),
        logLevel: 'silent',
        rateLimits: { sonar: [1e9, 1e9, 1e9, 1e9, 1e9, 1e9] },
        ...overrides,
      },
    }),
    silentLogger,
  );
  const userId = (await app.users.create('bench', 'x')).id;
  await load(app);
  await testSql(app)
    .prepare(
      // WHERE true: SQLite reads `SELECT … FROM t ON CONFLICT` as a join constraint without it.
      'INSERT INTO subscriptions (user_id, feed_id, created_at) SELECT ?, id, 0 FROM feeds WHERE true ON CONFLICT DO NOTHING',
    )
    .run(userId);
  const key = (await createApiKey(chatStore(app).keys, userId, 'bench', 5)).key;
  let server: FastifyInstance;
  if (answers) {
    server = Fastify({ loggerInstance: silentLogger as FastifyBaseLogger });
    await server.register(chatApiPlugin, { app, answerService: answers });
  } else server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const addr = server.server.address();
  const pool = new Pool(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, {
    connections: 128,
    pipelining: 1,
  });
  return {
    app,
    server,
    pool,
    key,
    userId,
    async close() {
      await pool.close();
      await server.close();
      await app.close();
    },
  };
}

function body(q: string, stream = false): string {
  return JSON.stringify({ model: 'sonar', stream, messages: [{ role: 'user', content: q }] });
}

/** One request; returns total ms and ms to the first body byte (stream) or first content token. */
async function call(
  env: Env,
  q: string,
  stream = false,
  firstToken = false,
): Promise<{ total: number; first: number }> {
  const t0 = performance.now();
  const res = await env.pool.request({
    path: '/chat/completions',
    method: 'POST',
    body: body(q, stream),
    headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json' },
  });
  let first = NaN;
  let buf = '';
  for await (const chunk of res.body) {
    if (Number.isNaN(first)) {
      if (!firstToken) first = performance.now() - t0;
      else {
        buf += chunk.toString();
        if (/"content":"[^"]/.test(buf)) first = performance.now() - t0;
      }
    }
  }
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  return { total: performance.now() - t0, first };
}

async function load(concurrency: number, seconds: number, questions: string[], run: (q: string) => Promise<unknown>) {
  const lat: number[] = [];
  let i = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const q = questions[i++ % questions.length];
        const s = performance.now();
        await run(q);
        lat.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return { rps: lat.length / elapsed, p50: pct(lat, 0.5), p99: pct(lat, 0.99), n: lat.length };
}

async function extractiveBench(lines: string[]): Promise<void> {
  if (!hasNews) {
    lines.push('news corpus missing (../shared/corpus/news): extractive part skipped');
    return;
  }
  const articles = readArticles(ARTICLES);
  const questions = readQuestions().map((q) => q.question);
  const t = performance.now();
  const env = await startEnv({}, (app) => loadArticles(app, articles));
  lines.push(
    `corpus: ${articles.length} articles loaded in ${((performance.now() - t) / 1000).toFixed(1)} s; ${questions.length} questions; model sonar, extractive engine`,
  );
  const svc = answerService(env.app);
  const direct = (q: string) =>
    svc.complete({
      model: 'sonar',
      messages: [{ role: 'user', content: q }],
      scope: { kind: 'subscriptions', userId: env.userId },
      filters: {},
      searchContextSize: 'low',
      temperature: 0.2,
      topP: 0.9,
      topK: 0,
    });
  for (const q of questions.slice(0, 20)) {
    await direct(q);
    await call(env, q);
  } // warm-up

  // Same questions, sequential, alternating direct and API so both see the same cache state.
  const d: number[] = [],
    a: number[] = [];
  const sample = questions.slice(0, Math.min(questions.length, 200));
  for (const q of sample) {
    let s = performance.now();
    await direct(q);
    d.push(performance.now() - s);
    s = performance.now();
    await call(env, q);
    a.push(performance.now() - s);
  }
  const dp50 = pct(d, 0.5),
    ap50 = pct(a, 0.5);
  lines.push(
    '',
    '| measure (sequential, same questions) | p50 | p99 |',
    '|---|---|---|',
    `| pipeline direct (answerService.complete) | ${ms(dp50)} | ${ms(pct(d, 0.99))} |`,
    `| through the HTTP API (non-streaming) | ${ms(ap50)} | ${ms(pct(a, 0.99))} |`,
    `| **API layer overhead** | **${ms(ap50 - dp50)}** (ratio ${(ap50 / dp50).toFixed(2)}) | ${ms(pct(a, 0.99) - pct(d, 0.99))} |`,
  );

  const ttfb: number[] = [];
  for (const q of sample.slice(0, 100)) ttfb.push((await call(env, q, true)).first);
  lines.push(
    `| streaming time to first byte (first SSE chunk, citations) | ${ms(pct(ttfb, 0.5))} | ${ms(pct(ttfb, 0.99))} |`,
  );

  lines.push(
    '',
    '| clients | API requests/s | p50 | p99 | pipeline direct requests/s (same concurrency) | ratio |',
    '|---|---|---|---|---|---|',
  );
  for (const c of [1, 16, 64]) {
    const api = await load(c, SECONDS, questions, (q) => call(env, q));
    const dir = await load(c, SECONDS, questions, direct);
    lines.push(
      `| ${c} | ${api.rps.toFixed(0)} | ${ms(api.p50)} | ${ms(api.p99)} | ${dir.rps.toFixed(0)} | ${(api.rps / dir.rps).toFixed(2)} |`,
    );
  }
  await env.close();
}

/** An OpenAI-compatible upstream: first token after FIRST_MS, then one token per TOKEN_MS. */
const FIRST_MS = 50,
  TOKEN_MS = 5,
  TOKENS = 40;
function stubUpstream(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      const base = { id: 'x', object: 'chat.completion.chunk', created: 0, model: 'stub' };
      let n = 0;
      const tick = () => {
        if (n < TOKENS) {
          chunk({
            ...base,
            choices: [{ index: 0, delta: { role: 'assistant', content: `word${n} ` }, finish_reason: null }],
          });
          n++;
          setTimeout(tick, TOKEN_MS);
          return;
        }
        chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        chunk({
          ...base,
          choices: [],
          usage: { prompt_tokens: 100, completion_tokens: TOKENS, total_tokens: 100 + TOKENS },
        });
        res.end('data: [DONE]\n\n');
      };
      setTimeout(tick, FIRST_MS);
    });
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      r({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/v1` });
    }),
  );
}

async function upstreamBench(lines: string[]): Promise<void> {
  const stub = await stubUpstream();
  const env = await startEnv(
    { llmBaseUrl: stub.url, llmModel: 'stub', engineByModel: { sonar: 'openai' } },
    async (app) => {
      if (hasNews) await loadArticles(app, readArticles(300));
    },
  );
  const questions = hasNews ? readQuestions().map((q) => q.question) : ['What happened this week?'];
  const upstreamPool = new Pool(stub.url.replace(/\/v1$/, ''), { connections: 4 });
  const own: number[] = [],
    ours: number[] = [],
    direct: number[] = [];
  const svc = answerService(env.app);
  for (let i = 0; i < 40; i++) {
    const q = questions[i % questions.length];
    const td = performance.now();
    let firstDirect = NaN;
    for await (const ev of svc.stream({
      model: 'sonar',
      messages: [{ role: 'user', content: q }],
      scope: { kind: 'subscriptions', userId: env.userId },
      filters: {},
      searchContextSize: 'low',
    })) {
      if (ev.type === 'delta' && ev.text && Number.isNaN(firstDirect)) firstDirect = performance.now() - td;
    }
    if (i >= 5) direct.push(firstDirect);
    const t0 = performance.now();
    const res = await upstreamPool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    let first = NaN;
    for await (const c of res.body)
      if (Number.isNaN(first) && c.toString().includes('"content"')) first = performance.now() - t0;
    if (i >= 5) own.push(first);
    const r = await call(env, q, true, true);
    if (i >= 5) ours.push(r.first);
  }
  lines.push(
    '',
    `Stub upstream (first token after ${FIRST_MS} ms, then one per ${TOKEN_MS} ms), streaming, sequential, 300 articles:`,
    '',
    '| time to first token | p50 | p99 |',
    '|---|---|---|',
    `| upstream alone | ${ms(pct(own, 0.5))} | ${ms(pct(own, 0.99))} |`,
    `| pipeline directly (search + prompt + upstream) | ${ms(pct(direct, 0.5))} | ${ms(pct(direct, 0.99))} |`,
    `| through the API (pipeline + HTTP + SSE) | ${ms(pct(ours, 0.5))} | ${ms(pct(ours, 0.99))} |`,
    `| **added by Tidings over the upstream** | **${ms(pct(ours, 0.5) - pct(own, 0.5))}** | ${ms(pct(ours, 0.99) - pct(own, 0.99))} |`,
    `| of which the API layer (API − pipeline directly) | ${ms(pct(ours, 0.5) - pct(direct, 0.5))} | |`,
  );
  await upstreamPool.close();
  await env.close();
  stub.server.close();
}

/** A pipeline that costs nothing: what the API layer alone can serve. */
const CONSTANT: AnswerService = {
  async *stream(_req: AnswerRequest): AsyncIterable<AnswerEvent> {
    yield {
      type: 'sources',
      citations: ['https://a.example/1', 'https://b.example/2'],
      searchResults: [
        { title: 'A', url: 'https://a.example/1', date: '2026-11-20', last_updated: null, snippet: 'a', source: 'web' },
        { title: 'B', url: 'https://b.example/2', date: '2026-11-20', last_updated: null, snippet: 'b', source: 'web' },
      ],
    };
    for (const w of 'NASA launched the Artemis mission this week [1], with four astronauts aboard [2].'.split(/(?<= )/))
      yield { type: 'delta', text: w };
    yield { type: 'done', finishReason: 'stop', usage: { promptTokens: 20, completionTokens: 14, searchQueries: 1 } };
  },
  async complete(req) {
    let content = '';
    let citations: string[] = [],
      searchResults: any[] = [];
    for await (const e of this.stream(req)) {
      if (e.type === 'delta') content += e.text;
      else if (e.type === 'sources') {
        citations = e.citations;
        searchResults = e.searchResults;
      }
    }
    return {
      content,
      citations,
      searchResults,
      finishReason: 'stop',
      usage: { promptTokens: 20, completionTokens: 14, searchQueries: 1 },
    };
  },
};

async function layerBench(lines: string[]): Promise<void> {
  const env = await startEnv({}, () => {}, CONSTANT);
  const qs = ['What happened at NASA this week?'];
  for (let i = 0; i < 200; i++) await call(env, qs[0]);
  lines.push(
    '',
    'API layer alone (a constant pipeline: auth, validation, rate limit, usage row, JSON/SSE):',
    '',
    '| clients | requests/s (non-streaming) | p50 | p99 | requests/s (streaming) | p50 |',
    '|---|---|---|---|---|---|',
  );
  for (const c of [1, 16, 64]) {
    const plain = await load(c, SECONDS, qs, (q) => call(env, q));
    const sse = await load(c, SECONDS, qs, (q) => call(env, q, true));
    lines.push(
      `| ${c} | ${plain.rps.toFixed(0)} | ${ms(plain.p50)} | ${ms(plain.p99)} | ${sse.rps.toFixed(0)} | ${ms(sse.p50)} |`,
    );
  }
  // The rate limit counted where several processes would see it (a write per request) against
  // this process's memory (the single-process default on SQLite), alternating, same run.
  const shared = await startEnv({ limitsStore: 'database' }, () => {}, CONSTANT);
  for (let i = 0; i < 200; i++) await call(shared, qs[0]);
  const rounds: { memory: number; database: number }[] = [];
  for (let r = 0; r < 3; r++) {
    rounds.push({
      memory: (await load(16, SECONDS / 2, qs, (q) => call(env, q))).rps,
      database: (await load(16, SECONDS / 2, qs, (q) => call(shared, q))).rps,
    });
  }
  const med = (xs: number[]) => pct(xs, 0.5);
  const memRps = med(rounds.map((r) => r.memory)),
    dbRps = med(rounds.map((r) => r.database));
  lines.push(
    '',
    `Rate limit counted in ${env.app.limits.kind} vs in the database (${shared.app.store.backend}), 16 clients, non-streaming, median of 3 alternating rounds: ` +
      `${memRps.toFixed(0)} vs ${dbRps.toFixed(0)} requests/s (ratio ${(dbRps / memRps).toFixed(2)})`,
  );
  await shared.close();
  await env.close();
}

/**
 * End to end through real `tidings serve` processes: --workers 1 and --workers N alternating
 * (ROUNDS rounds) on one library (the news corpus, extractive engine), 16 clients on 16
 * keep-alive connections, each measured after a 4 s warm-up that reaches every worker (each
 * loads its own search tables). The client is wrk when installed (a C client costs ~10 µs per
 * request), else this process's Node client, which shares the cores with the server; the table
 * says which, and what the client itself cost. Logs at warn, as the in-process parts log nothing.
 */
async function workersBench(lines: string[]): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { loadavg, availableParallelism } = await import('node:os');
  const { startServeProcess } = await import('./serve-process.ts');
  const { runWrk, wrkAvailable } = await import('./wrk-client.ts');
  if (!hasNews) {
    lines.push('news corpus missing (../shared/corpus/news): workers part skipped');
    return;
  }
  const dataDir = tempDataDir('tidings-chat-workers-');
  const databaseUrl = BACKEND.databaseUrl ? freshPostgresDatabase(BACKEND.databaseUrl) : '';
  if (databaseUrl) writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ databaseUrl }));
  const articles = readArticles(ARTICLES);
  const setup = await createApp(
    loadConfig({ env: {}, overrides: { dataDir, databaseUrl, logLevel: 'silent' } }),
    silentLogger,
  );
  const userId = (await setup.users.create('bench', 'x')).id;
  await loadArticles(setup, articles);
  await testSql(setup)
    .prepare(
      'INSERT INTO subscriptions (user_id, feed_id, created_at) SELECT ?, id, 0 FROM feeds WHERE true ON CONFLICT DO NOTHING',
    )
    .run(userId);
  const key = (await createApiKey(chatStore(setup).keys, userId, 'bench', 5)).key;
  await setup.close();
  const questions = readQuestions().map((q) => q.question);
  const client = wrkAvailable() ? 'wrk' : 'node';
  const load1 = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  lines.push(
    '',
    `Workers: ${articles.length} articles, ${setup.store.backend}, sonar (extractive), 16 clients (${client === 'wrk' ? 'wrk -t1 -c16' : 'the Node client in this process; install wrk for a client that costs little CPU'}), ` +
      `${SECONDS} s after a 4 s warm-up, ${ROUNDS} alternating round(s); ${availableParallelism()} cores; load average before ${load1()}`,
    '',
    '| round | workers | requests/s | p50 | p99 | vs 1 worker (same round) | server CPU ms per request | client CPU ms per request | load average (1 min) |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const bodies = questions.map((q) => body(q));
  const measure = async (url: string, seconds: number) => {
    if (client === 'wrk') {
      const r = await runWrk(
        url,
        { method: 'POST', path: '/chat/completions', headers, bodies },
        { connections: 16, seconds },
      );
      if (r.errors) throw new Error(`${r.errors} failed requests in the wrk run`);
      return { rps: r.rps, p50: r.p50Ms, p99: r.p99Ms, n: r.requests, clientCpu: r.clientCpuMsPerRequest };
    }
    const pool = new Pool(url, { connections: 16, pipelining: 1 });
    try {
      const cpu0 = process.cpuUsage();
      const r = await load(16, seconds, questions, (q) => call({ pool, key } as Env, q));
      const c = process.cpuUsage(cpu0);
      return { ...r, clientCpu: (c.user + c.system) / 1000 / r.n };
    } finally {
      await pool.close();
    }
  };
  const counts = [...new Set([1, WORKERS])];
  const perCount = new Map<number, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    let one = 0;
    for (const w of counts) {
      const server = await startServeProcess(dataDir, w, {
        TIDINGS_LOG_LEVEL: 'warn',
        TIDINGS_SCHEDULER: 'false',
        TIDINGS_LLM_BASE_URL: '',
        TIDINGS_RATE_LIMITS: JSON.stringify({ sonar: Array(6).fill(1e9) }),
      });
      try {
        await measure(server.url, 4);
        const cpu0 = server.cpuMs();
        const r = await measure(server.url, SECONDS);
        const cpuPerRequest = (server.cpuMs() - cpu0) / r.n;
        if (w === 1) one = r.rps;
        perCount.set(w, [...(perCount.get(w) ?? []), r.rps]);
        lines.push(
          `| ${round} | ${w} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${(r.rps / one).toFixed(2)}x | ${cpuPerRequest.toFixed(1)} | ${r.clientCpu.toFixed(2)} | ${loadavg()[0]!.toFixed(2)} |`,
        );
      } finally {
        await server.stop();
      }
    }
  }
  const med = (xs: number[]) => pct(xs, 0.5);
  if (counts.length > 1)
    lines.push(
      '',
      `median over the rounds: ${counts.map((w) => `${w} worker(s) ${med(perCount.get(w)!).toFixed(0)} req/s`).join(', ')}: ` +
        `**${(med(perCount.get(WORKERS)!) / med(perCount.get(1)!)).toFixed(2)}x**`,
    );
  lines.push('', `load average after: ${load1()}`);
  // The library is a copy of the news corpus (a database made on a --database-url server stays there).
  (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true });
}

const lines: string[] = [
  `node bench/chat.bench.ts ${WORKERS ? `--workers ${WORKERS} ` : ''}${ARTICLES} ${SECONDS} — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores, ${BACKEND.databaseUrl ? 'PostgreSQL' : 'SQLite'}, load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
];
if (WORKERS) await workersBench(lines);
else {
  await extractiveBench(lines);
  await layerBench(lines);
  await upstreamBench(lines);
}
console.log(lines.join('\n'));
BACKEND.stop();
