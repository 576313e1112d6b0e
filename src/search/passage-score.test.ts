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

test('passages over 1,000 characters together (the pattern compiled to machine code first) score as fewer do', () => {
  const passage = 'Elections were held; the council elections drew a crowd, and the mayor spoke.';
  const many = Array.from({ length: 20 }, (_, i) => (i % 2 ? passage : `Nothing about it, number ${i}.`));
  assert.ok(many.join('').length >= 1000);
  const s = scorePassages(many, ['council', 'election', 'mayor']);
  // Every copy counts its words from its first character on, as in a first use on short passages.
  const fewer = scorePassages([passage, 'Nothing about it.'], ['council', 'election', 'mayor']);
  assert.ok(fewer[0]! > 0);
  for (let i = 0; i < many.length; i++) assert.equal(s[i]! > 0, i % 2 === 1, `passage ${i}: ${s[i]}`);
  assert.equal(new Set(s.filter((x) => x > 0)).size, 1, 'every copy scores the same');
});
