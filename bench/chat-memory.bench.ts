// Memory and CPU of chat answers in a real `tidings serve --workers 1` process on a large library
// (issue 26.4): RSS idle, then after N sonar answers (extractive engine), split into anonymous
// memory (the JS heap, the tokenizer, SQLite's page cache) and file-backed pages (the database read
// through SQLite's memory map, the node binary); then requests/s and server CPU ms per answer at 16
// clients (wrk when installed, for --seconds).
//
//   node bench/chat-memory.bench.ts --data /tmp/cm-100k [--items 100000] [--answers 1000]
//        [--seconds 10] [--rounds 2] [--warm 200] [--compare /work/main] [--workers 1]
//
// The library: the news corpus (../shared/corpus/news, 5,386 articles, whose questions are asked)
// plus generated items up to --items, in feeds of 50, shaped like bench/feeds-bench-server.ts's
// (three paragraphs of 60 words from a 40-word list: common words, long posting lists). It is
// built once into --data and reused (the bench user, its API key in DIR/bench-key). With
// --compare DIR (another checkout, e.g. /work/main) that checkout's server runs on the same data
// folder, alternating with this one (this one first in odd rounds, second in even ones). Before
// the measured rounds each checkout's server answers --warm questions on the folder and is
// stopped, unmeasured (bench/chat-memory-order.ts says why). RSS comes from /proc/<pid>/status
// (Linux). --workers N serves with `tidings serve --workers N`: the CPU per answer is the whole
// process tree's, the RSS columns are the supervisor's alone (its workers are not counted).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { Pool } from 'undici';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { hasNews, readArticles, readQuestions, loadArticles } from '../src/answer/testing/news-corpus.ts';
import { addFeed, ingest } from '../src/search/testing/fixtures.ts';
import { testSql } from '../src/store/testing.ts';
import { flagValue } from './backend.ts';
import { memOf, type ProcessMemory } from './process-memory.ts';
import { startServeProcess } from './serve-process.ts';
import { chatMemoryRuns } from './chat-memory-order.ts';
import { runWrk, wrkAvailable } from './wrk-client.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const DATA = flagValue(process.argv, 'data');
const ITEMS = Number(flagValue(process.argv, 'items') ?? 100_000);
const ANSWERS = Number(flagValue(process.argv, 'answers') ?? 1000);
const SECONDS = Number(flagValue(process.argv, 'seconds') ?? 10);
const ROUNDS = Number(flagValue(process.argv, 'rounds') ?? 2);
const WARM = Number(flagValue(process.argv, 'warm') ?? 200);
const COMPARE = flagValue(process.argv, 'compare');
const WORKERS = Number(flagValue(process.argv, 'workers') ?? 1);
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'node bench/chat-memory.bench.ts --data DIR [--items 100000] [--answers 1000] [--seconds 10] [--rounds 2] [--warm 200] [--compare DIR] [--workers 1]\n' +
      '  --warm N   answers each checkout serves, unmeasured, before round 1 (0: none)',
  );
  process.exit(0);
}
if (!DATA || !hasNews) {
  console.error('usage: node bench/chat-memory.bench.ts --data DIR (needs ../shared/corpus/news); see the header');
  process.exit(2);
}
const checkouts = [ROOT, ...(COMPARE ? [resolve(COMPARE)] : [])];
const runs = chatMemoryRuns(checkouts, ROUNDS, WARM);

async function build(dir: string): Promise<void> {
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: dir, logLevel: 'silent' } }), silentLogger);
  const userId = (await app.users.create('bench', 'x')).id;
  const news = readArticles();
  await loadArticles(app, news);
  const words = (
    'market policy climate energy election court research science health space rover budget vote storm' +
    ' league transfer museum galaxy vaccine solar battery chip model network ocean river city council' +
    ' festival novel camera reactor treaty port rail bridge satellite coral glacier harvest'
  ).split(' ');
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const phrase = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
  const t0 = Date.UTC(2026, 10, 1) / 1000;
  for (let k = 0, made = news.length; made < ITEMS; k++) {
    const feedId = await addFeed(app, `https://site${k}.example/feed.xml`, `Site ${k}`);
    const n = Math.min(50, ITEMS - made);
    await app.store.transaction(() =>
      ingest(
        app,
        feedId,
        Array.from({ length: n }, (_, j) => ({
          url: `https://site${k}.example/post/${j}`,
          title: phrase(7),
          content: Array.from({ length: 3 }, () => `<p>${phrase(60)}.</p>`).join(''),
          publishedAt: t0 - (j * 3 + (k % 7)) * 3600,
        })),
      ),
    );
    made += n;
    if (k % 200 === 0) console.error(`built ${made} items`);
  }
  await testSql(app)
    .prepare(
      'INSERT INTO subscriptions (user_id, feed_id, created_at) SELECT ?, id, 0 FROM feeds WHERE true ON CONFLICT DO NOTHING',
    )
    .run(userId);
  writeFileSync(join(dir, 'bench-key'), (await createApiKey(chatStore(app).keys, userId, 'bench', 5)).key);
  await app.close();
}

type Mem = ProcessMemory;
const fmt = (m: Mem) => `${m.rss.toFixed(0)} (${m.anon.toFixed(0)} / ${m.file.toFixed(0)})`;

if (!existsSync(join(DATA, 'bench-key'))) {
  console.error(`building ${ITEMS} items in ${DATA}`);
  await build(DATA);
}
const key = readFileSync(join(DATA, 'bench-key'), 'utf8').trim();
const questions = readQuestions().map((q) => q.question);
const bodies = questions.map((q) => JSON.stringify({ model: 'sonar', messages: [{ role: 'user', content: q }] }));
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const load1 = () => loadavg()[0]!.toFixed(2);

const lines = [
  `node bench/chat-memory.bench.ts --data ${DATA} --items ${ITEMS} --answers ${ANSWERS} --seconds ${SECONDS} --rounds ${ROUNDS} --warm ${WARM}${COMPARE ? ` --compare ${COMPARE}` : ''}${WORKERS !== 1 ? ` --workers ${WORKERS}` : ''} — ${new Date().toISOString().slice(0, 16)}, Node ${process.version}, load average before ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
  '',
  `RSS MB (anonymous / file-backed); ${wrkAvailable() ? 'wrk -t1 -c16' : 'Node client, 16 connections'} for req/s`,
  '',
  `| round | checkout | idle RSS | RSS after ${ANSWERS} answers | peak RSS | answers/s at 16 clients | server CPU ms per answer | p50 | p99 | load (1 min) |`,
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const { round, checkout: root, measured } of runs) {
  const server = await startServeProcess(
    DATA,
    WORKERS,
    {
      TIDINGS_LOG_LEVEL: 'warn',
      TIDINGS_SCHEDULER: 'false',
      TIDINGS_LLM_BASE_URL: '',
      TIDINGS_RATE_LIMITS: JSON.stringify({ sonar: Array(6).fill(1e9) }),
    },
    root,
  );
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = memOf(server.pid);
    // N answers at 16 clients, each checked: a failing answer would not be a memory figure.
    const count = measured ? ANSWERS : WARM;
    const pool = new Pool(server.url, { connections: 16, pipelining: 1 });
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) {
          const i = next++;
          const res = await pool.request({
            path: '/chat/completions',
            method: 'POST',
            headers,
            body: bodies[i % bodies.length],
          });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`answer ${i}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
        }
      }),
    );
    await pool.close();
    const name = root === ROOT ? 'this' : root;
    if (!measured) {
      console.error(
        `warm-up (not measured): ${name}, idle ${fmt(idle)}, after ${WARM} answers ${fmt(memOf(server.pid))}`,
      );
      continue;
    }
    const after = memOf(server.pid);
    let rps = NaN,
      p50 = NaN,
      p99 = NaN,
      cpu = NaN;
    if (wrkAvailable()) {
      const c0 = server.cpuMs();
      const r = await runWrk(
        server.url,
        { method: 'POST', path: '/chat/completions', headers, bodies },
        { connections: 16, seconds: SECONDS },
      );
      if (r.errors) throw new Error(`${r.errors} failed requests in the wrk run`);
      cpu = (server.cpuMs() - c0) / r.requests;
      ({ rps, p50Ms: p50, p99Ms: p99 } = r);
    }
    lines.push(
      `| ${round} | ${name} | ${fmt(idle)} | ${fmt(after)} | ${memOf(server.pid).peak.toFixed(0)} | ${rps.toFixed(0)} | ${cpu.toFixed(1)} | ${p50.toFixed(1)} ms | ${p99.toFixed(1)} ms | ${load1()} |`,
    );
    console.error(lines.at(-1));
  } finally {
    await server.stop();
  }
}
console.log(lines.join('\n'));
