import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doingsTopicOf, isRoundupAsked, newsTopicOf } from './roundup-asked.ts';
import { SKIP_NO_SHARED } from '../../../test/helpers.ts';
import { readQuestions } from '../testing/news-corpus.ts';

test('a roundup asks for news and names nothing else', () => {
  for (const q of [
    "What's new?",
    'what’s new',
    'What is new today?',
    "What's the latest?",
    'What is the latest news?',
    'What are the latest headlines?',
    "What are today's top stories?",
    'What happened today?',
    'What happened in the world this week?',
    'What has happened since yesterday?',
    'Any news?',
    'Anything new this morning?',
    'Summarize the news',
    'Summarize my feeds',
    'Give me a quick rundown of the news',
    'Catch me up',
    'What did I miss?',
    "What's going on?",
    'What are the main developments this week?',
  ])
    assert.equal(isRoundupAsked(q), true, q);
});

test('a question that names a topic, asks something else, or is no question is not a roundup', () => {
  for (const q of [
    "What's new with NASA?",
    "What's the latest on Ukraine?",
    'What is the latest Critical Role episode about?',
    'What happened to the Titanic?',
    'What happened at the Oscars today?',
    "What's the weather today?",
    'What is the latest version of Node?',
    'What time is it?',
    'Hello',
    'Thanks!',
    'What?',
    '',
    '   ',
    'news '.repeat(30),
  ])
    assert.equal(isRoundupAsked(q), false, q);
});

test('a hostile message is refused in one pass over it', () => {
  for (const q of [
    `What's new${' '.repeat(100_000)}?`,
    `${'new '.repeat(50_000)}`,
    `What${"'".repeat(100_000)}s new?`,
    `${'-'.repeat(100_000)}new`,
  ])
    assert.equal(isRoundupAsked(q), false);
});

test('no question of the news judge reads as a roundup or as "what did X announce?" (its answers stay what they were)', {
  skip: SKIP_NO_SHARED,
}, () => {
  const questions = readQuestions().map((q) => q.question);
  assert.ok(questions.length > 600);
  assert.deepEqual(
    questions.filter((q) => isRoundupAsked(q)),
    [],
  );
  assert.deepEqual(
    questions.filter((q) => doingsTopicOf(q)),
    [],
  );
});

test('the topic of a question asking for the newest about something', () => {
  assert.deepEqual(newsTopicOf("What's the latest on Critical Role?"), ['critical', 'role']);
  assert.deepEqual(newsTopicOf('What’s new with NASA?'), ['nasa']);
  assert.deepEqual(newsTopicOf('Any news about the Artemis program this week?'), ['artemis', 'program']);
  assert.deepEqual(newsTopicOf('What are the latest developments in Ukraine?'), ['ukraine']);
  // A roundup names no topic; a question without a news word asks for something else.
  assert.equal(newsTopicOf("What's new?"), undefined);
  assert.equal(newsTopicOf('Summarize the Brexit talks'), undefined);
  assert.equal(newsTopicOf('Who commands Artemis II?'), undefined);
  assert.equal(newsTopicOf(`What's new with ${'NASA '.repeat(100_000)}?`), undefined);
});

test('the topic of "what did X announce (recently)?"', () => {
  assert.deepEqual(doingsTopicOf('What did NASA announce recently?'), ['nasa']);
  assert.deepEqual(doingsTopicOf('What has the European Space Agency said this week?'), [
    'european',
    'space',
    'agency',
  ]);
  assert.deepEqual(doingsTopicOf('what did apple release'), ['apple']);
  // More after the verb asks for a fact; other shapes are other questions.
  assert.equal(doingsTopicOf('What did NASA announce about the Moon lander?'), undefined);
  assert.equal(doingsTopicOf('Who did NASA announce as commander?'), undefined);
  assert.equal(doingsTopicOf('What did I miss?'), undefined);
  assert.equal(doingsTopicOf(`What did ${'NASA '.repeat(50_000)} announce?`), undefined);
});
