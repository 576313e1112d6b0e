// What each source gives the engine: the search's passages, then for a fact question the article's
// own paragraph that states the fact, then the article from its start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groundingSources, statingParagraph } from './grounding.ts';
import type { SearchHit, SearchService } from '../../search/types.ts';
import { hasAnswerType } from '../text/answer-type.ts';

// An article that names its brand in every paragraph and its price in one: across many articles
// "Anker" is the rare word, within this one it is "price" that finds the paragraph.
const ARTICLE = [
  'Anker is expanding into 3D printers this year, and the Anker 3D printer looks like it could give leading brands a run.',
  'Vases are a relatively fast thing to print on any 3D printer, but the Anker M5 could make them even faster for Anker fans.',
  'Launching on Kickstarter today for an early bird price of $429 (though Anker suggests it will cost $759 at retail), the 3D printer comes with a webcam.',
  'Anker claims the 3D printer prints five times faster than the competition, and Anker says it is the default setting of the printer.',
  'I would want to see the Anker 3D printer in action before I buy one, if Anker gets it right.',
].join('\n');
const TERMS = ['price', 'anker', '3d', 'printer'];
const number = (p: string) => hasAnswerType(p, 'number');

test("a fact question gets the article's paragraph that states the fact when the passages lack it", () => {
  const given = ['I would want to see the Anker 3D printer in action before I buy one, if Anker gets it right.'];
  assert.match(statingParagraph(ARTICLE, given, TERMS, 1500, number) ?? '', /\$429/);
  // Already given: nothing added.
  const withPrice = [...given, ARTICLE.split('\n')[2]!];
  assert.equal(statingParagraph(ARTICLE, withPrice, TERMS, 1500, number), undefined);
  // No paragraph carries the answer type: nothing added.
  assert.equal(
    statingParagraph(ARTICLE, given, TERMS, 1500, (p) => /\bvolcano\b/.test(p)),
    undefined,
  );
});

test('groundingSources adds the stating paragraph for a fact question only, and reads the article once', async () => {
  const hit: SearchHit = {
    itemId: 7,
    url: 'https://news.example/anker-printer',
    title: 'Anker’s first 3D printer',
    sourceName: 'News',
    publishedAt: null,
    updatedAt: null,
    // The search's passage fills the low context's room, so the article start adds nothing.
    passages: [
      {
        text: `I would want to see the Anker printer in action. ${'The Anker printer is fast. '.repeat(60)}`,
        score: 1,
      },
    ],
    score: 1,
    imageUrl: null,
    origin: 'local',
  };
  const reads: number[][] = [];
  const search = {
    search: async () => [],
    articleTexts: async (ids: number[]) => {
      reads.push(ids);
      return new Map(ids.map((id) => [id, { title: hit.title, url: hit.url, text: ARTICLE }]));
    },
  } as unknown as SearchService;
  const ask = (question: string) => groundingSources([hit], 1, 'low', search, { question, query: question });
  const [priced] = await ask('What is the price of the Anker 3D printer?');
  assert.ok(
    priced!.texts.some((t) => t.includes('$429')),
    priced!.texts.join('\n'),
  );
  assert.deepEqual(reads, [[7]]);
  // Not a fact question: the passages as before (the room is used, no article read).
  const [why] = await ask('Why is Anker making a 3D printer?');
  assert.ok(!why!.texts.some((t) => t.includes('$429')));
  assert.deepEqual(reads, [[7]]);
});
