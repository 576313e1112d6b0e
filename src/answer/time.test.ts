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
import { countsFromDayOfWriting, datedLead, quoteVariants } from './engines/extractive-dates.ts';
import type { SearchHit } from '../search/types.ts';
import { filteredOutMessage, filtersAsOf, keptByFilters } from './pipelines/filters-in-time.ts';
import { buildPrompt } from './engines/prompt.ts';

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
      // Written years before "today": its "This morning" is the day of writing.
      url: 'https://valley.example/ferry-2022',
      title: 'Marlow ferry returns',
      publishedAt: day('2022-04-05'),
      content: p(
        'This morning, the Marlow ferry carried its first passengers since the winter storms.',
        'The Marlow ferry crossing takes eleven minutes and runs every half hour.',
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

test('quotes open with their source\'s day: "12 March 2025: The …"', async () => {
  const r = await ask('Why was the Hollin river bridge closed to traffic?');
  assert.match(
    r.content,
    /12 March 2025: The Hollin river bridge was closed to traffic on Wednesday after inspectors found cracks in two piers\.\[\d+\]/,
  );
});

test('a quote that counts from its day of writing ("This morning, …") opens with that day', async () => {
  const r = await ask('Is the Marlow ferry carrying passengers again?');
  assert.match(r.content, /5 April 2022: This morning, the Marlow ferry carried its first passengers/, r.content);
  // Asked "when", the day is the answer: "this morning" alone would say nothing of it.
  const when = await ask('When did the Marlow ferry carry passengers again?');
  assert.match(when.content, /5 April 2022: This morning, the Marlow ferry carried its first passengers/, when.content);
});

test('dated conflict: two sources, two figures, the newer leads and the answer says when', async () => {
  const r = await ask('How much will the repairs of the Hollin river bridge cost?');
  assert.match(
    r.content,
    /^As of 20 February 2025, the newest report says \$55 million; an earlier report, on 1 March 2024, said \$40 million\./,
    r.content,
  );
  const [, body] = r.content.split('\n\n');
  assert.match(body!, /^20 February 2025: The repairs of the Hollin river bridge will now cost \$55 million/);
  const n = Number(/\[(\d+)\]/.exec(body!)![1]);
  assert.equal(r.citations[n - 1], 'https://valley.example/budget-2025');
});

test('a dated quote is its day as a clause of its own, then the sentence verbatim; datelines and named dates keep none', () => {
  const at = day('2025-03-12');
  assert.equal(datedLead('The storm hit.', at), '12 March 2025: The storm hit.');
  // The first word is never lowered or guessed at: "Within" stays as the article wrote it.
  assert.equal(
    datedLead('Within the news of the day, the launch slipped.', at),
    '12 March 2025: Within the news of the day, the launch slipped.',
  );
  assert.equal(datedLead('Zelensky said no.', at), '12 March 2025: Zelensky said no.');
  assert.equal(datedLead("I'm leaving, she said.", at), "12 March 2025: I'm leaving, she said.");
  assert.equal(datedLead('PARIS − French far-right leader Marine Le Pen was convicted.', at), undefined);
  // Time words counted from the day of writing are anchored by it; a named date keeps its own.
  assert.equal(datedLead('On Tuesday, the council met.', at), '12 March 2025: On Tuesday, the council met.');
  assert.equal(
    datedLead('This morning, Twitter named a new board member.', at),
    '12 March 2025: This morning, Twitter named a new board member.',
  );
  assert.equal(datedLead('Yesterday the vote failed.', at), '12 March 2025: Yesterday the vote failed.');
  assert.equal(datedLead('On 4 March, the council met.', at), undefined);
  assert.equal(datedLead('In March the council met.', at), undefined);
  assert.ok(countsFromDayOfWriting('The ferry sailed this morning.'));
  assert.ok(countsFromDayOfWriting('On Tuesday, the council met.'));
  assert.ok(!countsFromDayOfWriting('The council met on 4 March.'));
  assert.equal(datedLead('WASHINGTON (Reuters) — The vote failed.', at), undefined);
  // A sentence about an earlier year keeps no day in front: the day would date the old event.
  assert.equal(datedLead('The quake struck on Feb. 4, 1965, near Alaska.', at), undefined);
  assert.equal(datedLead('The plan runs until 2027.', at), '12 March 2025: The plan runs until 2027.');
  assert.deepEqual(quoteVariants('12 March 2025: The storm hit.'), ['12 March 2025: The storm hit.', 'The storm hit.']);
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

test('a filter that leaves nothing: the answer says what it removed, never that nothing exists', async () => {
  // The bridge's newest article is from 12 March 2025: a week up to 24 November 2026 holds none.
  const r = await ask('What happened to the Hollin river bridge?', {
    asOf: day('2026-11-24'),
    filters: { recency: 'week' },
  });
  assert.doesNotMatch(r.content, /I found no articles/);
  assert.match(
    r.content,
    /^4 articles mention Hollin; none is from the week up to 24 November 2026 \(the newest is from 12 March 2025\)\.$/,
    r.content,
  );
  const domain = await ask('What happened to the Hollin river bridge?', { filters: { domainFilter: ['nasa.gov'] } });
  assert.match(
    domain.content,
    /^4 articles mention Hollin; none is from nasa\.gov \(the newest is from 12 March 2025\)\.$/,
  );
  const dated = await ask('What happened to the Hollin river bridge?', {
    filters: { publishedAfter: day('2025-06-01') },
  });
  assert.match(dated.content, /none is dated after 1 June 2025 \(the newest is from 12 March 2025\)\./, dated.content);
  // A topic no article mentions at all is still "no articles about …".
  const none = await ask('What did the Zorblat committee decide?', { filters: { recency: 'week' } });
  assert.match(none.content, /I found no articles about Zorblat/, none.content);
});

test('--as-of moves the recency filter: the week counts back from the as-of day, not from the clock', async () => {
  // On the real clock (2026 and later) a week holds nothing; as of 14 March 2025 it holds the closure.
  const r = await ask('What happened to the Hollin river bridge?', {
    asOf: day('2025-03-14'),
    filters: { recency: 'week' },
  });
  assert.deepEqual(r.citations, ['https://valley.example/bridge-this-week']);
  assert.match(r.content, /closed to traffic on Wednesday/);
  // Nor does the window reach past the as-of day: as of 1 March 2025 the week before holds nothing.
  const earlier = await ask('What happened to the Hollin river bridge?', {
    asOf: day('2025-03-01'),
    filters: { recency: 'week' },
  });
  assert.match(earlier.content, /none is from the week up to 1 March 2025 \(the newest is from 12 March 2025\)/);
});

test('sources far older than the period the question names: the answer says so first', async () => {
  const r = await ask('What happened to the Hollin river bridge this week?', { asOf: day('2026-11-24') });
  assert.match(
    r.content,
    /^Your feeds have nothing from this week; the newest articles found, from March 2025, say:\n\n/,
    r.content,
  );
  // Current sources: no such line.
  const current = await ask('What happened to the Hollin river bridge this week?', { asOf: day('2025-03-14') });
  assert.doesNotMatch(current.content, /Your feeds have nothing/);
  // "Latest" asks for the newest there is, not for a period: the quotes' days say how old it is.
  const latest = await ask('What is the latest on the Hollin river bridge?', { asOf: day('2026-11-24') });
  assert.doesNotMatch(latest.content, /Your feeds have nothing/);
  // Without time words the age of the news is not in question.
  const plain = await ask('What happened to the Hollin river bridge?', { asOf: day('2026-11-24') });
  assert.doesNotMatch(plain.content, /Your feeds have nothing/);
});

test('generative engines are told the sources are older than the period, and to say so first', () => {
  const asOf = day('2026-11-24');
  const hit = { title: 't', sourceName: 's', url: 'https://x/', publishedAt: day('2022-04-05'), passages: [] };
  const req = {
    question: 'What did NASA announce about Artemis this week?',
    asOf,
    timeCue: timeCueOf('What did NASA announce about Artemis this week?', asOf),
    history: [],
    system: [],
    sources: [{ n: 1, hit: hit as unknown as SearchHit, texts: ['NASA rolled out the Artemis rocket.'] }],
    searched: true,
    style: 'concise' as const,
    sampling: {},
  };
  const system = buildPrompt(req)[0]!.content;
  assert.match(system, /No source is from that period: the newest is from 2022-04-05\./);
  assert.match(system, /"Your feeds have nothing from this week; the newest articles found, from April 2022, say …"/);
  const current = buildPrompt({ ...req, asOf: day('2022-04-06'), timeCue: timeCueOf(req.question, day('2022-04-06')) });
  assert.doesNotMatch(current[0]!.content, /No source is from that period/);
});

test('the words of the filters and of the period', () => {
  assert.equal(keptByFilters({ recency: 'week' }), 'from the last week');
  assert.equal(keptByFilters({ recency: 'day' }, day('2022-04-06')), 'from the day up to 6 April 2022');
  assert.equal(
    keptByFilters({ domainFilter: ['-example.com', '-foo.org'] }),
    'from a site other than example.com or foo.org',
  );
  assert.equal(
    keptByFilters({ publishedAfter: day('2022-01-01'), publishedBefore: day('2022-02-01') }),
    'dated between 1 January 2022 and 1 February 2022',
  );
  assert.equal(
    keptByFilters({ recency: 'month', domainFilter: ['nasa.gov'] }),
    'from the last month and from nasa.gov',
  );
  const f = filtersAsOf({ recency: 'week', domainFilter: ['nasa.gov'] }, day('2022-04-06'));
  assert.deepEqual(f, {
    domainFilter: ['nasa.gov'],
    publishedAfter: day('2022-04-06') - 7 * 86_400,
    publishedBefore: day('2022-04-06'),
  });
  // No as-of day: the search resolves recency against the clock, as before.
  assert.deepEqual(filtersAsOf({ recency: 'week' }, undefined), { recency: 'week' });
  assert.equal(
    filteredOutMessage(
      { count: 70, more: false, topic: ['NASA'], newest: day('2022-04-05'), kept: 'from the last week' },
      (xs) => xs.join(' and '),
    ),
    '70 articles mention NASA; none is from the last week (the newest is from 5 April 2022).',
  );
  assert.equal(
    filteredOutMessage({ count: 1, more: false, topic: ['NASA'], newest: null, kept: 'from nasa.gov' }, (xs) =>
      xs.join(' and '),
    ),
    '1 article mentions NASA; it is not from nasa.gov.',
  );
});

test('deep research too: a filter that leaves nothing is named with what it removed', async () => {
  const r = await ask('What happened to the Hollin river bridge?', {
    model: 'sonar-deep-research',
    asOf: day('2026-11-24'),
    filters: { recency: 'month' },
  });
  assert.match(
    r.content,
    /4 articles mention Hollin; none is from the month up to 24 November 2026 \(the newest is from 12 March 2025\)\.$/,
    r.content,
  );
});
