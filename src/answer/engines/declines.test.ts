// Honest refusals of the extractive engine (issue 9): it declines when the sources do not cover
// what the question asks about — a name of the question no source contains, or sources whose
// sentences covering the question are about another subject than the question's names — and still
// answers a close question the sources do answer. The decline names only the question's own words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declineMessage, ExtractiveEngine } from './extractive.ts';
import type { AnswerPlan } from './extractive-answer.ts';
import type { GroundingSource } from './engine.ts';
import { groundingSource } from '../testing/grounding-source.ts';
import { questionNames } from './extractive-answer.ts';

const source = groundingSource;

async function answer(question: string, sources: GroundingSource[]): Promise<string> {
  let text = '';
  for await (const chunk of new ExtractiveEngine().answer({
    question,
    history: [],
    system: [],
    sources,
    searched: true,
    style: 'concise',
    sampling: {},
  }))
    if (chunk.type === 'text') text += chunk.text;
  return text;
}

/** Every capitalized word of the reply is the question's own (or the decline's wording). */
function namesOnlyTheQuestion(reply: string, question: string) {
  const asked = new Set(question.match(/\p{Lu}\p{L}+/gu));
  for (const name of reply.match(/\p{Lu}\p{L}+/gu) ?? [])
    assert.ok(asked.has(name) || ['Your', 'The'].includes(name), `"${name}" is named in "${reply}"`);
}

const quakes = [
  source(
    1,
    'Strong earthquake shakes northern Japan',
    'A magnitude 6.1 earthquake hit the island of Hokkaido on Wednesday, the Japan Meteorological Agency said. No tsunami warning was issued.',
  ),
  source(
    2,
    'The largest earthquakes ever recorded',
    'The strongest earthquake ever recorded hit Chile in 1960 with a magnitude of 9.5. An island off Alaska was hit by a magnitude 8.7 quake in 1965.',
  ),
  source(
    3,
    'Aftershocks rattle Indonesian island',
    'Hundreds of aftershocks followed the magnitude 5.9 earthquake that hit the island of Sulawesi, officials said on Wednesday.',
  ),
];

test("the question's names, as terms: not the words opening its sentences, nor days and months", () => {
  assert.deepEqual(
    questionNames('Which Greek island was hit by an earthquake on Wednesday? The U.S. Geological Survey said so.').map(
      (n) => n.word,
    ),
    ['Greek', 'US', 'Geological', 'Survey'],
  );
  assert.deepEqual(
    questionNames("Which comedian hosted the Golden Globes' ceremony on YouTube-famous streams?").map((n) => n.word),
    ['Golden', 'Globes', 'YouTube'],
  );
  // Title case or capitals: every word would be a "name"; none is.
  assert.deepEqual(questionNames('How Many People Died In The Storm At Marlow?'), []);
  assert.deepEqual(questionNames('WHO WON THE CHESS CHAMPIONSHIP IN MARLOW?'), []);
  assert.deepEqual(
    questionNames('Which team did the Boston Celtics beat in the NBA Finals?').map((n) => n.word),
    ['Boston', 'Celtics', 'NBA', 'Finals'],
  );
});

test('a question about a name no source contains is declined, saying which; with a source naming it, answered', async () => {
  const question = 'Which Greek island was hit by a magnitude 5.2 earthquake on Wednesday?';
  const declined = await answer(question, quakes);
  assert.match(declined, /^Your feeds do not answer this: no article I found mentions Greek\./);
  assert.doesNotMatch(declined, /\[\d+\]/, 'no quoted sentence');
  namesOnlyTheQuestion(declined, question);

  const answered = await answer(question, [
    ...quakes,
    source(
      4,
      'Earthquake shakes Santorini',
      'A magnitude 5.2 earthquake hit the Greek island of Santorini on Wednesday, the seismology institute said.',
    ),
  ]);
  assert.match(answered, /Santorini[^[]*\[\d+\]/, answered);
  assert.doesNotMatch(answered, /do not answer/);
});

// News-from-the-states roundups: every one mentions Delaware, but the sentences on the question's
// subject are about other states.
const roundups = [
  source(
    1,
    'News from around our 50 states',
    'Connecticut\nHartford: Opponents defeated the medical aid in dying legislation with a rarely used parliamentary maneuver, said Tim Appleton of Compassion & Choices.\nDelaware\nDover: The state museum opened a new exhibit on colonial shipbuilding.',
  ),
  source(
    2,
    'News from around our 50 states',
    'Delaware\nRehoboth Beach: Lifeguards rescued two swimmers caught in a rip current.\nMaryland\nAnnapolis: Lawmakers debated a bill on school bus cameras.',
  ),
  source(
    3,
    'News from around our 50 states',
    'Delaware\nWilmington: A new ferry line to New Jersey starts in June.\nVermont\nMontpelier: The outcome of the vote on the dying elm trees was a plan to replant the green.',
  ),
];

test('sources whose sentences on the question are about another subject than its names: declined', async () => {
  const question = 'What was the outcome of the medical aid in dying legislation in Delaware?';
  const declined = await answer(question, roundups);
  assert.match(declined, /^Your feeds do not answer this: \d articles? mentions? Delaware, but none says that\./);
  assert.doesNotMatch(declined, /Appleton|Connecticut|\[\d+\]/);
  namesOnlyTheQuestion(declined, question);

  // The close question the sources do answer: the same words, about a state whose sentence has them.
  const answered = await answer('What was the outcome of the medical aid in dying legislation in Connecticut?', [
    ...roundups,
  ]);
  assert.match(answered, /parliamentary maneuver[^[]*\[1\]/, answered);
});

test('a roundup that does report the news on the question is answered', async () => {
  const question = 'What was the outcome of the medical aid in dying legislation in Delaware?';
  const answered = await answer(question, [
    ...roundups,
    source(
      4,
      'Delaware governor vetoes medical aid in dying bill',
      'Delaware\nDover: Gov. Matt Meyer vetoed the medical aid in dying legislation on Friday, saying it lacked safeguards.',
    ),
  ]);
  assert.match(answered, /vetoed the medical aid in dying legislation[^[]*\[4\]/, answered);
});

test('a decline names the topic by its names: not a common word that opens the question, nor a sentence run on past an acronym', () => {
  const plan = (type: AnswerPlan['type']): AnswerPlan => ({
    kind: 'decline',
    type,
    sentences: [],
    candidates: [],
    questionTerms: [],
    missing: [],
    considered: 0,
    notes: [],
  });
  const studies = [
    source(1, 'Kind children', 'Researchers in Leeds found that children who eat together share more.'),
    source(2, 'Food and mood', 'The researchers said diet and mood are linked in children.'),
  ];
  const kindness = declineMessage(
    'Researchers found that children who regularly consume what are more likely to show kindness towards others?',
    plan('thing'),
    studies,
  );
  assert.doesNotMatch(kindness, /Researchers/, kindness);
  const recalls = declineMessage(
    'Contaminated food is causing a growing number of illnesses in the US. Around how many food recalls were there in 2024?',
    plan('number'),
    [source(1, 'Recalls', 'Food recalls in the US rose last year, the report said.')],
  );
  assert.match(recalls, /mentions US, but none says how many/, recalls);
  assert.doesNotMatch(recalls, /Around|Contaminated/, recalls);
  // An acronym opening the question is still a name, although "us" is a common word.
  const stocks = declineMessage(
    'US tech stocks plummeted on Monday following the release of an AI chatbot by which Chinese company?',
    plan('org'),
    [source(1, 'Markets', 'Tech stocks in the US fell as investors told us they feared a Chinese AI rival.')],
  );
  assert.match(stocks, /mentions US, AI and Chinese/, stocks);
  // A title before a two-word name goes; before one word it stays part of the name.
  const actor = declineMessage('Actor Val Kilmer died this week. Which film made him famous?', plan('thing'), [
    source(1, 'Films', 'The actor said the film made him famous.'),
  ]);
  assert.match(actor, /no article I found mentions Val Kilmer\./, actor);
  const harry = declineMessage('Prince Harry settled with which UK newspaper?', plan('org'), [
    source(1, 'Royals', 'The prince settled with a newspaper, his lawyers said.'),
  ]);
  assert.match(harry, /mentions Prince Harry and UK\./, harry);
});

test('a candidate only one source names, in a sentence that barely touches the question, is no answer', async () => {
  const question = 'Which company will build the new bridge over the Tarn river?';
  const plan = source(
    1,
    'Tarn bridge plan approved',
    'The council approved the new bridge over the Tarn river on Monday. Work starts in spring.',
  );
  const festival = source(
    2,
    'River festival',
    'Boats filled the Tarn river for the summer festival. Local traders did well.',
  );
  const weak = await answer(question, [
    plan,
    festival,
    source(
      3,
      'Regional news',
      'Roads in the region need repair, officials said. Dumont Construction reported higher profits.',
    ),
  ]);
  assert.match(weak, /^Your feeds do not answer this: /, weak);
  namesOnlyTheQuestion(weak, question);
  // One source that says it, in a sentence about the question, is enough.
  const strong = await answer(question, [
    plan,
    festival,
    source(
      3,
      'Builder chosen for Tarn bridge',
      'Dumont Construction will build the new bridge over the Tarn river, the council said.',
    ),
  ]);
  assert.match(strong, /^(\d{1,2} [A-Z][a-z]+ \d{4}: )?Dumont Construction will build the new bridge/, strong);
});
