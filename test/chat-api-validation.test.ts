// Every parameter of the seed and the spec's extras, out of range or of the wrong type: 400 with a
// message that names the parameter and the accepted range. Messages and models have their own
// error types. Unknown keys are ignored.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, post, ask, type Fixture } from './chat-api-helpers.ts';
import { chatStore } from '../src/chat-api/repositories.ts';

let f: Fixture;
before(async () => {
  f = await fixture({ rateLimits: { sonar: [100000, 100000, 100000, 100000, 100000, 100000] } });
  await chatStore(f.app).keys.setFeatures(f.keyId, [
    'search_domain_filter',
    'return_images',
    'return_related_questions',
  ]);
});
after(async () => {
  await f.close();
});

const bad: [string, Record<string, unknown>, RegExp][] = [
  ['max_tokens zero', { max_tokens: 0 }, /^max_tokens must be a positive integer \(got 0\)/],
  ['max_tokens fraction', { max_tokens: 1.5 }, /max_tokens must be a positive integer/],
  ['max_tokens string', { max_tokens: '100' }, /max_tokens must be a positive integer \(got "100"\)/],
  ['max_tokens over the sonar cap', { max_tokens: 100000 }, /max_tokens must be an integer from 1 to 8192 for sonar/],
  ['temperature high', { temperature: 2.5 }, /^temperature must be a number from 0 to 2 \(got 2.5\)/],
  ['temperature negative', { temperature: -0.1 }, /temperature must be a number from 0 to 2/],
  ['temperature string', { temperature: 'hot' }, /temperature must be a number from 0 to 2 \(got "hot"\)/],
  ['top_p', { top_p: 1.01 }, /^top_p must be a number from 0 to 1/],
  ['top_k high', { top_k: 2049 }, /^top_k must be an integer from 0 to 2048 \(got 2049\)/],
  ['top_k fraction', { top_k: 1.5 }, /top_k must be an integer from 0 to 2048/],
  ['presence_penalty', { presence_penalty: -2.1 }, /^presence_penalty must be a number from -2 to 2/],
  [
    'frequency_penalty negative',
    { frequency_penalty: -0.5 },
    /^frequency_penalty must be a number greater than 0 \(or 0 for none\) \(got -0.5\)/,
  ],
  ['stream', { stream: 'yes' }, /^stream must be true or false \(got "yes"\)/],
  ['return_images', { return_images: 1 }, /^return_images must be true or false/],
  ['return_related_questions', { return_related_questions: 'true' }, /^return_related_questions must be true or false/],
  ['disable_search', { disable_search: 'no' }, /^disable_search must be true or false/],
  [
    'search_domain_filter too many',
    { search_domain_filter: ['a.com', 'b.com', 'c.com', 'd.com'] },
    /search_domain_filter accepts at most 3 entries \(got 4\)/,
  ],
  [
    'search_domain_filter mixed',
    { search_domain_filter: ['a.com', '-b.com'] },
    /search_domain_filter cannot mix allow and deny entries/,
  ],
  [
    'search_domain_filter not a domain',
    { search_domain_filter: ['not a domain'] },
    /search_domain_filter entry "not a domain" is not a domain or URL/,
  ],
  [
    'search_domain_filter not an array',
    { search_domain_filter: 'nasa.gov' },
    /search_domain_filter must be an array of at most 3 domains or URLs/,
  ],
  [
    'search_recency_filter',
    { search_recency_filter: 'decade' },
    /^search_recency_filter must be one of hour, day, week, month, year \(got "decade"\)/,
  ],
  ['search_mode', { search_mode: 'images' }, /^search_mode must be one of web, academic, sec/],
  [
    'search_after_date_filter format',
    { search_after_date_filter: '2025-03-01' },
    /^search_after_date_filter must be a valid date in %m\/%d\/%Y format/,
  ],
  [
    'search_before_date_filter invalid day',
    { search_before_date_filter: '2/30/2025' },
    /^search_before_date_filter must be a valid date in %m\/%d\/%Y format/,
  ],
  [
    'last_updated_after_filter type',
    { last_updated_after_filter: 20250301 },
    /^last_updated_after_filter must be a date string in %m\/%d\/%Y format/,
  ],
  [
    'last_updated_before_filter',
    { last_updated_before_filter: '13/1/2025' },
    /^last_updated_before_filter must be a valid date/,
  ],
  [
    'date range reversed',
    { search_after_date_filter: '3/2/2025', search_before_date_filter: '3/1/2025' },
    /search_after_date_filter must not be later than search_before_date_filter/,
  ],
  [
    'web_search_options.search_context_size',
    { web_search_options: { search_context_size: 'huge' } },
    /^web_search_options.search_context_size must be one of low, medium, high \(got "huge"\)/,
  ],
  ['web_search_options type', { web_search_options: 'low' }, /^web_search_options must be an object/],
  ['response_format', { response_format: { type: 'xml' } }, /^response_format must be/],
  [
    'response_format json_schema without schema',
    { response_format: { type: 'json_schema', json_schema: {} } },
    /schema/,
  ],
  ['stop', { stop: 5 }, /^stop must be a string or an array of 1 to 4 strings/],
  ['stop too many', { stop: ['a', 'b', 'c', 'd', 'e'] }, /stop must be a string or an array of 1 to 4 strings/],
  ['reasoning_effort', { reasoning_effort: 'max' }, /^reasoning_effort must be one of minimal, low, medium, high/],
  [
    'image_domain_filter',
    { image_domain_filter: ['???'] },
    /image_domain_filter entry "\?\?\?" is not a domain or URL/,
  ],
  [
    'search_streams not an array',
    { search_streams: 'everything' },
    /^search_streams must be an array of 1 to 50 Google Reader stream ids/,
  ],
  [
    'search_streams bad id',
    { search_streams: ['https://nasa.gov'] },
    /^search_streams must be an array of 1 to 50 Google Reader stream ids/,
  ],
  [
    'search_streams empty',
    { search_streams: [] },
    /^search_streams must be an array of 1 to 50 Google Reader stream ids/,
  ],
];

for (const [name, params, message] of bad) {
  test(`400 bad_request: ${name}`, async () => {
    const r = await post(f, '/chat/completions', ask('q', params));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.type, 'bad_request');
    assert.equal(r.json.error.code, 400);
    assert.match(r.json.error.message, message);
  });
}

test('valid edge values and explicit nulls are accepted; unknown keys are ignored', async () => {
  for (const params of [
    { temperature: 0, top_p: 0, top_k: 2048, presence_penalty: -2, frequency_penalty: 0.01, max_tokens: 8192 },
    { temperature: 2, top_p: 1, top_k: 0, presence_penalty: 2 },
    // What LangChain's ChatOpenAI sends by default.
    {
      temperature: 1,
      top_p: 1,
      n: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      stream_options: { include_usage: true },
    },
    { temperature: null, max_tokens: null, stream: null, stop: null },
    { search_domain_filter: ['https://nasa.gov/news', 'esa.int', 'sub.example.co.uk'], search_recency_filter: 'year' },
    {
      search_domain_filter: ['-reddit.com', '-x.com'],
      search_mode: 'academic',
      web_search_options: { search_context_size: 'medium', user_location: { country: 'US' } },
    },
    {
      search_after_date_filter: '3/1/2025',
      last_updated_before_filter: '12/31/2025',
      reasoning_effort: 'minimal',
      stop: ['a', 'b'],
    },
    {
      response_format: { type: 'regex', regex: { regex: '[0-9]+' } },
      n: 3,
      user: 'x',
      logprobs: true,
      frobnicate: { deep: [1] },
    },
  ]) {
    const r = await post(f, '/chat/completions', ask('q', params));
    assert.equal(r.status, 200, `${JSON.stringify(params)}: ${r.text}`);
  }
});

test('invalid or missing model: 400 invalid_model with the permitted list', async () => {
  const permitted =
    'Permitted models: sonar, sonar-pro, sonar-reasoning, sonar-reasoning-pro, sonar-deep-research, r1-1776';
  let r = await post(f, '/chat/completions', ask('q', { model: 'gpt-4o' }));
  assert.equal(r.status, 400);
  assert.deepEqual(r.json, {
    error: { message: `Invalid model 'gpt-4o'. ${permitted}`, type: 'invalid_model', code: 400 },
  });
  r = await post(f, '/chat/completions', { messages: [{ role: 'user', content: 'q' }] });
  assert.equal(r.json.error.type, 'invalid_model');
  assert.ok(r.json.error.message.includes(permitted));
});

const badMessages: [string, unknown, RegExp][] = [
  ['missing', undefined, /messages must be a non-empty array/],
  ['empty array', [], /messages must be a non-empty array/],
  ['not an array', 'hello', /messages must be a non-empty array/],
  [
    'bad role',
    [{ role: 'tool', content: 'x' }],
    /messages\[0\]: role must be one of system, user, assistant \(got "tool"\)/,
  ],
  ['missing content', [{ role: 'user' }], /messages\[0\]: content must be a string or an array/],
  ['empty content', [{ role: 'user', content: '  ' }], /messages\[0\] has empty content/],
  [
    'non-text part',
    [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
    /messages\[0\]\.content\[0\] must be a text part/,
  ],
  [
    'two users in a row',
    [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ],
    /messages\[1\] has role 'user' but 'assistant' was expected/,
  ],
  [
    'starts with assistant',
    [
      { role: 'assistant', content: 'a' },
      { role: 'user', content: 'b' },
    ],
    /messages\[0\] has role 'assistant' but 'user' was expected/,
  ],
  [
    'ends with assistant',
    [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ],
    /last message must have role 'user'/,
  ],
  [
    'system in the middle',
    [
      { role: 'user', content: 'a' },
      { role: 'system', content: 'b' },
      { role: 'user', content: 'c' },
    ],
    /system messages are only allowed at the start/,
  ],
  ['only system', [{ role: 'system', content: 'a' }], /at least one user message/],
  ['not an object', ['hi'], /messages\[0\]: each message must be an object/],
];
for (const [name, messages, message] of badMessages) {
  test(`400 invalid_message: ${name}`, async () => {
    const r = await post(f, '/chat/completions', { model: 'sonar', messages });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.type, 'invalid_message');
    assert.equal(r.json.error.code, 400);
    assert.match(r.json.error.message, message);
  });
}

test('valid conversations: system messages, then alternating user/assistant ending with user', async () => {
  const r = await post(f, '/chat/completions', {
    model: 'sonar',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Cite.' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

test('malformed bodies: bad JSON, not an object, wrong content type', async () => {
  let r = await post(f, '/chat/completions', '{"model": "sonar",');
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, 400);
  assert.equal(r.json.error.type, 'bad_request');
  r = await post(f, '/chat/completions', '[1,2]');
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /must be a JSON object/);
  r = await post(f, '/chat/completions', JSON.stringify(ask('q')), {
    'content-type': 'application/x-www-form-urlencoded',
  });
  assert.equal(r.status, 200, 'JSON under a form content type (curl -d without -H) is accepted');
  r = await post(f, '/chat/completions', 'model=sonar', { 'content-type': 'text/plain' });
  assert.equal(r.status, 415);
  assert.equal(r.json.error.type, 'unsupported_media_type');
  assert.match(r.json.error.message, /application\/json/);
});
