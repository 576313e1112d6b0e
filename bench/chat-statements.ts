// SQL statements per chat answer on PostgreSQL (`node bench/chat-statements.ts [articles=2000]
// [answers=60] [--database-url postgres://…]`): sonar answers (extractive engine) through the HTTP
// API one at a time, after a warm-up, counting every statement the process sends (all connections,
// the change listener's included), with the statements grouped by text, most frequent first, and
// the CPU the PostgreSQL backends serving this database used per answer (/proc, Linux; 10 ms ticks,
// so use a few hundred answers), and this process's own CPU per answer (every thread: the server,
// V8's helper threads and the in-process HTTP client).
// Round trips are what a shared 2-core box pays for in PostgreSQL CPU, so this is the figure that
// tells whether a change to the answer path added or removed any.
import { readdirSync, readFileSync } from 'node:fs';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { buildServer } from '../src/server/server.ts';
import { silentLogger } from '../src/log/logger.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { hasNews, loadArticles, readArticles, readQuestions } from '../src/answer/testing/news-corpus.ts';
import { testSql, watchStatements } from '../src/store/testing.ts';
import { freshPostgresDatabase, tempDataDir } from '../test/helpers.ts';
import { benchBackend, positionals } from './backend.ts';

const ARGS = positionals(process.argv.slice(2), ['backend', 'database-url']);
const ARTICLES = Number(ARGS[0] ?? 2000);
const ANSWERS = Number(ARGS[1] ?? 60);
if (!hasNews) {
  console.log('news corpus missing (../shared/corpus/news): nothing to measure');
  process.exit(0);
}
const backend = await benchBackend([...process.argv, '--backend', 'postgres'], ['postgres']);

let counting = false;
const byText = new Map<string, number>();
await watchStatements((sql) => {
  if (!counting) return;
  const text = sql.replace(/\s+/g, ' ').trim();
  byText.set(text, (byText.get(text) ?? 0) + 1);
});

/**
 * CPU ticks (user + system) by pid of the server processes serving `database` (their title names
 * it). Autovacuum workers name it too: they are keyed apart (`av:` + pid), since a vacuum of the
 * freshly loaded tables is not a cost of answering.
 */
function backendTicks(database: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.includes(database)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(title.includes('autovacuum') ? `av:${pid}` : pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

const databaseUrl = freshPostgresDatabase(backend.databaseUrl);
const database = /\/(tidings_t_[0-9a-f]+)/.exec(databaseUrl)![1]!;
const app = await createApp(
  loadConfig({
    env: {},
    overrides: {
      databaseUrl,
      dataDir: tempDataDir('tidings-chat-statements-'),
      logLevel: 'silent',
      rateLimits: { sonar: [1e9, 1e9, 1e9, 1e9, 1e9, 1e9] },
    },
  }),
  silentLogger,
);
const userId = (await app.users.create('bench', 'x')).id;
await loadArticles(app, readArticles(ARTICLES));
await testSql(app)
  .prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) SELECT ?, id, 0 FROM feeds WHERE true')
  .run(userId);
// The load leaves every table due for autovacuum, which then ran inside the measured answers (a
// vacuum and analyze of 27 MB of passages: a few tenths of a ms per answer at 300 answers). Done
// here instead, so the figure is what answering costs.
await testSql(app).exec('VACUUM ANALYZE');
const key = (await createApiKey(chatStore(app).keys, userId, 'bench', 5)).key;
const server = await buildServer(app);
await server.listen({ host: '127.0.0.1', port: 0 });
const addr = server.server.address();
const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
const questions = readQuestions().map((q) => q.question);

async function ask(q: string): Promise<void> {
  const res = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sonar', messages: [{ role: 'user', content: q }] }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

for (let i = 0; i < 10; i++) await ask(questions[i % questions.length]!);
// Settle: the warm-up's change notifications reach the listener before counting starts.
await new Promise((r) => setTimeout(r, 300));
counting = true;
// How often the change signal moved while answering: each move makes the process check what it
// holds from the search index in the database again.
let moves = 0,
  lastGeneration = app.store.changes.generation();
const watchSignal = setInterval(() => {
  const g = app.store.changes.generation();
  if (g !== lastGeneration) moves++;
  lastGeneration = g;
}, 1);
const ticksBefore = backendTicks(database);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < ANSWERS; i++) await ask(questions[(i + 10) % questions.length]!);
const elapsed = performance.now() - t0;
clearInterval(watchSignal);
const cpu = process.cpuUsage(cpu0);
const ticksAfter = backendTicks(database);
await new Promise((r) => setTimeout(r, 300));
counting = false;
let ticks = 0,
  vacuumTicks = 0;
for (const [pid, t] of ticksAfter) {
  if (pid.startsWith('av:')) vacuumTicks += t - (ticksBefore.get(pid) ?? 0);
  else ticks += t - (ticksBefore.get(pid) ?? 0);
}

const total = [...byText.values()].reduce((a, b) => a + b, 0);
console.log(
  `${ARTICLES} articles, ${ANSWERS} sonar answers one at a time: ${(total / ANSWERS).toFixed(2)} statements per answer, ` +
    `${((ticks * 10) / ANSWERS).toFixed(2)} ms of PostgreSQL backend CPU per answer (10 ms ticks; ` +
    `autovacuum ${((vacuumTicks * 10) / ANSWERS).toFixed(2)} ms apart), ` +
    // All threads of this process (V8's helpers included) and its in-process HTTP client.
    `${((cpu.user + cpu.system) / 1000 / ANSWERS).toFixed(2)} ms of this process's CPU per answer, ` +
    `${(elapsed / ANSWERS).toFixed(2)} ms per answer end to end; the change signal moved ${moves} times`,
);
for (const [text, n] of [...byText].sort((a, b) => b[1] - a[1]))
  console.log(`${(n / ANSWERS).toFixed(2).padStart(6)}  ${text.slice(0, 150)}`);
await server.close();
await app.close();
backend.stop();
