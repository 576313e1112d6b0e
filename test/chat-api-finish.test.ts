// The JSON answer and the SSE stream end through one finishCompletion(): the same finish reason,
// usage with cost, filtered images, related questions and usage row, whichever way the client asks.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, post, ask, sseEvents, ScriptedAnswers, type Fixture } from './chat-api-helpers.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { testSql } from '../src/store/testing.ts';
import type { AnswerEvent, AnswerRequest } from '../src/answer/types.ts';

/** A pipeline that, for one question, ends without any event (a bug the API must still answer). */
class SilentAnswers extends ScriptedAnswers {
  override async *stream(req: AnswerRequest): AsyncIterable<AnswerEvent> {
    if (req.messages.at(-1)!.content === 'SAY_NOTHING') return;
    yield* super.stream(req);
  }
}

let f: Fixture;
before(async () => {
  f = await fixture({}, { answers: new SilentAnswers() });
  await chatStore(f.app).keys.setFeatures(f.keyId, ['return_images', 'return_related_questions']);
});
after(async () => {
  await f.close();
});

/** The highest usage row id so far: rows after it belong to the requests that follow. */
async function lastUsageId(): Promise<number> {
  const row = (await testSql(f.app).prepare('SELECT max(id) AS id FROM chat_usage').get()) as { id: number | null };
  return Number(row?.id ?? 0);
}

/** The usage rows written after `afterId`, oldest first, once `count` of them are there (written after the reply). */
async function usageRows(afterId: number, count: number): Promise<any[]> {
  for (let i = 0; i < 500; i++) {
    const rows = (await testSql(f.app)
      .prepare('SELECT * FROM chat_usage WHERE id > ? ORDER BY id')
      .all(afterId)) as any[];
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`fewer than ${count} new usage rows`);
}

const withoutTiming = ({ id: _i, created_at: _c, latency_ms: _l, stream: _s, ...row }: any) => row;

for (const [model, extra] of [
  ['sonar-pro', { return_images: true, return_related_questions: true, image_domain_filter: ['example.org'] }],
  ['sonar-deep-research', { max_tokens: 5 }],
  ['sonar', {}],
] as const) {
  test(`${model}: the JSON object and the last SSE chunk end the same way, and record the same usage`, async () => {
    const before = await lastUsageId();
    const json = await post(f, '/chat/completions', ask('q', { model, ...extra }));
    await usageRows(before, 1);
    const stream = await post(f, '/chat/completions', ask('q', { model, ...extra, stream: true }));
    assert.equal(json.status, 200, json.text);
    assert.equal(stream.status, 200, stream.text);
    const events = sseEvents(stream.text);
    assert.equal(events.at(-1), '[DONE]');
    const last = events.at(-2);
    assert.equal(last.choices[0].finish_reason, json.json.choices[0].finish_reason);
    // Byte for byte: the same serialization of usage (with cost) and extras.
    assert.equal(JSON.stringify(last.usage), JSON.stringify(json.json.usage));
    assert.equal(JSON.stringify(last.images), JSON.stringify(json.json.images));
    assert.equal(JSON.stringify(last.related_questions), JSON.stringify(json.json.related_questions));
    assert.deepEqual(last.citations, json.json.citations);
    if ('image_domain_filter' in extra) assert.equal(json.json.images.length, 1, 'image_domain_filter applied');
    else assert.equal('images' in json.json, false, 'images only when asked for');
    const [a, b] = await usageRows(before, 2);
    assert.equal(a.stream, 0);
    assert.equal(b.stream, 1);
    assert.deepEqual(withoutTiming(b), withoutTiming(a));
  });
}

test('a pipeline that ends without any event: an error event on the stream, a 500 usage row', async () => {
  const before = await lastUsageId();
  const r = await post(f, '/chat/completions', ask('SAY_NOTHING', { stream: true }));
  assert.equal(r.status, 200);
  const events = sseEvents(r.text);
  assert.equal(events.length, 1);
  assert.equal(events[0].error.code, 500);
  const [row] = await usageRows(before, 1);
  assert.equal(row.status, 500);
  assert.equal(row.stream, 1);
});
