// The extractive engine's answer-first behaviour over a real App (SQLite file, the real index):
// plain declines that name nothing the question lacks, the newest source winning a dated conflict,
// format instructions, and citations that list the sources drawn on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { answerService } from './service.ts';
import { quoteVariants } from './engines/extractive-dates.ts';
import { declineMessage } from './engines/extractive.ts';
import type { AnswerRequest } from './types.ts';

let app: App;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');

/** Plain text of every stored article, by URL: what a quoted sentence must be found in verbatim. */
const articleText = new Map<string, string>();
const store = async (feed: number, items: Parameters<typeof ingest>[2]) => {
  for (const it of items)
    articleText.set(
      it.url,
      (it.content ?? '')
        .split(/<\/?p>/)
        .filter(Boolean)
        .join('\n'),
    );
  await ingest(app, feed, items);
};

before(async () => {
  app = await testApp();
  const feed = await addFeed(app, 'https://coast.example/feed.xml', 'Coast News');
  await store(feed, [
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
  // One firm named by three sources, a rival bidder by one (the best-covering sentence names the rival).
  const valley = await addFeed(app, 'https://valley.example/feed.xml', 'Valley Post');
  await store(valley, [
    {
      url: 'https://valley.example/bids',
      title: 'Tarn river bridge: who will build it?',
      publishedAt: day('2025-02-01'),
      content: p(
        'Brightline Works, a firm from Oslo, bid to build the new bridge over the Tarn river, the county said.',
        'The county expects the bridge to open in 2027.',
      ),
    },
    {
      url: 'https://valley.example/contract',
      title: 'County signs Tarn bridge contract',
      publishedAt: day('2025-02-10'),
      content: p(
        'The county picked Halvorsen Construction to build the new bridge over the Tarn river.',
        'The contract is worth 40 million kroner.',
      ),
    },
    {
      url: 'https://valley.example/works',
      title: 'Works on the Tarn bridge begin in March',
      publishedAt: day('2025-02-12'),
      content: p('Halvorsen Construction will start building the Tarn bridge in March, the firm said.'),
    },
    {
      url: 'https://valley.example/survey',
      title: 'Engineers survey the Tarn riverbanks',
      publishedAt: day('2025-02-14'),
      content: p('Engineers from Halvorsen Construction surveyed the Tarn river banks for the new bridge on Monday.'),
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

test('a decline names the person the sources mention, not the capitalized word opening the question', () => {
  const source = (title: string, text: string) => ({ hit: { title }, texts: [text] }) as never;
  const message = declineMessage(
    'Actor Ryan Gosling starred in which film about a stuntman?',
    { type: 'org' } as never,
    [source('Box office', 'Ryan Gosling and Emily Blunt promoted the film in London.')],
  );
  assert.match(message, /1 article mentions Ryan Gosling, but none says/);
  assert.doesNotMatch(message, /Actor/);
  // A name that does open with its first word stays whole: "New York City" is not cut to "York City".
  const city = declineMessage('New York City police arrested how many people?', { type: 'number' } as never, [
    source('Arrests', 'New York City police said the inquiry goes on.'),
  ]);
  assert.match(city, /mentions New York City,/);
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
    /^14 January 2025: The death toll from the storm in Marlow rose to 19 people, officials said on Tuesday\.\[(\d+)\]/,
  );
  const n = Number(/\[(\d+)\]/.exec(body)![1]);
  assert.equal(r.citations[n - 1], 'https://coast.example/storm-2');
  // The older figure is quoted too, with its own day.
  assert.match(body, /10 January 2025: The storm killed 12 people in the coastal town of Marlow/);
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

test('length instructions: "keep it short", "in two sentences", bullets from a system message, sonar-pro too', async () => {
  const markers = (text: string) => text.match(/\[\d+\]/g)?.length ?? 0;
  const question = 'What happened to the harbour wall in Marlow?';
  const full = await ask(question);
  assert.ok(markers(full.content) >= 2, `without an instruction the answer quotes several sentences: ${full.content}`);
  const short = await ask(`${question} Keep it short.`);
  assert.equal(markers(short.content), 1, short.content);
  const two = await ask(question, {
    messages: [
      { role: 'system', content: 'Answer in two sentences.' },
      { role: 'user', content: question },
    ],
  });
  assert.equal(markers(two.content), 2, two.content);
  const bullets = await ask(question, {
    messages: [
      { role: 'system', content: 'Answer as a bullet list.' },
      { role: 'user', content: question },
    ],
  });
  const lines = bullets.content.split('\n');
  assert.ok(lines.length >= 2 && lines.every((l) => /^- .+\[\d+\]$/.test(l)), bullets.content);
  const pro = await ask(`Briefly: ${question}`, { model: 'sonar-pro' });
  assert.equal(markers(pro.content), 1, pro.content);
  const digest = await ask('Summarize the news about Marlow in two bullet points');
  assert.equal((digest.content.match(/^- /gm) ?? []).length, 2, digest.content);
});

test('the reasoning trace says why each sentence leads: the answer score for an answer, the story for a digest', async () => {
  const think = async (question: string) =>
    /<think>\n([\s\S]*?)\n<\/think>/.exec((await ask(question, { model: 'sonar-reasoning' })).content)![1]!;
  const answer = await think('Which company will build the new bridge over the Tarn river?');
  assert.match(
    answer,
    /Why this lead: the sentence of \[\d+\] with the highest answer score \([\d.]+; the best of another source, \[\d+\], has [\d.]+\): [a-z' ]+ \(\+[\d.]+\).*; it names "Halvorsen Construction" \(3 sources\)/,
  );
  const digest = await think('Summarize the news about Marlow');
  assert.match(digest, /newest first \(the lead is the newest story, \[\d+\]\)/);
  const stories = digest.match(
    /^Story "[^"]+" \(\d{4}-\d\d-\d\d\): quoting \[\d+\], its sentence \d+: it covers \d+ % of the question's terms and \d+ % of the story's own words/gm,
  );
  assert.ok(stories && stories.length >= 3, digest);
});

test('summaries are a dated digest, newest first', async () => {
  const r = await ask('Summarize the news about Marlow');
  const dates = [...r.content.matchAll(/^- \*\*(\d{4}-\d\d-\d\d)\*\*: /gm)].map((m) => m[1]!);
  assert.ok(dates.length >= 3, r.content);
  assert.deepEqual(dates, [...dates].sort().reverse());
});

test('the lead names the answer several sources agree on, not a rival named by one', async () => {
  const r = await ask('Which company will build the new bridge over the Tarn river?');
  const lead = r.content.slice(0, r.content.search(/\[\d+\]/));
  assert.match(lead, /Halvorsen Construction/, r.content);
  assert.doesNotMatch(lead, /Brightline/, r.content);
});

test('every [n] follows a sentence found verbatim in the article it cites', async () => {
  let quoted = 0;
  for (const question of [
    'How many people did the storm in Marlow kill?',
    'What happened to the harbour wall in Marlow?',
    'Which company will build the new bridge over the Tarn river?',
    'Summarize the news about Marlow',
  ]) {
    const r = await ask(question);
    const body = r.content.replace(/^(Sources disagree:|As of )[^\n]*\n\n/, '');
    for (const m of body.matchAll(/(?:^|\]\s*|\n(?:- )?(?:\*\*[\d-]+\*\*: )?)([^[\n]+?)\[(\d+)\]/g)) {
      const sentence = m[1]!.replace(/^- (\*\*[\d-]+\*\*: )?/, '').trim();
      const url = r.citations[Number(m[2]) - 1];
      assert.ok(url, `[${m[2]}] is outside the ${r.citations.length} citations`);
      // A quote may open with its source's day ("14 January 2025: The …"): the rest is verbatim.
      assert.ok(
        quoteVariants(sentence).some((v) => articleText.get(url)?.includes(v)),
        `"${sentence}" is not in ${url}`,
      );
      quoted++;
    }
  }
  assert.ok(quoted >= 6, `${quoted} quoted sentences checked`);
});
