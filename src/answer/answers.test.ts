// The extractive engine's answer-first behaviour over a real App (SQLite file, the real index):
// plain declines that name nothing the question lacks, the newest source winning a dated conflict,
// format instructions, and citations that list the sources drawn on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { answerService } from './service.ts';
import type { AnswerRequest } from './types.ts';

let app: App;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');

before(async () => {
  app = await testApp();
  const feed = await addFeed(app, 'https://coast.example/feed.xml', 'Coast News');
  await ingest(app, feed, [
    {
      url: 'https://coast.example/storm-1',
      title: 'Storm batters Marlow harbour',
      publishedAt: day('2025-01-10'),
      content: p(
        'Updated Jan. 10, 2025, 6:02 p.m. ET',
        'The storm killed 12 people in the coastal town of Marlow, officials said on Friday.',
        'Fishing boats were torn from their moorings and the harbour wall gave way in two places.',
      ),
    },
    {
      url: 'https://coast.example/storm-2',
      title: 'Marlow storm death toll rises',
      publishedAt: day('2025-01-14'),
      content: p(
        'The death toll from the storm in Marlow rose to 19 people, officials said on Tuesday.',
        'Rescue teams are still searching the flooded lower town near the harbour.',
      ),
    },
    {
      url: 'https://coast.example/council',
      title: 'Marlow council approves harbour budget',
      publishedAt: day('2025-01-05'),
      content: p(
        'The Marlow town council approved a budget for harbour maintenance on Monday.',
        'Councillor Ann Reyes said the harbour wall had needed repairs for years.',
      ),
    },
    {
      url: 'https://coast.example/bakery',
      title: 'Bakery opens on Marlow high street',
      publishedAt: day('2025-01-03'),
      content: p(
        'A new bakery opened on the Marlow high street this week, selling sourdough and pastries.',
        'The owners moved to the town from the city last spring.',
      ),
    },
  ]);
});
after(async () => {
  await app.close();
});

const ask = (content: string, extra: Partial<AnswerRequest> = {}) =>
  answerService(app).complete({
    model: 'sonar',
    messages: [{ role: 'user', content }],
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
    ...extra,
  });

test("a question the feeds do not answer is declined plainly, naming only the question's own words", async () => {
  const question = 'Who won the chess championship in Marlow?';
  const r = await ask(question);
  assert.match(r.content, /^Your feeds do not answer this/);
  // Nothing the question did not contain is named: every capitalized word is the question's.
  const asked = new Set(question.match(/\p{Lu}\p{L}+/gu));
  for (const name of r.content.match(/\p{Lu}\p{L}+/gu) ?? [])
    assert.ok(asked.has(name) || ['Your', 'The'].includes(name), `"${name}" is named in "${r.content}"`);
  assert.doesNotMatch(r.content, /\[\d+\]/, 'no quoted sentence');
  assert.ok(r.citations.length >= 1, 'the closest sources are still listed');
});

test('when sources of different dates disagree, the newest wins and the answer says when', async () => {
  const r = await ask('How many people did the storm in Marlow kill?');
  assert.match(
    r.content,
    /^As of 14 January 2025, the newest report says 19 people; an earlier report, on 10 January 2025, said 12 people\./,
  );
  const body = r.content.split('\n\n')[1]!;
  assert.match(
    body,
    /^On 14 January 2025, the death toll from the storm in Marlow rose to 19 people, officials said on Tuesday\.\[(\d+)\]/,
  );
  const n = Number(/\[(\d+)\]/.exec(body)![1]);
  assert.equal(r.citations[n - 1], 'https://coast.example/storm-2');
  // The older figure is quoted too, with its own day.
  assert.match(body, /On 10 January 2025, the storm killed 12 people in the coastal town of Marlow/);
  assert.doesNotMatch(r.content, /ET The storm|p\.m\. ET/, 'the dateline is not quoted');
});

test('citations list the sources drawn on in search order; [n] indexes that list', async () => {
  const r = await ask('What happened to the harbour wall in Marlow?');
  assert.ok(r.citations.length >= 3, `${r.citations.length} citations`);
  assert.deepEqual(
    r.searchResults.map((s) => s.url),
    r.citations,
  );
  for (const m of r.content.matchAll(/\[(\d+)\]/g)) assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= r.citations.length);
});

test('format instructions: one sentence, bullets', async () => {
  const one = await ask('What happened to the harbour wall in Marlow?', {
    messages: [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: 'What happened to the harbour wall in Marlow?' },
    ],
  });
  assert.equal(one.content.match(/\[\d+\]/g)?.length, 1, one.content);
  const bullets = await ask('Give me a bullet list: what happened to the harbour wall in Marlow?');
  assert.match(bullets.content, /^- .+\[\d+\]/m);
});

test('summaries are a dated digest, newest first', async () => {
  const r = await ask('Summarize the news about Marlow');
  const dates = [...r.content.matchAll(/^- \*\*(\d{4}-\d\d-\d\d)\*\*: /gm)].map((m) => m[1]!);
  assert.ok(dates.length >= 3, r.content);
  assert.deepEqual(dates, [...dates].sort().reverse());
});
