// Typed answer candidates of the extractive engine (issue 9): a capitalized word is a candidate only
// when it reads as a name — not a common word capitalized because it opens its sentence, not a date
// or a ranking — and a question asking for a person, an organisation or a place is not answered
// with a name of another kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GroundingSource } from './engine.ts';
import { groundingSource } from '../testing/grounding-source.ts';
import { planAnswer } from './extractive-answer.ts';
import { lowerCaseLookup, lowerCaseWords, nameKind } from '../text/name-kind.ts';
import { hasNews, readArticles } from '../testing/news-corpus.ts';

const source = (n: number, title: string, text: string) => groundingSource(n, title, text, '2025-01-30');

const plan = (question: string, sources: GroundingSource[]) =>
  planAnswer(question, sources, { maxSentences: 4, poolPerSource: 80, neverDecline: true });

test('a sentence-opening common word is not a candidate; a sentence-opening name still is', () => {
  const sources = [
    source(
      1,
      'App downloads surge as TikTok ban nears',
      'Politically, the TikTok ban has become a test for the new administration. Lemon8 became the most downloaded app this week as users left TikTok.',
    ),
    source(
      2,
      'Users look for TikTok alternatives',
      'Lemon8 climbed the app charts as the TikTok ban neared. Surprisingly, the new app is also owned by ByteDance.',
    ),
  ];
  const p = plan('Which app soared in popularity as TikTok faced a ban?', sources);
  const names = p.candidates.map((c) => c.text);
  assert.ok(!names.includes('Politically'), `candidates: ${names.join(', ')}`);
  assert.ok(!names.includes('Surprisingly'), `candidates: ${names.join(', ')}`);
  assert.equal(p.winner?.text, 'Lemon8');
});

test('a capitalized word the sources also write in lower case is common only where it opens a sentence', () => {
  const texts = ['Thousands marched on Sunday. The march drew thousands of people.'];
  const lower = lowerCaseWords(texts);
  assert.equal(nameKind('Thousands', 'Thousands marched on Sunday.', lower), 'not-a-name');
  // Never written in lower case: a name, first word or not.
  assert.equal(nameKind('Zelensky', 'Zelensky spoke on Sunday.', lower), 'unknown');
  assert.equal(nameKind('Feb. 11', 'The offer expires on Feb. 11.', lower), 'not-a-name');
});

test('lowerCaseLookup answers as the list of lower-case words does', () => {
  const texts = [
    "Re-elected mayors re-elect; it's the mayor’s call—co-op. x-ray X-ray ’tis well-known",
    'ℝeal ﬁne straße Ǆemal 𝒶strals café’s ice-cream-and-cake',
  ];
  const words = [...lowerCaseWords(texts)];
  const asked = [
    ...words,
    'elected',
    'elect',
    'mayor',
    'ray',
    'x',
    'co',
    'op',
    'ice',
    'cream',
    's',
    "it's",
    'Mayor',
    '',
  ].concat(
    words.map((w) => w.slice(1)),
    words.map((w) => w.slice(0, -1)),
  );
  const all = lowerCaseWords(texts);
  const lookup = lowerCaseLookup(texts);
  for (const w of asked) assert.equal(lookup.has(w), all.has(w), JSON.stringify(w));
});

test('lowerCaseLookup answers as lowerCaseWords on news articles', {
  skip: !hasNews && 'no ../shared/corpus/news',
}, () => {
  for (const a of readArticles(150)) {
    const texts = [a.title, ...a.text.split('\n')];
    const all = lowerCaseWords(texts);
    const lookup = lowerCaseLookup(texts);
    const asked = new Set(
      `${a.title} ${a.text}`
        .split(/\s+/)
        .flatMap((w) => [w, w.toLowerCase(), w.replace(/[^\p{L}'’-]/gu, '').toLowerCase()]),
    );
    for (const w of asked) assert.equal(lookup.has(w), all.has(w), `${a.url}: ${JSON.stringify(w)}`);
  }
});

test('an organisation question is not answered with a person, a person question not with an agency', () => {
  const sources = [
    source(
      1,
      'Agency offers buyouts to entire workforce',
      'The Central Intelligence Agency offered buyouts to its entire workforce on Tuesday, following a push by President Donald Trump to shrink the government.',
    ),
    source(
      2,
      'Federal workers weigh buyout offers',
      'Federal workers weighed buyout offers from President Donald Trump as the deadline neared.',
    ),
    source(
      3,
      'Buyouts spread across the government',
      'President Donald Trump said more agencies would offer buyouts to their workforce.',
    ),
    source(
      4,
      'Trump pushes buyouts for the entire federal workforce',
      'President Donald Trump wants every agency to offer buyouts to its entire workforce.',
    ),
  ];
  const org = plan('Which agency was the first to offer buyouts to its entire workforce?', sources);
  assert.equal(org.type, 'org');
  assert.ok(!org.candidates.some((c) => c.text === 'President Donald Trump'));
  assert.equal(org.winner?.text, 'Central Intelligence Agency');

  const people = [
    source(
      1,
      'Imposter used AI to mimic top diplomat',
      'An imposter used AI to mimic Secretary of State Marco Rubio in messages to foreign ministers, the State Department said.',
    ),
    source(
      2,
      'State Department investigates AI imposter',
      'The State Department said it was investigating the AI imposter.',
    ),
    source(
      3,
      'AI voice scams reach diplomacy',
      'The State Department warned diplomats about AI voice messages from an imposter.',
    ),
  ];
  const who = plan('An imposter used AI to mimic which official?', people);
  assert.equal(who.type, 'person');
  assert.equal(who.winner?.text, 'Secretary of State Marco Rubio');
});

test('a digit inside a word ("3D", "5G") is no figure; a price with its currency is', () => {
  const sources = [
    source(
      1,
      'Anker’s first 3D printer',
      'My old 3D printer is an Ender 3 Pro, and 3D printing on it is slow. The 3D printer from Anker has an early bird price of $429 on Kickstarter. Anker says its 3D printer uses 5G chips and 3D sensors.',
    ),
  ];
  const p = plan('What is the price of the Anker 3D printer?', sources);
  const texts = p.candidates.map((c) => c.text);
  assert.equal(p.winner?.text, '$429', `candidates: ${texts.join(', ')}`);
  assert.ok(!texts.includes('5'), `candidates: ${texts.join(', ')}`);
});
