// A stream whose pipeline is slow to start: headers and SSE keep-alive comments go out, clients
// ignore the comments, and an error that comes before the first event arrives as an error event.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { fixture, post, ask, sseEvents, type Fixture } from './chat-api-helpers.ts';

let f: Fixture;
before(async () => {
  f = await fixture({}, { keepAliveMs: 40 });
});
after(async () => {
  await f.close();
});

test('slow first event: keep-alive comments, then the normal stream; the OpenAI SDK reads through them', async () => {
  const raw = await post(f, '/chat/completions', ask('SLOW_START please', { stream: true }));
  assert.equal(raw.status, 200);
  assert.ok(raw.text.startsWith(': waiting for the first search results\n\n'));
  assert.match(raw.text, /\n\n: keep-alive\n\n/);
  const events = sseEvents(raw.text.replace(/^: .*\n\n/gm, ''));
  assert.equal(events.at(-1), '[DONE]');
  // The test helper reads through the comments as a client does (local-model-chat's streams get
  // them when the machine is loaded).
  assert.deepEqual(sseEvents(raw.text), events);
  const plain = await post(f, '/chat/completions', ask('SLOW_START please'));
  assert.equal(
    events
      .slice(0, -1)
      .map((c: any) => c.choices[0].delta.content)
      .join(''),
    plain.json.choices[0].message.content,
  );

  const client = new OpenAI({ baseURL: f.url, apiKey: f.key, maxRetries: 0 });
  let text = '';
  for await (const c of await client.chat.completions.create({
    model: 'sonar',
    messages: [{ role: 'user', content: 'SLOW_START please' }],
    stream: true,
  })) {
    text += c.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, plain.json.choices[0].message.content);
});

test('an error after the keep-alive started arrives as an error event the SDK throws', async () => {
  const raw = await post(f, '/chat/completions', ask('SLOW_START SLOW_FAIL', { stream: true }));
  assert.equal(raw.status, 200);
  const events = sseEvents(raw.text.replace(/^: .*\n\n/gm, ''));
  assert.deepEqual(events, [
    { error: { message: 'The LLM server did not answer within 120000 ms', type: 'upstream_timeout', code: 503 } },
  ]);
  const client = new OpenAI({ baseURL: f.url, apiKey: f.key, maxRetries: 0 });
  await assert.rejects(async () => {
    for await (const _ of await client.chat.completions.create({
      model: 'sonar',
      messages: [{ role: 'user', content: 'SLOW_START SLOW_FAIL' }],
      stream: true,
    })) {
      /* drain */
    }
  }, /did not answer within 120000 ms/);
});

test('long silences in the middle of a stream get keep-alive comments too', async () => {
  const raw = await post(f, '/chat/completions', ask('SLOW '.repeat(4) + 'PAUSE', { stream: true }));
  const body = raw.text;
  const firstData = body.indexOf('data: ');
  assert.ok(body.indexOf(': keep-alive', firstData) > firstData, 'a comment after the first chunk');
  const events = sseEvents(body.replace(/^: .*\n\n/gm, ''));
  assert.equal(events.at(-1), '[DONE]');
});
