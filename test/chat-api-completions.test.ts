// The chat completions endpoint over real HTTP with a scripted pipeline: response and chunk
// shapes of the spec, streamed == non-streamed, finish_reason length, reasoning output, beta
// features, errors before and after the stream started, usage records.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, post, ask, sseEvents, CITATIONS, type Fixture } from './chat-api-helpers.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { testSql } from '../src/store/testing.ts';

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(async () => {
  await f.close();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('non-streaming response has the spec shape: uuid id, seconds, citations, search_results, usage with cost', async () => {
  const r = await post(f, '/chat/completions', ask());
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^application\/json/);
  const c = r.json;
  assert.match(c.id, UUID_V4);
  assert.equal(c.object, 'chat.completion');
  assert.equal(c.model, 'sonar');
  assert.ok(Number.isInteger(c.created) && Math.abs(c.created - Date.now() / 1000) < 60, 'created is Unix seconds');
  assert.deepEqual(c.citations, CITATIONS);
  assert.deepEqual(
    c.search_results.map((s: any) => s.url),
    CITATIONS,
  );
  assert.deepEqual(Object.keys(c.search_results[0]).sort(), [
    'date',
    'last_updated',
    'snippet',
    'source',
    'title',
    'url',
  ]);
  assert.equal(c.choices.length, 1);
  assert.deepEqual(Object.keys(c.choices[0]).sort(), ['finish_reason', 'index', 'message']);
  assert.equal(c.choices[0].finish_reason, 'stop');
  assert.equal(c.choices[0].message.role, 'assistant');
  assert.match(c.choices[0].message.content, /Artemis mission this week \[1\]/);
  assert.equal(c.images, undefined, 'images only when requested');
  assert.equal(c.related_questions, undefined);
  const u = c.usage;
  assert.equal(u.total_tokens, u.prompt_tokens + u.completion_tokens);
  assert.equal(u.search_context_size, 'low');
  // sonar: $1/M in, $1/M out, $5 per 1000 requests at low context.
  assert.equal(u.cost.input_tokens_cost, u.prompt_tokens / 1e6);
  assert.equal(u.cost.output_tokens_cost, u.completion_tokens / 1e6);
  assert.equal(u.cost.request_cost, 0.005);
  assert.equal(u.cost.total_cost, Math.round((u.prompt_tokens / 1e6 + u.completion_tokens / 1e6 + 0.005) * 1e9) / 1e9);
});

test('search_context_size sets the request fee; sonar-pro prices', async () => {
  const r = await post(
    f,
    '/v1/chat/completions',
    ask('q', { model: 'sonar-pro', web_search_options: { search_context_size: 'high' } }),
  );
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.usage.search_context_size, 'high');
  assert.equal(r.json.usage.cost.request_cost, 0.014);
  assert.equal(r.json.usage.cost.output_tokens_cost, (r.json.usage.completion_tokens * 15) / 1e6);
});

test('sonar-deep-research bills reasoning, citation tokens and search queries, without a request fee', async () => {
  const r = await post(f, '/v1/sonar', ask('q', { model: 'sonar-deep-research', reasoning_effort: 'high' }));
  assert.equal(r.status, 200, r.text);
  const u = r.json.usage;
  assert.equal(u.reasoning_tokens, 300);
  assert.equal(u.citation_tokens, 900);
  assert.equal(u.num_search_queries, 4);
  assert.equal(u.cost.request_cost, undefined);
  assert.equal(u.cost.reasoning_tokens_cost, (300 * 3) / 1e6);
  assert.equal(u.cost.citation_tokens_cost, (900 * 2) / 1e6);
  assert.equal(u.cost.search_queries_cost, (4 * 5) / 1000);
  assert.match(r.json.choices[0].message.content, /^<think>\n[\s\S]*\n<\/think>\n\n/);
  assert.equal(f.answers.calls.at(-1)!.reasoningEffort, 'high');
});

test('streaming: SSE chunks, citations in the first chunk and repeated, final usage, [DONE]; text equals non-streamed', async () => {
  const body = ask('Tell me about the launch', { model: 'sonar-reasoning-pro' });
  const plain = await post(f, '/chat/completions', body);
  const r = await post(f, '/chat/completions', { ...body, stream: true });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
  assert.equal(r.headers.get('x-accel-buffering'), 'no');
  assert.equal(r.headers.get('x-ratelimit-limit-requests'), '50');
  assert.ok(
    r.text
      .split('\n\n')
      .filter(Boolean)
      .every((b) => b.startsWith('data: ') && !b.includes('event:')),
  );
  const events = sseEvents(r.text);
  assert.equal(events.at(-1), '[DONE]');
  const chunks = events.slice(0, -1);
  assert.ok(chunks.length > 3);
  const id = chunks[0].id;
  assert.match(id, UUID_V4);
  for (const c of chunks) {
    assert.equal(c.object, 'chat.completion.chunk');
    assert.equal(c.id, id);
    assert.equal(c.model, 'sonar-reasoning-pro');
    assert.equal(typeof c.created, 'number');
    assert.equal(c.choices[0].delta.role, 'assistant');
    assert.equal(typeof c.choices[0].delta.content, 'string');
    assert.deepEqual(c.citations, CITATIONS);
    assert.equal(c.search_results.length, 3);
  }
  assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  assert.ok(chunks.slice(0, -1).every((c: any) => c.choices[0].finish_reason === null));
  const last = chunks.at(-1);
  assert.equal(last.choices[0].finish_reason, 'stop');
  assert.equal(last.choices[0].delta.content, '');
  assert.equal(last.usage.total_tokens, plain.json.usage.total_tokens);
  assert.deepEqual(last.usage.cost, plain.json.usage.cost);
  const text = chunks.map((c: any) => c.choices[0].delta.content).join('');
  assert.equal(text, plain.json.choices[0].message.content);
  assert.ok(text.startsWith('<think>\n'), 'the opening <think> is streamed too');
});

test('max_tokens cut gives finish_reason length, streaming and not; model caps are enforced', async () => {
  const r = await post(f, '/chat/completions', ask('q', { max_tokens: 5 }));
  assert.equal(r.json.choices[0].finish_reason, 'length');
  const s = sseEvents((await post(f, '/chat/completions', ask('q', { max_tokens: 5, stream: true }))).text);
  assert.equal(s.at(-2).choices[0].finish_reason, 'length');
  assert.equal(
    s
      .slice(0, -1)
      .map((c: any) => c.choices[0].delta.content)
      .join(''),
    r.json.choices[0].message.content,
  );
  const cap = await post(f, '/chat/completions', ask('q', { model: 'sonar-pro', max_tokens: 9000 }));
  assert.equal(cap.status, 400);
  assert.match(cap.json.error.message, /max_tokens must be an integer from 1 to 8192 for sonar-pro \(got 9000\)/);
  assert.equal(
    (await post(f, '/chat/completions', ask('q', { model: 'sonar-reasoning-pro', max_tokens: 8192 }))).status,
    200,
  );
  // OpenAI's newer name is accepted too.
  const alias = await post(f, '/chat/completions', ask('q', { max_completion_tokens: 5 }));
  assert.equal(alias.json.choices[0].finish_reason, 'length');
  assert.match(
    (await post(f, '/chat/completions', ask('q', { model: 'sonar-pro', max_completion_tokens: 9000 }))).json.error
      .message,
    /^max_completion_tokens must be an integer from 1 to 8192 for sonar-pro/,
  );
});

test('parameters reach the pipeline with their defaults and conversions', async () => {
  await post(f, '/chat/completions', {
    ...ask('q'),
    search_recency_filter: 'week',
    search_after_date_filter: '3/1/2025',
    search_before_date_filter: '03/31/2025',
    stop: 'END',
    presence_penalty: 0.5,
    frequency_penalty: 1,
    disable_search: false,
    some_unknown_key: { x: 1 },
    response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } },
  });
  const c = f.answers.calls.at(-1)!;
  assert.equal(c.temperature, 0.2);
  assert.equal(c.topP, 0.9);
  assert.equal(c.topK, 0);
  assert.equal(c.searchContextSize, 'low');
  assert.deepEqual(c.stop, ['END']);
  assert.equal(c.filters.recency, 'week');
  assert.equal(c.filters.publishedAfter, Date.UTC(2025, 2, 1) / 1000);
  assert.equal(c.filters.publishedBefore, Date.UTC(2025, 2, 31) / 1000 + 86399);
  assert.deepEqual(c.scope, { kind: 'subscriptions', userId: f.userId });
  assert.deepEqual(c.responseFormat, { type: 'json_schema', json_schema: { schema: { type: 'object' } } });
  await post(f, '/chat/completions', { ...ask('q'), search_streams: ['user/-/label/Space'] });
  assert.deepEqual(f.answers.calls.at(-1)!.scope, {
    kind: 'streams',
    userId: f.userId,
    streamIds: ['user/-/label/Space'],
  });
  // Content parts are joined into text.
  await post(f, '/chat/completions', {
    model: 'sonar',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ],
  });
  assert.equal(f.answers.calls.at(-1)!.messages[0].content, 'a\nb');
});

test('beta features: 403 naming the feature and the approve command, then allowed after approval', async () => {
  for (const [param, value, feature] of [
    ['return_images', true, 'return_images'],
    ['return_related_questions', true, 'return_related_questions'],
    ['search_domain_filter', ['nasa.gov'], 'search_domain_filter'],
  ] as const) {
    const r = await post(f, '/chat/completions', ask('q', { [param]: value }));
    assert.equal(r.status, 403, param);
    assert.equal(r.json.error.type, 'forbidden');
    assert.equal(r.json.error.code, 403);
    assert.ok(r.json.error.message.includes(feature));
    assert.ok(
      r.json.error.message.includes(`tidings key approve ${f.keyId} --feature ${feature}`),
      r.json.error.message,
    );
  }
  // Not using the feature is fine.
  assert.equal(
    (await post(f, '/chat/completions', ask('q', { return_images: false, search_domain_filter: [] }))).status,
    200,
  );
  await chatStore(f.app).keys.setFeatures(f.keyId, [
    'return_images',
    'return_related_questions',
    'search_domain_filter',
  ]);
  const r = await post(
    f,
    '/chat/completions',
    ask('q', {
      return_images: true,
      return_related_questions: true,
      search_domain_filter: ['-reddit.com'],
      image_domain_filter: ['example.org'],
    }),
  );
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.json.images.map((i: any) => i.image_url),
    ['https://img.example.org/a.jpg'],
    'image_domain_filter applied',
  );
  assert.deepEqual(Object.keys(r.json.images[0]).sort(), ['height', 'image_url', 'origin_url', 'title', 'width']);
  assert.deepEqual(r.json.related_questions, ['When is the next launch?', 'Who is on the crew?']);
  assert.deepEqual(f.answers.calls.at(-1)!.filters.domainFilter, ['-reddit.com']);
  const s = sseEvents(
    (
      await post(
        f,
        '/chat/completions',
        ask('q', { stream: true, return_images: true, return_related_questions: true }),
      )
    ).text,
  );
  assert.equal(s.at(-2).images.length, 2);
  assert.equal(s.at(-2).related_questions.length, 2);
  await chatStore(f.app).keys.setFeatures(f.keyId, []);
});

test('errors of the pipeline: before the stream -> JSON status; during the stream -> error event, then close', async () => {
  const up = await post(f, '/chat/completions', ask('FAIL_UPSTREAM', { stream: true }));
  assert.equal(up.status, 503);
  assert.deepEqual(up.json, {
    error: {
      message: 'The LLM server at http://127.0.0.1:1 failed: connection refused',
      type: 'upstream_error',
      code: 503,
    },
  });
  const eng = await post(f, '/chat/completions', ask('NEEDS_ENGINE'));
  assert.equal(eng.status, 400);
  assert.match(eng.json.error.message, /TIDINGS_LLM_BASE_URL/);
  const mid = await post(f, '/chat/completions', ask('FAIL_MIDSTREAM', { stream: true }));
  assert.equal(mid.status, 200);
  const ev = sseEvents(mid.text);
  assert.deepEqual(ev.at(-1), {
    error: { message: 'The LLM server stopped mid-answer', type: 'upstream_error', code: 503 },
  });
  assert.ok(!ev.includes('[DONE]'));
});

test('a client that disconnects aborts the pipeline', async () => {
  const ac = new AbortController();
  const res = await fetch(f.url + '/chat/completions', {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${f.key}` },
    body: JSON.stringify(ask('SLOW '.repeat(40), { stream: true })),
  });
  const reader = res.body!.getReader();
  await reader.read();
  ac.abort();
  const req = f.answers.calls.at(-1)!;
  for (let i = 0; i < 100 && !req.signal!.aborted; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(req.signal!.aborted, true);
});

test('a non-streaming client that disconnects aborts the pipeline and is recorded as 499', async () => {
  const ac = new AbortController();
  const pending = fetch(f.url + '/chat/completions', {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${f.key}` },
    body: JSON.stringify(ask('SLOW '.repeat(40), { model: 'r1-1776' })),
  }).catch(() => undefined);
  for (let i = 0; i < 200 && f.answers.calls.at(-1)?.model !== 'r1-1776'; i++)
    await new Promise((r) => setTimeout(r, 10));
  ac.abort();
  await pending;
  let row: any;
  for (let i = 0; i < 200 && !row; i++) {
    await new Promise((r) => setTimeout(r, 10));
    row = await testSql(f.app).prepare("SELECT * FROM chat_usage WHERE model = 'r1-1776'").get();
  }
  assert.equal(row.status, 499);
  assert.equal(row.error_type, 'client_closed');
  assert.equal(f.answers.calls.at(-1)!.signal!.aborted, true);
});

test('every request is recorded with tokens, searches, cost and status', async () => {
  const before = (await chatStore(f.app).usage.totals({})).find((t) => t.model === 'sonar-pro')?.requests ?? 0;
  const lastId =
    ((await testSql(f.app).prepare('SELECT max(id) AS id FROM chat_usage').get()) as { id: number | null }).id ?? 0;
  await post(f, '/chat/completions', ask('q', { model: 'sonar-pro' }));
  await post(f, '/chat/completions', ask('q', { model: 'sonar-pro', temperature: 9 }));
  // Rows are written in batches right after the responses: wait for both (on PostgreSQL a batch
  // commits a few event-loop turns later, and the two may commit in either order).
  let rows: any[] = [];
  for (let i = 0; i < 200 && rows.length < 2; i++) {
    rows = (await testSql(f.app)
      .prepare("SELECT * FROM chat_usage WHERE model = 'sonar-pro' AND id > ? ORDER BY id")
      .all(lastId)) as any[];
    if (rows.length < 2) await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(rows.length, 2, 'one row for each request');
  const bad = rows.find((r) => r.status === 400);
  const ok = rows.find((r) => r.status === 200);
  assert.ok(bad && ok, JSON.stringify(rows.map((r) => r.status)));
  assert.equal(bad.error_type, 'bad_request');
  assert.equal(ok.prompt_tokens, 21);
  assert.equal(ok.search_queries, 1);
  assert.equal(ok.request_cost, 0.006);
  assert.ok(ok.total_cost > 0.006);
  const t = (await chatStore(f.app).usage.totals({})).find((x) => x.model === 'sonar-pro')!;
  assert.equal(t.requests, before + 2);
});
