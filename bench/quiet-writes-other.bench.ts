// What another process's chat answers cost this one (`tidings serve --workers N` on SQLite): each
// answer a worker serves writes a usage row and pours a rate-limit bucket. Before migration 195 the
// other workers' change signals moved on those commits (PRAGMA data_version), so their next answer
// read the user's subscriptions, the index counters, the backlog and the held passages again.
// App A (tree --root, default this checkout) answers sonar questions of the bench user (scope: its
// subscriptions); before every other answer App B (a second connection, as another worker) writes
// what an answer writes. Question by question the two modes alternate (the order flipped each
// question), so the load of a shared machine falls on both alike. Prints the CPU per answer of
// each mode and how often A's signal moved over B's writes.
//
//   node --max-semi-space-size=8 bench/quiet-writes-other.bench.ts --data <copy of a chat-memory
//        data folder> [--root CHECKOUT] [--answers 300] [--warm 30]
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from './backend.ts';
import { testUsageRecord } from '../src/store/testing.ts';

const ROOT = resolve(flagValue(process.argv, 'root') ?? resolve(fileURLToPath(import.meta.url), '../..'));
const DATA = flagValue(process.argv, 'data');
const ANSWERS = Number(flagValue(process.argv, 'answers') ?? 300);
const WARM = Number(flagValue(process.argv, 'warm') ?? 30);
if (!DATA) {
  console.error('usage: node bench/quiet-writes-other.bench.ts --data DIR [--root CHECKOUT] (see the header)');
  process.exit(2);
}

const { createApp } = await import(`${ROOT}/src/server/create-app.ts`);
const { loadConfig } = await import(`${ROOT}/src/config/config.ts`);
const { answerService } = await import(`${ROOT}/src/answer/service.ts`);
const { parseChatRequest } = await import(`${ROOT}/src/chat-api/request-schema.ts`);
const { readQuestions } = await import(`${ROOT}/src/answer/testing/news-corpus.ts`);
const open = () =>
  createApp(loadConfig({ env: {}, overrides: { dataDir: DATA, logLevel: 'silent', schedulerEnabled: false } }));
const a = await open();
const b = await open();
const user = await a.users.findByName('bench');
if (!user) throw new Error(`${DATA} has no bench user: build it with bench/chat-memory.bench.ts`);
const questions = (readQuestions() as { question: string }[]).map((q) => q.question);
const service = answerService(a);
const ask = async (i: number) => {
  const parsed = parseChatRequest({
    model: 'sonar',
    messages: [{ role: 'user', content: questions[i % questions.length] }],
  });
  await service.complete({ ...parsed.answer, scope: { kind: 'subscriptions', userId: user.id } });
};
/** What a served answer writes besides its text (src/chat-api/usage.ts, the rate limits). */
const otherWorkersAnswer = async (i: number) => {
  await b.store.limitCounters.pour(`bench-rate:${i}`, 1e9, 0.001, Date.now());
  await b.store.chatUsage.record({ ...testUsageRecord(user.id), createdAt: Math.floor(Date.now() / 1000) });
};
const turn = () => new Promise((r) => setImmediate(r));
const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
for (let i = 0; i < WARM; i++) await ask(i);
const spent = { alone: 0, other: 0 };
let moved = 0;
const load0 = loadavg()[0]!;
for (let i = 0; i < ANSWERS; i++) {
  for (const mode of i % 2 ? (['alone', 'other'] as const) : (['other', 'alone'] as const)) {
    await turn();
    const g0 = a.store.changes.generation();
    if (mode === 'other') await otherWorkersAnswer(i);
    await turn(); // the signal reads the pragma once per event-loop turn
    if (a.store.changes.generation() !== g0) moved++;
    const c0 = cpuUs();
    await ask(i);
    spent[mode] += cpuUs() - c0;
  }
}
const ms = (k: 'alone' | 'other') => (spent[k] / 1000 / ANSWERS).toFixed(2);
console.log(
  `node bench/quiet-writes-other.bench.ts --data ${DATA} --root ${ROOT} --answers ${ANSWERS} --warm ${WARM}: ` +
    `CPU per answer alone ${ms('alone')} ms, after another process's answer writes ${ms('other')} ms, ` +
    `ratio ${(spent.other / spent.alone).toFixed(3)}; signal moved over ${moved} of ${ANSWERS} such writes; ` +
    `load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`,
);
await a.close();
await b.close();
