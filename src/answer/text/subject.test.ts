import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSubjectName, namesSubjectIn, subjectWords } from './subject.ts';

test("a name all of whose words are in the headline or the address is the article's subject", () => {
  const subject = subjectWords(
    'Anker’s first 3D printer might be the one you’ve been waiting for',
    'https://www.theverge.com/23012424/anker-first-3d-printer-ankermake-m5-price-specs-launch',
  );
  assert.ok(isSubjectName('AnkerMake M5', subject));
  assert.ok(!isSubjectName('Villines', subject));
  assert.ok(!isSubjectName('Ender 3 Pro', subject));
  const asked = new Set(['what', 'is', 'the', 'anker', '3d', 'printer', 'called']);
  assert.ok(
    namesSubjectIn('The just-revealed AnkerMake M5 looks like it could give leading brands a run.', subject, asked),
  );
  // "Anker" is in the headline, but it is the question's own word: no name of the subject.
  assert.ok(!namesSubjectIn('Villines tells me that Anker enters new product categories.', subject, asked));
  // Not a URL: the title alone.
  assert.ok(isSubjectName('Anker', subjectWords('Anker’s first 3D printer', 'not a url')));
});
