import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSentences } from './sentences.ts';

test('sentence splitting: ICU rules plus the boundaries it misses before quotes and numbers', () => {
  assert.deepEqual(splitSentences("Five attackers were killed, the spokesman said. '1917' won the award for best drama on Sunday night."), [
    'Five attackers were killed, the spokesman said.', "'1917' won the award for best drama on Sunday night.",
  ]);
  assert.deepEqual(splitSentences('Dr. Smith met U.S. Army officials in Washington on Monday.'), ['Dr. Smith met U.S. Army officials in Washington on Monday.']);
  assert.deepEqual(splitSentences('More: Indian River County adds 37 employees to the payroll.'), [], 'link teasers are dropped');
});
