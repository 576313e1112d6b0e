// A sense of time in answers, over a real App (SQLite file, the real index): the question's time
// words read against an injected "today" (`asOf`), the recency prior they switch on (and only
// they), quotes introduced by their sources' days, and a dated conflict the newest source wins.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { answerService } from './service.ts';
import type { AnswerRequest } from './types.ts';
import { applyRecencyPrior, timeCueOf } from './pipelines/time-cues.ts';
import { datedLead, quoteVariants } from './engines/extractive-dates.ts';
import type { SearchHit } from '../search/types.ts';

const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');
const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

test('time words name a window counted from today', () => {
  const now = day('2025-03-14');
  const window = (q: string) => {
    const c = timeCueOf(q, now);
    return c && [c.phrase, iso(c.from), iso(c.to - 1)];
  };
  assert.deepEqual(window('What did the council decide this week?'), ['this week', '2025-03-08', '2025-03-14']);
  assert.deepEqual(window('Who resigned yesterday?'), ['yesterday', '2025-03-13', '2025-03-14']);
  assert.deepEqual(window('What happened in March?'), ['in March', '2025-03-01', '2025-03-31']);
  // A month still ahead this year is last year's.
  assert.deepEqual(window('What happened in November?'), ['in November', '2024-11-01', '2024-11-30']);
  assert.deepEqual(window('How many homes were sold in 2023?'), ['in 2023', '2023-01-01', '2023-12-31']);
  assert.deepEqual(window('How much aid has been sent since the war began in 2022?')?.slice(1), [
    '2022-01-01',
    '2025-03-14',
  ]);
  assert.equal(window('What is the latest on the bridge?')?.[0], 'latest');
  // No time words, or words that only look like them.
  assert.equal(window('Who is the mayor of New York?'), undefined);
  assert.equal(window('How many people live in Marlow?'), undefined);
  assert.equal(window('Which new law did the council pass?'), undefined);
});

test('the recency prior lifts hits inside the window, and leaves the order alone when none is', () => {
  const hit = (url: string, at: string | null) =>
    ({ url, title: url, publishedAt: at ? day(at) : null, passages: [], score: 1 }) as unknown as SearchHit;
  const hits = [hit('old-a', '2019-05-01'), hit('old-b', '2021-02-01'), hit('new', '2025-03-12'), hit('undated', null)];
  const cue = timeCueOf('What happened this week?', day('2025-03-14'))!;
  const r = applyRecencyPrior(hits, cue);
  assert.equal(r.hits[0]!.url, 'new');
  assert.ok(r.applied);
  assert.match(r.note, /1 of 4 articles found are from then/);
  const later = timeCueOf('What happened this week?', day('2026-11-24'))!;
  const none = applyRecencyPrior(hits, later);
  assert.deepEqual(
    none.hits.map((h) => h.url),
    hits.map((h) => h.url),
  );
  assert.match(none.note, /no article found is from then \(the newest is from 2025-03-12\)/);
});

let app: App;

before(async () => {
  app = await testApp();
  const feed = await addFeed(app, 'https://valley.example/feed.xml', 'Valley Post');
  await ingest(app, feed, [
    {
      // The best match by words: it repeats every term of the question, but it is years old.
      url: 'https://valley.example/bridge-2019',
      title: 'Hollin bridge repairs: council plan for the Hollin river bridge',
      publishedAt: day('2019-06-02'),
      content: p(
        'The council presented its plan for the Hollin river bridge repairs, and the bridge repairs plan was welcomed.',
        'Engineers said the Hollin bridge would need new steel cables within a decade.',
      ),
    },
    {
      url: 'https://valley.example/bridge-this-week',
      title: 'Hollin bridge closed after inspection',
      publishedAt: day('2025-03-12'),
      content: p(
        'The Hollin river bridge was closed to traffic on Wednesday after inspectors found cracks in two piers.',
        'Drivers face a detour of 14 miles while the repairs are planned.',
      ),
    },
    {
      url: 'https://valley.example/budget-2024',
      title: 'Hollin bridge repairs to cost $40 million',
      publishedAt: day('2024-03-01'),
      content: p('The repairs of the Hollin river bridge will cost $40 million, the county engineer estimated.'),
    },
    {
      url: 'https://valley.example/budget-2025',
      title: 'Hollin bridge repair bill rises',
      publishedAt: day('2025-02-20'),
      content: p(
        'The repairs of the Hollin river bridge will now cost $55 million, the county engineer said, after steel prices rose.',
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
    asOf: day('2025-03-14'),
    ...extra,
  });

test('"this week" ranks this week\'s article first; without time words relevance decides', async () => {
  const recent = await ask('What happened to the Hollin river bridge this week?');
  assert.equal(recent.citations[0], 'https://valley.example/bridge-this-week', recent.citations.join('\n'));
  assert.match(recent.content, /closed to traffic on Wednesday/);
  const plain = await ask('What happened to the Hollin river bridge repairs plan?');
  assert.notEqual(plain.citations[0], 'https://valley.example/bridge-this-week');
});

test('the reasoning trace says which day is today and what the time words did', async () => {
  const r = await ask('What happened to the Hollin river bridge this week?', { model: 'sonar-reasoning' });
  const think = /<think>\n([\s\S]*?)\n<\/think>/.exec(r.content)![1]!;
  assert.match(think, /Today is 2025-03-14\. The question asks about "this week" \(2025-03-08 to 2025-03-14\)/);
  const later = await ask('What happened to the Hollin river bridge this week?', {
    model: 'sonar-reasoning',
    asOf: day('2026-11-24'),
  });
  assert.match(
    later.content,
    /no article found is from then \(the newest is from 2025-03-12\): ranked by relevance alone/,
  );
});

test('quotes open with their source\'s day: "On 12 March 2025, the …"', async () => {
  const r = await ask('Why was the Hollin river bridge closed to traffic?');
  assert.match(
    r.content,
    /On 12 March 2025, the Hollin river bridge was closed to traffic on Wednesday after inspectors found cracks in two piers\.\[\d+\]/,
  );
});

test('dated conflict: two sources, two figures, the newer leads and the answer says when', async () => {
  const r = await ask('How much will the repairs of the Hollin river bridge cost?');
  assert.match(
    r.content,
    /^As of 20 February 2025, the newest report says \$55 million; an earlier report, on 1 March 2024, said \$40 million\./,
    r.content,
  );
  const [, body] = r.content.split('\n\n');
  assert.match(body!, /^On 20 February 2025, the repairs of the Hollin river bridge will now cost \$55 million/);
  const n = Number(/\[(\d+)\]/.exec(body!)![1]);
  assert.equal(r.citations[n - 1], 'https://valley.example/budget-2025');
});

test('a dated quote lowers only a common first word, never a name, and leaves datelines alone', () => {
  const at = day('2025-03-12');
  assert.equal(datedLead('The storm hit.', at), 'On 12 March 2025, the storm hit.');
  assert.equal(datedLead('Ultimately, she lost.', at), 'On 12 March 2025, ultimately, she lost.');
  assert.equal(
    datedLead('Thousands of people waited.', at, 'And thousands more came.'),
    'On 12 March 2025, thousands of people waited.',
  );
  assert.equal(datedLead('Zelensky said no.', at, 'Zelensky spoke.'), 'On 12 March 2025, Zelensky said no.');
  assert.equal(datedLead('PARIS − French far-right leader Marine Le Pen was convicted.', at), undefined);
  assert.equal(datedLead('On Tuesday, the council met.', at), undefined);
  // Group nouns and the singular of a lower-case word are common; names, "I" and acronyms are kept.
  assert.equal(
    datedLead('Researchers tracked the herd.', at, 'Researchers tracked the herd.'),
    'On 12 March 2025, researchers tracked the herd.',
  );
  assert.equal(
    datedLead('Ranchers lost cattle.', at, 'One rancher said so.'),
    'On 12 March 2025, ranchers lost cattle.',
  );
  assert.equal(datedLead('Italy voted.', at, 'Italy voted.'), 'On 12 March 2025, Italy voted.');
  assert.equal(datedLead('Kelly resigned.', at), 'On 12 March 2025, Kelly resigned.');
  assert.equal(datedLead('Apple sued.', at, 'Apple sued. Apple Inc.'), 'On 12 March 2025, Apple sued.');
  assert.equal(datedLead("I'm leaving, she said.", at), "On 12 March 2025, I'm leaving, she said.");
  assert.equal(datedLead('NASA delayed the launch.', at), 'On 12 March 2025, NASA delayed the launch.');
  assert.equal(datedLead('WASHINGTON (Reuters) — The vote failed.', at), undefined);
  assert.equal(datedLead('Seriously, nobody came.', at), 'On 12 March 2025, seriously, nobody came.');
  // A capitalized word before another opens a name, even when the article writes it in lower case.
  assert.equal(datedLead('New York City lost power.', at, 'a new plan'), 'On 12 March 2025, New York City lost power.');
  // A sentence about an earlier year keeps no day in front: the day would date the old event.
  assert.equal(datedLead('The quake struck on Feb. 4, 1965, near Alaska.', at), undefined);
  assert.equal(datedLead('The plan runs until 2027.', at), 'On 12 March 2025, the plan runs until 2027.');
  assert.deepEqual(quoteVariants('On 12 March 2025, the storm hit.'), [
    'On 12 March 2025, the storm hit.',
    'the storm hit.',
    'The storm hit.',
  ]);
});

test('the reasoning models show the real reasoning: type, candidates and support, conflict, dates, lead', async () => {
  const r = await ask('How much will the repairs of the Hollin river bridge cost?', { model: 'sonar-reasoning-pro' });
  const think = /<think>\n([\s\S]*?)\n<\/think>/.exec(r.content)![1]!;
  assert.match(think, /Answer type: number\./);
  const candidates = /^Candidates \(support across sources[^)]*\): (.*)$/m.exec(think)![1]!;
  assert.match(candidates, /\$40 million [\d.]+ from \[\d+\]/);
  assert.match(candidates, /\$55 million [\d.]+ from \[\d+\]/);
  assert.match(
    think,
    /Conflict: "\$55 million" \(newest source 2025-02-20\) against "\$40 million" \(2024-03-01\); the newest leads\./,
  );
  assert.match(think, /Why this lead: the sentence of \[\d+\] that names the newest claim, "\$55 million"/);
  assert.match(think, /Dates of the quoted sources: 2025-02-20, 2024-03-01\b/);
  // The answer after the block is the same as sonar-pro's would be: the trace explains it.
  assert.match(r.content, /<\/think>\n\nAs of 20 February 2025, the newest report says \$55 million/);
});

test("deep research reads this week's articles first when the question asks for them", async () => {
  const r = await ask('What happened to the Hollin river bridge this week?', {
    model: 'sonar-deep-research',
    reasoningEffort: 'minimal',
  });
  assert.match(
    r.content,
    /Today is 2025-03-14\. The question asks about "this week" \(2025-03-08 to 2025-03-14\): 1 of \d+ articles found are from then/,
  );
  assert.match(r.content, /Read \d+ articles in full:\n- Hollin bridge closed after inspection/);
});
