// "Summarize the news about X" over a real App: one sentence per story (wire copies of one event
// are one story), newest first, each with its day and a citation of the article it quotes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { answerService } from './service.ts';
import { clusterHeading, clusterStories, SAME_STORY, SAME_SUBTOPIC } from './engines/story-clusters.ts';
import type { GroundingSource } from './engines/engine.ts';
import type { SearchHit } from '../search/types.ts';

const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');

const FLOOD = [
  'Floodwater from the Tarn river swept through the centre of Brellac on Sunday, forcing 300 residents from their homes.',
  'Firefighters used boats to reach families trapped on upper floors near the old bridge.',
];
let app: App;
/** Title and plain text of every stored article, by URL: where a quoted sentence must be found verbatim. */
const articleText = new Map<string, string>();
const store = async (feed: number, items: Parameters<typeof ingest>[2]) => {
  for (const it of items) articleText.set(it.url, `${it.title}\n${(it.content ?? '').replace(/<\/?p>/g, '\n')}`);
  await ingest(app, feed, items);
};

before(async () => {
  app = await testApp();
  const wire = await addFeed(app, 'https://wire.example/feed.xml', 'Wire');
  const local = await addFeed(app, 'https://brellac-local.example/feed.xml', 'Brellac Local');
  await store(wire, [
    {
      url: 'https://wire.example/brellac-flood',
      title: 'Brellac flood forces 300 from homes',
      publishedAt: day('2025-05-04'),
      content: p(...FLOOD),
    },
    {
      url: 'https://wire.example/brellac-mayor',
      title: 'Brellac elects Odile Marchal as mayor',
      publishedAt: day('2025-03-16'),
      content: p(
        'Odile Marchal was elected mayor of Brellac on Sunday with 54 percent of the vote.',
        'She promised to reopen the town library within a year.',
      ),
    },
  ]);
  await store(local, [
    {
      // The same flood story, copied from the wire with a new headline.
      url: 'https://brellac-local.example/flood-copy',
      title: 'Tarn floods Brellac: 300 residents leave their homes',
      publishedAt: day('2025-05-04'),
      content: p(...FLOOD, 'The Brellac town hall opened its gym as a shelter.'),
    },
    {
      url: 'https://brellac-local.example/festival',
      title: 'Brellac cheese festival draws record crowd',
      publishedAt: day('2025-04-12'),
      content: p('The Brellac cheese festival drew a record crowd of 12,000 visitors on Saturday.'),
    },
  ]);
});
after(async () => {
  await app.close();
});

test('a summary tells each story once, newest first, each dated and cited', async () => {
  const r = await answerService(app).complete({
    model: 'sonar-pro',
    messages: [{ role: 'user', content: 'Summarize the news about Brellac' }],
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
  });
  const items = r.content.split('\n').filter((l) => l.startsWith('- '));
  assert.equal(items.length, 3, r.content);
  assert.deepEqual(
    items.map((l) => /\*\*(\d{4}-\d\d-\d\d)\*\*/.exec(l)?.[1]),
    ['2025-05-04', '2025-04-12', '2025-03-16'],
  );
  assert.equal(items.filter((l) => /Floodwater from the Tarn/.test(l)).length, 1, 'the flood is told once');
  for (const item of items) {
    const n = Number(/\[(\d+)\]$/.exec(item)![1]);
    assert.ok(n >= 1 && n <= r.citations.length);
  }
  const mayor = items.find((l) => l.includes('Odile Marchal'))!;
  assert.equal(r.citations[Number(/\[(\d+)\]$/.exec(mayor)![1]) - 1], 'https://wire.example/brellac-mayor');
});

test('story clusters: copies of one story together, headings from the shared content, never a cut name', () => {
  const src = (n: number, title: string, text: string, at: string): GroundingSource => ({
    n,
    hit: { url: `https://x.example/${n}`, title, publishedAt: day(at), passages: [] } as unknown as SearchHit,
    texts: [text],
  });
  const sources = [
    src(1, 'Brellac flood forces 300 from homes', FLOOD.join(' '), '2025-05-04'),
    src(2, 'Festival in Brellac', 'The Brellac cheese festival drew a record crowd of 12,000 visitors.', '2025-04-12'),
    src(3, 'Tarn floods Brellac', FLOOD.join(' '), '2025-05-05'),
    src(
      4,
      'Orba\u0301n visits Brellac flood zone - Wire News',
      'Viktor Orba\u0301n visited the Tarn flood zone on Tuesday and promised aid to rebuild the homes near the bridge.',
      '2025-05-06',
    ),
  ];
  const stories = clusterStories('Summarize the news about Brellac', sources, SAME_STORY);
  assert.deepEqual(
    stories.map((c) => c.members.map((m) => m.n)),
    [[1, 3], [2], [4]],
  );
  assert.equal(stories[0]!.newest, day('2025-05-05'));
  const topics = clusterStories('Brellac', sources, SAME_SUBTOPIC);
  const flood = topics.find((c) => c.members.some((m) => m.n === 4))!;
  assert.ok(flood.members.length >= 3, 'the visit joins the flood subtopic');
  // The most central headline of the subtopic: a flood copy's, not the visit's.
  assert.equal(clusterHeading('Brellac', flood), 'Tarn floods Brellac');
  // A combining accent never cuts a name: a lone article's headline is its heading, whole.
  const visit = clusterStories('Brellac', sources, SAME_STORY).find((c) => c.members[0]!.n === 4)!;
  assert.equal(clusterHeading('Brellac', visit), 'Orba\u0301n visits Brellac flood zone');
  assert.equal(clusterHeading('Brellac', stories[1]!), 'Festival in Brellac');
});

/** A low-effort deep research answer over the test library, and its report (what follows </think>). */
async function deepResearch(question: string) {
  const r = await answerService(app).complete({
    model: 'sonar-deep-research',
    messages: [{ role: 'user', content: question }],
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
    reasoningEffort: 'low',
  });
  return { r, report: r.content.slice(r.content.indexOf('</think>') + '</think>'.length).trim() };
}

test('deep research: one section per subtopic, headed by a headline of its articles, with its days', async () => {
  const { r, report } = await deepResearch('What is going on in Brellac?');
  const sections = report.split(/^## /m).slice(1);
  const headings = sections.map((s) => s.split('\n')[0]!);
  assert.equal(headings[0], 'Overview');
  const titles = [
    'Brellac flood forces 300 from homes',
    'Tarn floods Brellac: 300 residents leave their homes',
    'Brellac elects Odile Marchal as mayor',
    'Brellac cheese festival draws record crowd',
  ];
  assert.ok(headings.length >= 3, report);
  for (const h of headings.slice(1)) assert.ok(titles.includes(h), `"${h}" is a headline of the section's articles`);
  assert.equal(new Set(headings).size, headings.length, 'no subtopic twice');
  // The local copy of the wire's flood story is one story: read once, so its section has one article.
  const flood = sections.find((s) => /flood/i.test(s.split('\n')[0]!))!;
  assert.match(flood, /^.+\n\n_4 May 2025, 1 article_\n\n/);
  assert.match(r.content, /Grouped the \d+ articles read into subtopics: /);
});

test('deep research answers a question first, lists every article read in search order, and declines what they do not say', async () => {
  const { r, report } = await deepResearch('Who was elected mayor of Brellac?');
  const overview = report.split(/^## /m)[1]!;
  // The overview opens with the sentence that names the mayor, cited by its place in the list.
  const first = /^Overview\n\n(.+?)\[(\d+)\]/.exec(overview);
  assert.ok(first, overview);
  assert.match(first[1]!, /Odile Marchal was elected mayor of Brellac/);
  assert.equal(r.citations[Number(first[2]) - 1], 'https://wire.example/brellac-mayor');
  // Every article read is listed, each once, in search order: [n] is the n-th.
  assert.ok(r.citations.length >= 3, r.citations.join(' '));
  assert.equal(new Set(r.citations).size, r.citations.length);
  assert.match(r.content, /Answer type: person\. Best-supported candidate: Odile Marchal/);
  // Every quote, in the overview and the sections, is verbatim in the article its [n] points to.
  let quoted = 0;
  for (const m of report.matchAll(/(?:^|\]\s*|\n)([^[\n_#]+?)\[(\d+)\]/g)) {
    const url = r.citations[Number(m[2]) - 1]!;
    assert.ok(articleText.get(url)?.includes(m[1]!.trim()), `"${m[1]}" is not in ${url}`);
    quoted++;
  }
  assert.ok(quoted >= 3, `${quoted} quotes checked`);

  const { r: none, report: reply } = await deepResearch('Which Brellac bakery won the national bread prize?');
  assert.match(reply, /^Your feeds do not answer this: /, reply);
  assert.doesNotMatch(reply, /^## /m, 'no report of neighbouring subtopics');
  assert.ok(none.citations.length > 0, 'the closest articles are listed');
});
