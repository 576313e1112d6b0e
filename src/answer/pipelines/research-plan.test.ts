// Deep research planning without a generative engine: the sub-questions built from the names the
// first searches found are new names (not the question's own in another spelling) and stay on the
// question's subject when its names are only acronyms, which the lower-cased index reads as words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchHit } from '../../search/types.ts';
import { prominentNames, subQuestionsFromNames, topicOf } from './research-plan.ts';

const QUESTION = 'Which airline will begin assisting with US deportation flights?';

const hit = (title: string, ...passages: string[]): SearchHit => ({
  itemId: null,
  url: `https://news.example/${encodeURIComponent(title)}`,
  title,
  sourceName: 'News',
  publishedAt: null,
  updatedAt: null,
  passages: passages.map((text) => ({ text, score: 1 })),
  score: 1,
  imageUrl: null,
  origin: 'local',
});

const avelo = hit(
  'Avelo Airlines will operate deportation flights for ICE',
  'Avelo Airlines said it will fly ICE deportation flights from Mesa in Arizona.',
);
const boycott = hit(
  'Thousands sign up to boycott Avelo Airlines over ICE deportation deal',
  'A petition asks Avelo Airlines to end its ICE contract; the flights leave from Arizona.',
);
const iceShelf = hit(
  'Conger Ice Shelf in Antarctica collapses amid record warmth',
  'The ice shelf, about the size of Rome, collapsed after a heat wave in East Antarctica.',
);

test('the name the question already has ("US") is no sub-question, and the names found are', () => {
  const names = prominentNames(QUESTION, [avelo, boycott, iceShelf], new Set());
  assert.ok(!names.some((n) => n.toLowerCase() === 'us'), `names: ${names.join(', ')}`);
  assert.ok(names.includes('ICE') && names.includes('Avelo Airlines'), `names: ${names.join(', ')}`);
});

test('the question\'s own name in another form ("U.S." for "US", "Tonys" for "Tony Awards") is no sub-question', () => {
  const uss = hit(
    'Avelo Airlines to fly deportation flights out of the U.S.',
    'Avelo Airlines will fly people out of the U.S. for ICE. The U.S. pays for three aircraft.',
  );
  const names = prominentNames(QUESTION, [uss, avelo, boycott], new Set());
  assert.ok(!names.some((n) => /^U\.S\.?$/.test(n)), `names: ${names.join(', ')}`);
  assert.ok(names.includes('Avelo Airlines'), `names: ${names.join(', ')}`);
  const tonys = hit('Cynthia Erivo to host the Tonys', 'The Tonys will be hosted by Cynthia Erivo, the Tonys said.');
  const hosts = prominentNames('Which singer is set to host the Tony Awards this year?', [tonys, tonys], new Set());
  assert.ok(!hosts.includes('Tonys') && hosts.includes('Cynthia Erivo'), `names: ${hosts.join(', ')}`);
});

test("a sub-question keeps the question's subject, not only its names", () => {
  // "ICE US" searched for ice and us (the index is lower-cased) and found an ice-shelf story.
  assert.equal(topicOf(QUESTION), 'US airline begin assisting deportation');
  const [ice] = subQuestionsFromNames(QUESTION, ['ICE']);
  assert.equal(ice!.heading, 'ICE');
  assert.notEqual(ice!.query, 'ICE US');
  assert.match(ice!.query, /^ICE .*\bdeportation\b/);
  // Names that are more than acronyms are the topic, as before.
  assert.equal(topicOf('When will NASA fly Artemis II to the moon?'), 'NASA Artemis II');
  assert.equal(topicOf('Artemis II and NASA'), 'Artemis II NASA');
});

test("names come only from hits about the question's subject, not from one that shares a common word", () => {
  const question = 'What was the international response to the Bucha killings?';
  const bucha = hit(
    'Labour calls for Russian ambassador to be expelled after Bucha atrocities',
    'Italy, Germany and France expelled Russian diplomats after the killings in Bucha.',
  );
  const routing = hit(
    'Complex Routing Logic with Thundermole',
    'Thundermole routes each request to a backend; the response is proxied by Thundermole.',
  );
  const names = prominentNames(question, [bucha, routing, bucha, routing], new Set());
  assert.ok(!names.includes('Thundermole'), `names: ${names.join(', ')}`);
  assert.ok(names.includes('Germany') || names.includes('Italy'), `names: ${names.join(', ')}`);
});
