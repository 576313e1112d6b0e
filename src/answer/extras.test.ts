// The extras of an answer: related questions a person would ask next (or none, never nonsense),
// and images that are the quoted articles' own lead pictures (never avatars, icons or pixels).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { testSql } from '../store/testing.ts';
import { answerService } from './service.ts';
import { deriveRelatedQuestions } from './related-questions.ts';
import { imagesFor } from './images.ts';
import type { SearchHit } from '../search/types.ts';

const hit = (url: string, title: string, ...passages: string[]) =>
  ({
    url,
    title,
    itemId: null,
    passages: passages.map((text) => ({ text })),
  }) as unknown as SearchHit;

// The shape of the issue-9 failure: a rhino story among football and tech headlines that open with
// capitalized common words, and adjectives written with a capital ("Sumatran", "Indonesian").
const RHINO_HITS = [
  hit(
    'https://n.example/rhino-death',
    'Sumatran rhino dies at Indonesian sanctuary',
    'The last Sumatran rhino in the Kerinci Seblat forest died at the Indonesian sanctuary in Way Kambas National Park.',
    'Officials at Way Kambas National Park said the animal, named Harapan, was 20.',
  ),
  hit(
    'https://n.example/rhino-births',
    'Way Kambas National Park hopes for Sumatran rhino births',
    'Keepers at Way Kambas National Park hope two Sumatran rhino calves will be born next year.',
    'The Indonesian government funds the breeding programme with the Global Wildlife Fund.',
  ),
  hit(
    'https://n.example/rhino-fund',
    'Global Wildlife Fund warns on Sumatran rhino numbers',
    'The Global Wildlife Fund says fewer than 50 Sumatran rhinos remain.',
    'Sumatran rhinos are the smallest living rhinoceroses.',
  ),
  hit(
    'https://n.example/clubs',
    'Clubs face fines over fan trouble',
    'Clubs were warned on Friday. Fans threw flares during the match.',
  ),
  hit('https://n.example/wp', 'WP Briefing: Episode 28: Coming to a WordCamp Near You', 'Episode 28 is out.'),
];

test('related questions: only real names from on-topic articles, never "How is Clubs connected to Sumatran?"', () => {
  const q = deriveRelatedQuestions(
    'What happened to the Sumatran rhino?',
    RHINO_HITS,
    new Set(['https://n.example/rhino-death']),
  );
  assert.ok(q.length >= 1, 'the recurring names give some');
  assert.ok(q.includes('What is the latest on Way Kambas National Park?'), q.join('\n'));
  assert.ok(q.includes('What is the latest on Global Wildlife Fund?'), q.join('\n'));
  for (const x of q) {
    assert.match(x, /^(What|How|Who|Where|When|Why) .+\?$/, x);
    assert.doesNotMatch(x, /\b(Clubs|Fans|Sumatran|Indonesian|Episode|WordCamp|Near|Officials)\b(?! rhino)/, x);
  }
});

test('related questions: none rather than nonsense when nothing on topic recurs', () => {
  const q = deriveRelatedQuestions('What happened to the Sumatran rhino?', RHINO_HITS.slice(3), new Set());
  assert.deepEqual(q, []);
  // A single article names each thing once: nothing recurs, nothing to ask.
  assert.deepEqual(deriveRelatedQuestions('Who is Harapan?', RHINO_HITS.slice(0, 1), new Set()), []);
});

/**
 * Questions nobody asks next, seen in answers over real feeds (issue 23): dates, common words a
 * headline capitalized, site furniture, commit-log verbs, a quote's first person, and headlines
 * that only share a word with the question by accident.
 */
const BAD_RELATED = [
  'What is the latest on Web?',
  'How is April 5 connected to Elon Musk?',
  'What is the latest on April 5?',
  'What is the latest on December 2021?',
  'What is the latest on Monday?',
  'What is the latest on Testing?',
  'What is the latest on Changes?',
  'What is the latest on Developers?',
  'What is the latest on Maintenance Release?',
  'What is the latest on MacRumors.com Discuss?',
  'What is the latest on Related Roundup?',
  'What is the latest on MacRumors?',
  'What is the latest on Fix PostProcess?',
  'What is the latest on I’ve?',
  'What is behind the report "Node.js Cluster and Express"?',
  'How is Clubs connected to Sumatran?',
];

const src = (url: string, sourceName: string, title: string, ...passages: string[]) =>
  ({ ...hit(url, title, ...passages), sourceName }) as SearchHit;

// The shapes behind BAD_RELATED, each on an on-topic article that recurs across two or more.
const NOISY_HITS = [
  src(
    'https://t.example/1',
    'Tech Desk',
    'Elon Musk joins the Twitter board',
    'On April 5 Elon Musk joined the board of Twitter. I’ve never seen a stock jump like that, said one trader.',
    'Web users reacted. Many on the web said Twitter would change. Testing of an edit button continues.',
    'Related Roundup: Elon Musk and Twitter. MacRumors.com Discuss this article.',
  ),
  src(
    'https://t.example/2',
    'MacRumors: Mac News and Rumor',
    'Elon Musk could change Twitter, Tesla investors say',
    'On April 5 Tesla investors said Elon Musk spends his Monday on Twitter. I’ve heard that before.',
    'Web developers say the web is changing; testing new features takes time. Developers and changes in December 2021.',
    'Related Roundup: Elon Musk and Twitter. MacRumors.com Discuss this article at MacRumors.',
  ),
  src(
    'https://t.example/3',
    'MacRumors: Mac News and Rumor',
    'Twitter confirms an edit button after Elon Musk poll',
    'Twitter said on April 5 that Elon Musk did not start the edit button. Monday changes. Developers were told in December 2021.',
    'Maintenance Release notes: Fix PostProcess in the web client. Testing continues. Changes in the maintenance release.',
    'Fix PostProcess again. MacRumors.com Discuss. Related Roundup. MacRumors.',
  ),
  src(
    'https://t.example/4',
    'Dev Notes',
    'Node.js Cluster and Express',
    'A cluster master process forks workers; Elon Musk is not involved. On April 5 the master restarted.',
  ),
];

test('related questions: none of the known bad questions (dates, common words, furniture, chance headlines)', () => {
  const asked = [
    'What did Elon Musk do?',
    'What happened with Elon Musk and Twitter?',
    'What is the news about Elon Musk?',
    'What is the master process?',
  ];
  const got = asked.flatMap((q) => deriveRelatedQuestions(q, NOISY_HITS, new Set(['https://t.example/1'])));
  for (const bad of BAD_RELATED) assert.ok(!got.includes(bad), `"${bad}" was proposed among:\n${got.join('\n')}`);
  // Still the real names: Twitter recurs and is one.
  assert.ok(got.includes('What is the latest on Twitter?'), got.join('\n'));
  for (const q of got) assert.doesNotMatch(q, /[.!?;] /, q);
});

test('images: lead pictures only, no avatars, icons, logos, pixels or tiny images', async () => {
  const withImage = (url: string, imageUrl: string) => ({ ...hit(url, url), imageUrl }) as SearchHit;
  const images = await imagesFor([
    withImage('https://n.example/a', 'https://cdn.example/photos/rhino-1200x675.jpg'),
    withImage('https://n.example/b', 'https://secure.gravatar.com/avatar/abc?s=96'),
    withImage('https://n.example/c', 'https://n.example/favicon.ico'),
    withImage('https://n.example/d', 'https://n.example/static/site-logo.png'),
    withImage('https://n.example/e', 'https://pixel.example/1x1.gif'),
    withImage('https://n.example/f', 'https://cdn.example/thumbs/rhino-48x48.jpg'),
    withImage('https://n.example/g', 'https://cdn.example/assets/share.svg'),
    withImage('https://n.example/h', 'javascript:alert(1)'),
  ]);
  assert.deepEqual(
    images.map((i) => [i.image_url, i.width, i.height, i.origin_url]),
    [['https://cdn.example/photos/rhino-1200x675.jpg', 1200, 675, 'https://n.example/a']],
  );
});

let app: App;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;

before(async () => {
  app = await testApp();
  const feed = await addFeed(app, 'https://zoo.example/feed.xml', 'Zoo News');
  await ingest(app, feed, [
    {
      url: 'https://zoo.example/panda-cub',
      title: 'Panda cub born at Linden Zoo',
      publishedAt: day('2025-06-02'),
      content: '<p>A giant panda cub was born at Linden Zoo on Sunday, the first panda birth in the zoo’s history.</p>',
    },
    {
      // Found by the search (it names the zoo) but not about the cub: its picture must not show.
      url: 'https://zoo.example/parking',
      title: 'Linden Zoo parking fees rise',
      publishedAt: day('2025-05-01'),
      content: '<p>Parking at Linden Zoo will cost more from July.</p>',
    },
  ]);
  for (const [url, image] of [
    ['https://zoo.example/panda-cub', 'https://zoo.example/img/panda-cub-1600x900.jpg'],
    ['https://zoo.example/parking', 'https://zoo.example/img/car-park-1600x900.jpg'],
  ])
    await testSql(app).prepare('UPDATE items SET image_url = ? WHERE url = ?').run(image, url);
});
after(async () => {
  await app.close();
});

test('images of an answer are the quoted articles’ own; a decline shows none', async () => {
  const ask = (content: string) =>
    answerService(app).complete({
      model: 'sonar',
      messages: [{ role: 'user', content }],
      scope: { kind: 'instance' },
      filters: {},
      searchContextSize: 'low',
      returnImages: true,
    });
  const r = await ask('Why was the panda cub birth at Linden Zoo special?');
  assert.ok(r.citations.includes('https://zoo.example/parking'), 'the other article is listed as a source');
  assert.deepEqual(
    r.images?.map((i) => i.image_url),
    ['https://zoo.example/img/panda-cub-1600x900.jpg'],
    r.content,
  );
  const declined = await ask('Which zoo director won the chess championship prize?');
  assert.ok(declined.citations.length >= 1, 'the zoo articles are found');
  assert.match(declined.content, /do not answer/);
  assert.deepEqual(declined.images, []);
});
