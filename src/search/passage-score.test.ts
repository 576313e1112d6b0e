import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scorePassages } from './passage-score.ts';

test('passages with more and rarer query words score higher; plural forms match', () => {
  const passages = [
    'The city council approved the budget on Monday.',
    'Elections in the city: the council elections were held and the mayor won.',
    'Nothing relevant here at all.',
    'A story about the weather and a storm.',
  ];
  const s = scorePassages(passages, ['council', 'election', 'mayor']);
  assert.equal(s[2], 0);
  assert.equal(s[3], 0);
  assert.ok(s[1]! > s[0]! && s[0]! > 0, JSON.stringify(s));
  assert.ok(scorePassages(['The stories were told.'], ['story'])[0]! > 0, 'stories matches story');
  assert.equal(scorePassages(['councillors met'], ['council'])[0], 0, 'whole words only');
  assert.ok(scorePassages(['Zürich hosts the summit'], ['zürich'])[0]! > 0);
  assert.deepEqual(scorePassages([], ['x']), []);
});
