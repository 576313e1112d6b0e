// Async chat completions: submit, poll, list with pagination, idempotency, validation, and jobs
// surviving a restart (a job interrupted by closing the App completes on a new App over the same
// data folder), retention purge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, post, ask, ScriptedAnswers, startChatServer, openApp } from './chat-api-helpers.ts';
import { asyncJobRunner } from '../src/chat-api/plugin.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { MAX_ATTEMPTS } from '../src/chat-api/async-jobs.ts';
import { testSql } from '../src/store/testing.ts';

const get = async (f: { url: string; key: string }, path: string) => {
  const res = await fetch(f.url + path, { headers: { authorization: `Bearer ${f.key}` } });
  return { status: res.status, json: (await res.json()) as any };
};
const research = (q = 'Summarize the Artemis programme', extra = {}) => ({
  request: ask(q, { model: 'sonar-deep-research', ...extra }),
});

test('submit, poll to COMPLETED, list; the spec shapes', async () => {
  const f = await fixture();
  try {
    const r = await post(f, '/async/chat/completions', research());
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json), [
      'id',
      'model',
      'created_at',
      'started_at',
      'completed_at',
      'failed_at',
      'response',
      'error_message',
      'status',
    ]);
    assert.equal(r.json.status, 'CREATED');
    assert.equal(r.json.response, null);
    assert.equal(r.json.model, 'sonar-deep-research');
    await asyncJobRunner(f.app)!.idle();
    const done = await get(f, `/async/chat/completions/${r.json.id}`);
    assert.equal(done.json.status, 'COMPLETED');
    assert.ok(done.json.completed_at >= done.json.created_at && done.json.started_at !== null);
    const c = done.json.response;
    assert.equal(c.object, 'chat.completion');
    assert.match(c.choices[0].message.content, /^<think>/);
    assert.equal(c.usage.num_search_queries, 4);
    assert.equal(c.usage.cost.search_queries_cost, 0.02);
    assert.equal(f.answers.calls[0].scope.kind, 'subscriptions');
    const progress = (await testSql(f.app)
      .prepare('SELECT progress_json FROM chat_async_jobs WHERE id = ?')
      .get(r.json.id)) as { progress_json: string };
    assert.equal(JSON.parse(progress.progress_json).stage, 'search', 'progress is stored');

    const list = await get(f, '/async/chat/completions');
    assert.equal(list.json.next_token, null);
    assert.equal(list.json.requests.length, 1);
    assert.equal(list.json.requests[0].response, undefined, 'the list leaves responses out');
    assert.equal(list.json.requests[0].status, 'COMPLETED');
    // Usage rows are written in a batch just after the job (a few event-loop turns on PostgreSQL).
    let row: any;
    for (let i = 0; i < 200 && !row; i++) {
      row = await testSql(f.app).prepare("SELECT * FROM chat_usage WHERE endpoint = 'async'").get();
      if (!row) await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(row.status, 200);
    assert.equal(row.search_queries, 4);
  } finally {
    await f.close();
  }
});

test('idempotency key returns the same job; validation errors; unknown ids; pagination', async () => {
  const f = await fixture({ rateLimits: { 'deep-research': [100, 100, 100, 100, 100, 100] } });
  try {
    const a = await post(f, '/async/chat/completions', { ...research(), idempotency_key: 'abc' });
    const b = await post(f, '/async/chat/completions', { ...research(), idempotency_key: 'abc' });
    assert.equal(a.json.id, b.json.id);
    let r = await post(f, '/async/chat/completions', ask());
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /request must be a chat completions request object/);
    r = await post(f, '/async/chat/completions', research('q', { top_k: -1 }));
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /top_k must be an integer from 0 to 2048/);
    r = await post(f, '/async/chat/completions', { request: ask('q', { model: 'o3' }) });
    assert.equal(r.json.error.type, 'invalid_model');
    const missing = await get(f, '/async/chat/completions/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.type, 'not_found');
    for (let i = 0; i < 4; i++) await post(f, '/async/chat/completions', research(`q${i}`));
    await asyncJobRunner(f.app)!.idle();
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page = await get(f, `/async/chat/completions?limit=2${token ? `&next_token=${token}` : ''}`);
      assert.ok(page.json.requests.length <= 2);
      seen.push(...page.json.requests.map((x: any) => x.id));
      token = page.json.next_token;
    } while (token);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5);
    assert.equal((await get(f, '/async/chat/completions?next_token=garbage')).status, 400);
    assert.equal((await get(f, '/async/chat/completions?limit=1000')).status, 400);
  } finally {
    await f.close();
  }
});

test('async POST is rate limited as deep research', async () => {
  const f = await fixture({ rateLimits: { 'deep-research': [2, 10, 20, 40, 60, 100] } });
  try {
    assert.equal((await post(f, '/async/chat/completions', research())).status, 200);
    assert.equal((await post(f, '/async/chat/completions', research())).status, 200);
    const r = await post(f, '/async/chat/completions', research());
    assert.equal(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  } finally {
    await f.close();
  }
});

test('a job interrupted by a shutdown completes after a restart on the same data folder', async () => {
  // First process: the pipeline hangs until the App is closed.
  const stuck = new ScriptedAnswers();
  stuck.gate = new Promise(() => {});
  const f = await fixture({}, { answers: stuck });
  const r = await post(f, '/async/chat/completions', research());
  const id = r.json.id;
  for (let i = 0; i < 100 && stuck.calls.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
  assert.equal((await get(f, `/async/chat/completions/${id}`)).json.status, 'IN_PROGRESS');
  // The gate never opens: close() must abort the run, not wait for it.
  stuck.gate = undefined;
  const abortable = stuck.calls[0];
  await Promise.race([f.close(), new Promise((_, rej) => setTimeout(() => rej(new Error('close hung')), 5000))]).catch(
    async (e) => {
      assert.ok(abortable.signal?.aborted, 'shutdown aborts the running job');
      throw e;
    },
  );

  // Second process: a new App on the same folder resumes the job.
  const app = await openApp(f.dataDir);
  const answers = new ScriptedAnswers();
  const { server, url } = await startChatServer(app, answers);
  try {
    await asyncJobRunner(app)!.idle();
    const job = await get({ url, key: f.key }, `/async/chat/completions/${id}`);
    assert.equal(job.json.status, 'COMPLETED');
    assert.match(job.json.response.choices[0].message.content, /Artemis/);
    assert.equal(answers.calls.length, 1);
    assert.equal(
      (
        (await testSql(app).prepare('SELECT attempts FROM chat_async_jobs WHERE id = ?').get(id)) as {
          attempts: number;
        }
      ).attempts,
      2,
    );
  } finally {
    await server.close();
    await app.close();
  }
});

test('jobs interrupted too often fail; expired jobs are purged', async () => {
  const f = await fixture();
  try {
    const { jobs } = chatStore(f.app);
    const old = await jobs.create({
      id: '11111111-1111-4111-8111-111111111111',
      keyId: f.keyId,
      userId: f.userId,
      model: 'sonar',
      request: ask(),
      idempotencyKey: null,
      createdAt: Math.floor(Date.now() / 1000) - 8 * 86400,
    });
    const runner = asyncJobRunner(f.app)!;
    assert.equal(await runner.purge(), 1);
    assert.equal(await jobs.find(old.id), undefined);

    const flaky = await jobs.create({
      id: '22222222-2222-4222-8222-222222222222',
      keyId: f.keyId,
      userId: f.userId,
      model: 'sonar',
      request: ask(),
      idempotencyKey: null,
      createdAt: Math.floor(Date.now() / 1000),
    });
    // Interrupted MAX_ATTEMPTS times already: claimed and given back that often.
    await testSql(f.app)
      .prepare(`UPDATE chat_async_jobs SET status = 'IN_PROGRESS', attempts = ? WHERE id = ?`)
      .run(MAX_ATTEMPTS, flaky.id);
    runner.wake();
    await runner.idle();
    const failed = await get(f, `/async/chat/completions/${flaky.id}`);
    assert.equal(failed.json.status, 'FAILED');
    assert.match(failed.json.error_message, /interrupted 3 times/);
    assert.ok(failed.json.failed_at > 0);
  } finally {
    await f.close();
  }
});
