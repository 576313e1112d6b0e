import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headlineNames, latestAskedOf } from './latest-asked.ts';
import { SKIP_NO_SHARED } from '../../../test/helpers.ts';
import { readQuestions } from '../testing/news-corpus.ts';

test('"latest X" questions: what is asked about, by which word, and the kind of item', () => {
  assert.deepEqual(latestAskedOf('What is the latest Critical Role episode about?'), {
    word: 'latest',
    asks: 'about',
    thing: 'Critical Role episode',
    thingTerms: ['critical', 'role', 'episod'],
    noun: 'episode',
  });
  // "X's latest …" keeps X in the thing; curly apostrophes read as straight ones.
  assert.equal(latestAskedOf('What’s Critical Role’s newest episode about?')?.thing, 'episode of Critical Role');
  assert.equal(latestAskedOf('What was the last episode of Critical Role about?')?.word, 'last');
  assert.equal(latestAskedOf('And what was the last episode about?')?.thing, 'episode');
  assert.equal(latestAskedOf('What happened in the most recent episode of Dimension 20?')?.word, 'most recent');
  // "What is the newest X?" only for a kind of feed item.
  assert.equal(latestAskedOf('What is the newest video from MKBHD?')?.noun, 'video');
  assert.equal(latestAskedOf('What is the latest version of iOS?'), undefined);
  // A word for any item is not what a source must name.
  assert.deepEqual(latestAskedOf('What is the latest story about Tesla?')?.thingTerms, ['tesla']);
  assert.deepEqual(latestAskedOf('What is the newest post?')?.thingTerms, ['post']);
  const when = latestAskedOf('When does the next Critical Role episode come out?');
  assert.equal(when?.asks, 'when');
  assert.equal(when?.thing, 'Critical Role episode');
  // A digest, a fact question with "latest" inside, and other questions are not.
  for (const q of [
    "What's the latest on Critical Role?",
    'What is the latest news about Critical Role?',
    "What's new with Critical Role?",
    'How many men have been called up in the Russian military’s latest draft?',
    'What is the last day to file taxes?',
    'What’s the latest beauty trend on TikTok?',
    'Who was elected as the next president of the International Olympic Committee?',
  ])
    assert.equal(latestAskedOf(q), undefined, q);
});

test('no question of the news judge reads as a "latest X" question (its answers stay what they were)', {
  skip: SKIP_NO_SHARED,
}, () => {
  const questions = readQuestions().map((q) => q.question);
  assert.ok(questions.length > 600);
  assert.deepEqual(
    questions.filter((q) => latestAskedOf(q)),
    [],
  );
});

test('a headline names an episode by "Episode", "Ep", "E12" or "S2E3", read with its feed\'s name', () => {
  const thing = latestAskedOf('What was the last Off Menu episode about?')!.thingTerms;
  const inFeed = (title: string) =>
    headlineNames({ title, sourceName: 'Off Menu with Ed Gamble and James Acaster' }, thing);
  assert.equal(inFeed('Ep 180: Reece Shearsmith'), true);
  assert.equal(inFeed('Ep. 12 - Nish Kumar'), true);
  assert.equal(inFeed('S2E3: The Menu'), true);
  assert.equal(inFeed('Ep 108: Dan Aykroyd (Bonus Episode)'), true);
  // No episode mark, or another show's feed: not an Off Menu episode.
  assert.equal(inFeed('Live tour dates announced'), false);
  assert.equal(headlineNames({ title: 'Ep 12: Guests', sourceName: 'Other Podcast' }, thing), false);
  // "epic" and a bare number are no episode mark.
  assert.equal(inFeed('An epic 180 minutes'), false);
});

test('a crafted message is no "latest X" question: white space runs count as one, and length is bounded', () => {
  assert.equal(latestAskedOf('What  is the latest\tCritical Role\n episode about?')?.thing, 'Critical Role episode');
  assert.equal(latestAskedOf(`What is the latest ${'very '.repeat(60)}long episode about?`), undefined);
  // Each of these took seconds to minutes before the bound (test/freeze-attacks.ts runs one through a server).
  for (const q of [
    `what is the latest ${' '.repeat(100_000)}x`,
    `when is the next ${'!'.repeat(100_000)}x`,
    `what is the latest ${'a '.repeat(100_000)}x`,
  ])
    assert.equal(latestAskedOf(q), undefined);
});
