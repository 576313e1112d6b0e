// A roundup's digest (planDigest with anyTopic): its sources come newest first with a few of a feed
// first (../pipelines/roundup.ts), and its stories are chosen in that order, so one busy feed does
// not fill the roundup; they are shown newest first, each by its own opening line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planDigest } from './extractive-digest.ts';
import type { GroundingSource } from './engine.ts';

const day = (n: number) => Date.parse('2026-12-01T09:00:00Z') / 1000 + n * 86_400;

function source(n: number, feed: string, at: number, lede: string): GroundingSource {
  const text = `${lede} More detail follows in the second sentence of this story.`;
  return {
    n,
    hit: {
      itemId: n,
      url: `https://example.org/${n}`,
      title: `${feed} story ${n}`,
      sourceName: feed,
      publishedAt: at,
      updatedAt: null,
      passages: [{ text, score: 0 }],
      score: 1,
      imageUrl: null,
      origin: 'local',
    },
    texts: [text],
    article: text,
  };
}

test("a roundup's stories follow the pipeline's order (at most two of a feed first), shown newest first", () => {
  // Feed A's four articles are all newer than B's and C's; the pipeline put A's third and fourth last.
  const sources = [
    source(1, 'Feed A', day(9), 'Harbour cranes were replaced overnight.'),
    source(2, 'Feed A', day(8), 'Tram drivers voted to accept the offer.'),
    source(3, 'Feed B', day(5), 'Orchard growers expect a record apple harvest.'),
    source(4, 'Feed B', day(4), 'Volunteers repainted the lighthouse in two days.'),
    source(5, 'Feed C', day(3), 'Chess club members won the regional cup.'),
    source(6, 'Feed C', day(2), 'Library hours grow longer from January.'),
    source(7, 'Feed A', day(7), 'Bakery queues stretched around the block.'),
    source(8, 'Feed A', day(6), 'Ferry fares rose by ten percent.'),
  ];
  const plan = planDigest("What's new?", sources, { stories: 5, poolPerSource: 80, anyTopic: true });
  assert.equal(plan.kind, 'digest');
  assert.deepEqual(
    plan.sentences.map((s) => s.source.n),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    plan.sentences.map((s) => s.text),
    [
      'Harbour cranes were replaced overnight.',
      'Tram drivers voted to accept the offer.',
      'Orchard growers expect a record apple harvest.',
      'Volunteers repainted the lighthouse in two days.',
      'Chess club members won the regional cup.',
    ],
  );
});
