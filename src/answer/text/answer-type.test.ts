import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerTypeOf, hasAnswerType } from './answer-type.ts';

test('question types and the sentences that hold such an answer', () => {
  assert.equal(answerTypeOf('When will Artemis II launch?'), 'date');
  assert.equal(answerTypeOf('What percentage of Delaware students are chronically absent?'), 'number');
  assert.equal(answerTypeOf('Who leads the European Central Bank?'), 'person');
  assert.equal(answerTypeOf('Where did the lifeguard tower wash ashore?'), 'place');
  assert.equal(answerTypeOf('Why was the license suspended?'), 'reason');
  assert.equal(answerTypeOf('Which retailer is going out of business?'), 'org');
  assert.equal(answerTypeOf('Which island has been hit by more than 900 earthquakes?'), 'place');
  assert.equal(answerTypeOf('Summarize the news about Ukraine'), 'summary');
  assert.equal(answerTypeOf('Is the bridge open again?'), 'yesno');
  assert.ok(hasAnswerType('The mission will launch no earlier than April 2026.', 'date'));
  assert.ok(!hasAnswerType('The mission will launch later than planned.', 'date'));
  assert.ok(hasAnswerType('Roughly 30% of students were chronically absent.', 'number'));
  assert.ok(hasAnswerType('The bank is led by Christine Lagarde.', 'person'));
  assert.ok(!hasAnswerType('The bank cut rates again.', 'person'));
  assert.ok(hasAnswerType('It washed up at Delaware Seashore State Park.', 'place'));
});

test('a who/when/where after a which/what head is a relative pronoun: the head noun decides', () => {
  assert.equal(
    answerTypeOf('Which country will begin fining plane passengers who start getting ready to disembark too early?'),
    'place',
  );
  assert.equal(answerTypeOf('Which app, where women can share information about their dates, was hacked?'), 'org');
  assert.equal(
    answerTypeOf('Which reason did President Donald Trump cite when he signed a proclamation banning travel?'),
    'reason',
  );
  assert.equal(
    answerTypeOf('Which best-selling author, whose books sold 75 million copies, died this week?'),
    'person',
  );
  // A question that opens with the pronoun asks with it.
  assert.equal(answerTypeOf('Who was the first woman to lead the agency that runs the parks?'), 'person');
});

test('a price asked for is an amount', () => {
  assert.equal(answerTypeOf('What is the price of the Anker 3D printer?'), 'number');
  assert.equal(answerTypeOf('How much does the Steam Deck cost?'), 'number');
  assert.equal(answerTypeOf("What's the cost of the new subway fare?"), 'number');
  assert.equal(answerTypeOf('What is the printer called?'), 'name');
});

test('"what is X called" asks for a name; a product name carries it', () => {
  assert.equal(answerTypeOf('What is the Anker 3D printer called?'), 'name');
  assert.equal(answerTypeOf("What is Nikon's new camera named?"), 'name');
  assert.equal(answerTypeOf('What is the name of the new rocket?'), 'name');
  // A person's name when the question names a person; a typed head noun still decides.
  assert.equal(answerTypeOf('What is the Arsenal coach called?'), 'person');
  assert.equal(answerTypeOf('What is the name of the volcano that erupted?'), 'place');
  assert.equal(answerTypeOf('What is the Anker 3D printer?'), 'thing');
  assert.ok(hasAnswerType('The just-revealed AnkerMake M5 looks like it could give leading brands a run.', 'name'));
  assert.ok(!hasAnswerType('It looks like the spool of filament can be mounted on the side.', 'name'));
});

test('"what is the new <noun> of …" asks for a fact; "what\'s new with …" asks for a digest', () => {
  assert.equal(answerTypeOf('What is the new name of Twitter?'), 'name');
  assert.equal(answerTypeOf('What is the new price of the iPhone?'), 'number');
  assert.equal(answerTypeOf('What is the new Pixel called?'), 'name');
  // Two questions of the news corpus.
  assert.equal(answerTypeOf('What is the new fee to climb Mount Everest?'), 'number');
  assert.equal(answerTypeOf('What is the new owner of the historic du Pont estate Granogue?'), 'thing');
  assert.equal(answerTypeOf("What's the new CEO of Intel called?"), 'person');
  assert.equal(answerTypeOf('What is the latest version of iOS?'), 'thing');
  // Real digests keep 'summary'.
  assert.equal(answerTypeOf("What's new with Apple?"), 'summary');
  assert.equal(answerTypeOf('what is new in AI'), 'summary');
  assert.equal(answerTypeOf('What is the latest?'), 'summary');
  assert.equal(answerTypeOf("What's the latest on the rail strike?"), 'summary');
  assert.equal(answerTypeOf('What is the latest news about SpaceX?'), 'summary');
  assert.equal(answerTypeOf('What are the latest updates from Gaza?'), 'summary');
  assert.equal(answerTypeOf("What's new?"), 'summary');
  assert.equal(answerTypeOf("What's happening in Ukraine?"), 'summary');
});
