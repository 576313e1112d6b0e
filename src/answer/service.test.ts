// The answer service end to end with the built-in extractive engine: a real SQLite file, articles
// stored and indexed the way ingest does it, the real search service.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { testApp } from '../search/testing/fixtures.ts';
import { ARTICLES, loadFixture, type LoadedFixture } from './testing/articles.ts';
import { quoteVariants } from './engines/extractive-dates.ts';
import { answerService } from './service.ts';
import { AnswerError, type AnswerEvent, type AnswerRequest, type Progress } from './types.ts';
import { validateAnswerRequest } from './validate.ts';
import { countTokens } from './tokens.ts';

let app: App;
let fx: LoadedFixture;
before(async () => {
  app = await testApp();
  fx = await loadFixture(app);
});
after(async () => {
  await app.close();
});

const ask = (content: string, extra: Partial<AnswerRequest> = {}): AnswerRequest => ({
  model: 'sonar',
  messages: [{ role: 'user', content }],
  scope: { kind: 'instance' },
  filters: {},
  searchContextSize: 'low',
  ...extra,
});

const storedUrls = () => new Set(ARTICLES.map((a) => a.url));
const markers = (text: string) => [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

test('an extractive answer quotes stored sentences and cites only stored URLs, every [n] in range', async () => {
  const r = await answerService(app).complete(ask('What did NASA announce about the Artemis II launch date?'));
  assert.ok(r.citations.length >= 1);
  for (const url of r.citations) assert.ok(storedUrls().has(url), `cited ${url} is not a stored article`);
  assert.deepEqual(
    r.searchResults.map((s) => s.url),
    r.citations,
  );
  const ns = markers(r.content);
  assert.ok(ns.length >= 1, 'answer has citation markers');
  for (const n of ns) assert.ok(n >= 1 && n <= r.citations.length, `[${n}] out of range`);
  // Citations are ordered by first use: [1] appears first.
  assert.equal(ns[0], 1);
  // Each quoted sentence is verbatim from the article its marker points to.
  for (const m of r.content.matchAll(/([^\]]+?)\[(\d+)\]/g)) {
    const sentence = m[1].trim();
    const article = ARTICLES.find((a) => a.url === r.citations[Number(m[2]) - 1])!;
    assert.ok(
      quoteVariants(sentence).some((q) => article.paragraphs.some((p) => p.includes(q))),
      `"${sentence}" is not in ${article.url}`,
    );
  }
  assert.match(r.content, /April 2026/);
  assert.equal(r.finishReason, 'stop');
  assert.equal(r.usage.searchQueries, 1);
  assert.ok(r.usage.promptTokens > countTokens('What did NASA announce about the Artemis II launch date?'));
  assert.equal(r.usage.completionTokens, countTokens(r.content));
  assert.equal(r.searchResults[0].date, new Date(ARTICLES[0].publishedAt * 1000).toISOString().slice(0, 10));
});

test('nothing relevant found: a plain statement, no citations', async () => {
  const r = await answerService(app).complete(ask('What did the Quidditch league decide about golden snitches?'));
  assert.deepEqual(r.citations, []);
  assert.deepEqual(r.searchResults, []);
  assert.match(r.content, /^I found no articles about .*Quidditch.* in your feeds\.$/);
  assert.deepEqual(markers(r.content), []);
});

test('streamed events come in order sources, delta*, done and concatenate to complete()', async () => {
  const req = ask('What did the European Central Bank decide about interest rates?');
  const events = await collect(answerService(app).stream(req));
  assert.equal(events[0].type, 'sources');
  assert.equal(events[events.length - 1].type, 'done');
  const deltas = events.slice(1, -1);
  assert.ok(deltas.length > 5, 'text arrives in many pieces');
  assert.ok(deltas.every((e) => e.type === 'delta'));
  const streamed = deltas.map((e) => (e as { text: string }).text).join('');
  const complete = await answerService(app).complete(req);
  assert.equal(streamed, complete.content);
  assert.deepEqual((events[0] as { citations: string[] }).citations, complete.citations);
  assert.match(complete.content, /3\.25 percent/);
});

test('sonar-reasoning opens with a <think> block holding the real queries and sources', async () => {
  const r = await answerService(app).complete(
    ask('What did NASA announce about the Artemis II launch date?', { model: 'sonar-reasoning' }),
  );
  const m = /^<think>\n([\s\S]*?)\n<\/think>\n\n(?=\S)/.exec(r.content);
  assert.ok(m, 'content starts with <think>…</think> and a blank line');
  assert.match(m[1], /Searched "What did NASA announce about the Artemis II launch date\?": \d+ articles/);
  assert.match(m[1], /NASA announces new launch date for Artemis II crewed Moon mission/);
  assert.match(m[1], /Answer type: \w+\. Question terms: .*artemis/);
  // Why the lead was chosen: its score against the best sentence of another source, and the parts of it.
  assert.match(
    m[1],
    /Why this lead: the sentence of \[\d+\] with the highest answer score \([\d.]+; the best of another source, \[\d+\], has [\d.]+\): [a-z' ]+ \(\+[\d.]+\)/,
  );
  const answer = r.content.slice(m[0].length);
  assert.ok(markers(answer).every((n) => n >= 1 && n <= r.citations.length));
  assert.ok(r.usage.reasoningTokens! > 0 && r.usage.reasoningTokens! < r.usage.completionTokens);
});

test('sonar-pro searches with several reformulated queries and uses more sources', async () => {
  const r = await answerService(app).complete(
    ask('When will the Artemis missions fly and what does the landing depend on?', { model: 'sonar-reasoning-pro' }),
  );
  assert.ok(r.usage.searchQueries >= 2, `searches: ${r.usage.searchQueries}`);
  const think = r.content.slice(0, r.content.indexOf('</think>'));
  assert.equal([...think.matchAll(/^Searched "/gm)].length, r.usage.searchQueries);
  assert.ok(r.citations.length >= 2);
});

test('a follow-up question carries the topic of the conversation into the search', async () => {
  const r = await answerService(app).complete({
    ...ask(''),
    model: 'sonar-reasoning',
    messages: [
      { role: 'user', content: 'What did the European Central Bank do with interest rates?' },
      { role: 'assistant', content: 'It cut the deposit rate.[1]' },
      { role: 'user', content: 'And what about inflation?' },
    ],
  });
  assert.match(r.content, /carries its topic: "And what about inflation\? [^"]*european central bank/i);
  assert.ok(r.citations.some((u) => u.startsWith('https://econ.example.org/')));
});

test('max_tokens cuts the answer and reports finish_reason length', async () => {
  const full = await answerService(app).complete(ask('What did NASA announce about the Artemis II launch date?'));
  const r = await answerService(app).complete(
    ask('What did NASA announce about the Artemis II launch date?', { maxTokens: 12 }),
  );
  assert.equal(r.finishReason, 'length');
  assert.ok(countTokens(r.content) <= 12, `${countTokens(r.content)} tokens`);
  assert.ok(r.usage.completionTokens <= 12);
  assert.ok(full.content.startsWith(r.content.slice(0, 20)));
  // A reasoning model's <think> block counts too.
  const rr = await answerService(app).complete(
    ask('What did NASA announce about the Artemis II launch date?', { model: 'sonar-reasoning', maxTokens: 30 }),
  );
  assert.equal(rr.finishReason, 'length');
  assert.ok(countTokens(rr.content) <= 30);
});

test('stop sequences end the content before the first match, for the extractive engine too', async () => {
  const full = await answerService(app).complete(ask('What did NASA announce about the Artemis II launch date?'));
  assert.ok(full.content.includes('Orion'));
  const events = await collect(
    answerService(app).stream(
      ask('What did NASA announce about the Artemis II launch date?', { stop: ['Orion', 'zzz'] }),
    ),
  );
  const text = events
    .filter((e) => e.type === 'delta')
    .map((e) => (e as { text: string }).text)
    .join('');
  assert.equal(text, full.content.slice(0, full.content.indexOf('Orion')));
  const done = events.at(-1) as Extract<AnswerEvent, { type: 'done' }>;
  assert.equal(done.finishReason, 'stop');
  assert.equal(done.usage.completionTokens, countTokens(text));
});

test('response_format with the extractive engine is refused before any event, naming the parameter', async () => {
  assert.throws(
    () =>
      answerService(app).stream(
        ask('What happened?', { responseFormat: { type: 'json_schema', json_schema: { schema: { type: 'object' } } } }),
      ),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.code === 'engine_unavailable' &&
      e.param === 'response_format' &&
      /TIDINGS_LLM_BASE_URL/.test(e.message),
  );
});

test('r1-1776 without a generative engine is refused before any event', async () => {
  assert.throws(
    () => answerService(app).stream(ask('Tell me a story', { model: 'r1-1776' })),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.code === 'engine_unavailable' &&
      /r1-1776 needs a generative engine: run `npx tidings model pull <name>`.*or set TIDINGS_LLM_BASE_URL and TIDINGS_LLM_MODEL/.test(
        e.message,
      ),
  );
  assert.throws(
    () => answerService(app).stream(ask('Tell me a story', { disableSearch: true })),
    (e: unknown) => e instanceof AnswerError && e.code === 'engine_unavailable' && e.param === 'disable_search',
  );
});

test('bad requests are refused with invalid_request naming the parameter', async () => {
  const refuse = (req: AnswerRequest, param: string, msg: RegExp) =>
    assert.throws(
      () => answerService(app).stream(req),
      (e: unknown) =>
        e instanceof AnswerError && e.code === 'invalid_request' && e.param === param && msg.test(e.message),
    );
  refuse(ask('   '), 'messages', /the last message must be a non-empty user message/);
  refuse(
    {
      ...ask('x'),
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    },
    'messages',
    /last message must be a non-empty user message/,
  );
  refuse(
    {
      ...ask('x'),
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    },
    'messages',
    /alternate/,
  );
  refuse(
    ask('q', { filters: { domainFilter: ['a.com', 'b.com', 'c.com', 'd.com'] } }),
    'search_domain_filter',
    /at most 3/,
  );
  refuse(ask('q', { filters: { domainFilter: ['nasa.gov', '-reddit.com'] } }), 'search_domain_filter', /cannot mix/);
  refuse(ask('q', { filters: { recency: 'decade' as never } }), 'search_recency_filter', /must be one of/);
  refuse(
    ask('q', { searchContextSize: 'huge' as never }),
    'web_search_options.search_context_size',
    /low, medium or high/,
  );
  refuse(ask('q', { model: 'sonar-pro', maxTokens: 9000 }), 'max_tokens', /1 to 8192 for sonar-pro/);
  refuse(ask('q', { model: 'gpt-4' as never }), 'model', /Invalid model 'gpt-4'. Permitted models: sonar/);
  refuse(ask('q', { reasoningEffort: 'extreme' as never }), 'reasoning_effort', /minimal, low, medium or high/);
});

test('a question longer than the model context is refused (128k for sonar, 200k for sonar-pro)', async () => {
  const long = 'Artemis moon rocket launch schedule news. '.repeat(20_000); // ~160k tokens
  const tokens = countTokens(long);
  assert.ok(tokens > 128_000 && tokens < 200_000, `${tokens}`);
  const now = Math.floor(Date.now() / 1000);
  const limit = 2 * 1024 * 1024; // above the default TIDINGS_ANSWER_MAX_CONVERSATION_BYTES
  assert.throws(
    () => validateAnswerRequest(ask(long), now, limit),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.param === 'messages' &&
      /\d{6} tokens, more than the 128000-token context of sonar/.test(e.message),
  );
  assert.doesNotThrow(() => validateAnswerRequest(ask(long, { model: 'sonar-pro' }), now, limit));
});

test('a conversation over TIDINGS_ANSWER_MAX_CONVERSATION_BYTES is refused before its tokens are counted', () => {
  // 300 KiB of one unbroken run: counting it is what froze the server (issue 25.1).
  const huge = ask(`${'M'.repeat(300 * 1024)}?`);
  assert.throws(
    () => validateAnswerRequest(huge),
    (e: unknown) =>
      e instanceof AnswerError &&
      e.param === 'messages' &&
      /307201 bytes, more than the 262144 bytes this server accepts \(TIDINGS_ANSWER_MAX_CONVERSATION_BYTES\)/.test(
        e.message,
      ),
  );
  // More bytes than the context can hold even at the longest token (128 bytes): no count either.
  assert.throws(
    () => validateAnswerRequest(ask('x '.repeat(64_000 * 128 + 1)), undefined, Number.MAX_SAFE_INTEGER),
    /16384002 bytes, at least 128001 tokens, more than the 128000-token context of sonar/,
  );
  // Under the cap it is counted (an 80,000-character run froze the server for 44 s).
  assert.doesNotThrow(() => validateAnswerRequest(ask(`${'M'.repeat(200_000)}?`)));
});

test('a pasted document with a question at its end: searched by its end, not echoed into the trace', async () => {
  const pasted = `${'The committee met again to discuss the budget and other matters of the town. '.repeat(400)}\nWhen will the Artemis II mission launch?`;
  const r = await answerService(app).complete(ask(pasted, { model: 'sonar-reasoning' }));
  const think = r.content.slice(0, r.content.indexOf('</think>'));
  assert.match(think, /Question: The committee met .*… \(\d+ characters\)\n/);
  assert.match(think, /searching with its last \d+, ending "….*When will the Artemis II mission launch\?"/);
  assert.ok(think.length < 4_000, `${think.length} characters of trace`);
  assert.equal(r.citations[0], ARTICLES[0].url);
});

test("filters and scope reach the search: domain allow list, recency, a user's subscriptions", async () => {
  const onlyNasa = await answerService(app).complete(
    ask('What is planned for the Artemis Moon landing?', { filters: { domainFilter: ['nasa.gov'] } }),
  );
  assert.ok(onlyNasa.citations.length > 0);
  assert.ok(onlyNasa.citations.every((u) => u.startsWith('https://www.nasa.gov/')));
  const denyNasa = await answerService(app).complete(
    ask('What is planned for the Artemis Moon landing?', { filters: { domainFilter: ['-nasa.gov'] } }),
  );
  assert.ok(denyNasa.citations.every((u) => !u.includes('nasa.gov')));
  const recent = await answerService(app).complete(
    ask('What happened to euro zone inflation?', { filters: { recency: 'week' } }),
  );
  assert.ok(
    !recent.citations.includes('https://econ.example.org/euro-zone-inflation'),
    'a 40-day-old article is outside the last week',
  );
  const alice = await answerService(app).complete(
    ask('What did the European Central Bank decide about interest rates?', {
      scope: { kind: 'subscriptions', userId: fx.userId },
    }),
  );
  assert.deepEqual(alice.citations, [], 'alice follows only the NASA feed');
});

test('images come from stored article images with sizes from the article HTML or the URL', async () => {
  const r = await answerService(app).complete(
    ask('What did NASA announce about the Artemis II launch and the Starship refueling test?', {
      model: 'sonar-pro',
      returnImages: true,
    }),
  );
  assert.ok(r.images && r.images.length >= 1);
  const starship = r.images.find((i) => i.image_url.includes('starship'));
  assert.deepEqual(starship && { w: starship.width, h: starship.height, origin: starship.origin_url }, {
    w: 1200,
    h: 675,
    origin: 'https://space.example.com/2025/starship-refueling-test',
  });
  const crew = r.images.find((i) => i.image_url.includes('artemis-ii-crew'));
  assert.deepEqual(crew && [crew.width, crew.height, crew.title], [0, 0, ARTICLES[0].title], 'unknown size is 0×0');
  const plain = await answerService(app).complete(ask('What did NASA announce about the Artemis II launch date?'));
  assert.equal(plain.images, undefined);
});

test('related questions name things from the retrieved articles', async () => {
  const r = await answerService(app).complete(
    ask('What did NASA announce about the Artemis II launch date?', { returnRelatedQuestions: true }),
  );
  assert.ok(r.relatedQuestions && r.relatedQuestions.length >= 1);
  const corpus = ARTICLES.map((a) => `${a.title} ${a.paragraphs.join(' ')}`).join(' ');
  for (const q of r.relatedQuestions) {
    assert.match(q, /\?$/);
    const named =
      /"(.+)"/.exec(q)?.[1] ??
      /^What is the latest on (.+)\?$/.exec(q)?.[1] ??
      /^How is (.+) connected to /.exec(q)?.[1];
    assert.ok(named && corpus.includes(named), `"${q}" names something not in the articles`);
  }
});

test('deep research plans, searches in rounds, reads articles and writes a sectioned report with progress', async () => {
  const progress: Progress[] = [];
  const r = await answerService(app).complete(
    ask('What are the plans for the Artemis Moon missions?', {
      model: 'sonar-deep-research',
      reasoningEffort: 'high',
      onProgress: (p) => progress.push(p),
    }),
  );
  assert.match(r.content, /^<think>\n[\s\S]*Sub-questions:[\s\S]*Read \d+ articles in full[\s\S]*\n<\/think>\n\n# /);
  const report = r.content.slice(r.content.indexOf('</think>'));
  assert.ok((report.match(/^## /gm) ?? []).length >= 2, 'several sections');
  // Each section's lead is explained: its article and the parts of its answer score.
  assert.match(
    r.content,
    /Section "[^"]+": \d+ sentences from \d+ articles\. Lead from \[\d+\], [^(]+\(answer score [\d.-]+: [^)]*\(\+[\d.]+\)/,
  );
  for (const n of markers(report)) assert.ok(n >= 1 && n <= r.citations.length);
  for (const url of r.citations) assert.ok(storedUrls().has(url));
  assert.ok(r.usage.searchQueries >= 3, `searches: ${r.usage.searchQueries}`);
  assert.ok(r.usage.citationTokens! > 0 && r.usage.reasoningTokens! > 0);
  const stages = new Set(progress.map((p) => p.stage));
  for (const s of ['plan', 'search', 'read', 'write', 'done']) assert.ok(stages.has(s), `progress stage ${s}`);
  assert.ok(
    progress.every((p, i) => i === 0 || (p.fraction ?? 0) >= (progress[i - 1].fraction ?? 0)),
    'progress never goes back',
  );
  // Lower effort searches less.
  const minimal = await answerService(app).complete(
    ask('What are the plans for the Artemis Moon missions?', {
      model: 'sonar-deep-research',
      reasoningEffort: 'minimal',
    }),
  );
  assert.ok(minimal.usage.searchQueries < r.usage.searchQueries);
});

test('an aborted request stops with the abort reason', async () => {
  const ac = new AbortController();
  ac.abort(new Error('client went away'));
  await assert.rejects(
    answerService(app).complete(ask('What did NASA announce?', { signal: ac.signal })),
    /client went away/,
  );
});

test('deep research stops between steps when the caller aborts', async () => {
  const ac = new AbortController();
  const stages: string[] = [];
  await assert.rejects(
    answerService(app).complete(
      ask('What are the plans for the Artemis Moon missions?', {
        model: 'sonar-deep-research',
        reasoningEffort: 'high',
        signal: ac.signal,
        onProgress: (p) => {
          stages.push(p.stage);
          if (p.stage === 'search') ac.abort(new Error('job cancelled'));
        },
      }),
    ),
    /job cancelled/,
  );
  assert.equal(stages.filter((s) => s === 'search').length, 1, 'no search after the abort');
});
