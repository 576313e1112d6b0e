import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GroundingSource } from './engine.ts';
import type { SearchHit } from '../../search/types.ts';
import { planLatest } from './extractive-latest.ts';
import { latestAskedOf } from '../text/latest-asked.ts';

const day = (d: string) => Date.parse(`${d}T20:00:00Z`) / 1000;
function source(
  n: number,
  title: string,
  date: string | undefined,
  text: string,
  sourceName = 'Fan news',
): GroundingSource {
  const hit = {
    itemId: n,
    title,
    url: `https://example.org/${n}`,
    publishedAt: date ? day(date) : null,
    sourceName,
  } as unknown as SearchHit;
  return { n, hit, texts: [text] };
}
const BOILERPLATE = 'Join our community chat every week to talk about the show with other fans.';
const asked = latestAskedOf('What is the latest Critical Role episode about?')!;

test('the newest source whose headline names the thing, not the newest source; a line every episode repeats is not its summary', () => {
  const sources = [
    source(
      1,
      'Axiom Shaken | Critical Role | Episode 43',
      '2026-10-22',
      `The group reels after the Axiom. ${BOILERPLATE}`,
    ),
    source(2, 'Holiday sale at the Critical Role shop', '2026-12-05', 'Everything in the shop is cheaper this week.'),
    source(
      3,
      'The Aurora Grows | Critical Role | Episode 49',
      '2026-12-03',
      `${BOILERPLATE} Visit https://example.org/tickets for tickets. Bells Hells travel the skies.`,
    ),
    source(4, 'The Fey Key | Critical Role | Episode 47', '2026-11-19', `The party seeks a key. ${BOILERPLATE}`),
    source(5, 'Undated | Critical Role | Episode 50', undefined, 'An episode with no date.'),
  ];
  const plan = planLatest(asked, sources)!;
  assert.equal(plan.source.n, 3);
  assert.equal(
    plan.text,
    'The latest episode, published 3 December 2026, is "The Aurora Grows | Critical Role | Episode 49".[3] Bells Hells travel the skies.[3]',
  );
  // A headline-only source: named by its headline.
  const bare = planLatest(asked, [source(1, 'The Aurora Grows | Critical Role | Episode 49', '2026-12-03', '')])!;
  assert.equal(
    bare.text,
    'The latest episode, published 3 December 2026, is "The Aurora Grows | Critical Role | Episode 49".[1]',
  );
});

test('no source is such a thing: no plan (the usual planner answers or declines)', () => {
  const other = latestAskedOf('What is the latest Dimension 20 episode about?')!;
  assert.equal(
    planLatest(other, [
      source(1, 'The Aurora Grows | Critical Role | Episode 49', '2026-12-03', 'Bells Hells travel.'),
    ]),
    undefined,
  );
});

test('"When is the next …?": the newest such source\'s sentence naming a time, else that it names none', () => {
  const when = latestAskedOf('When is the next Critical Role episode?')!;
  const sources = [
    source(
      1,
      'The Fey Key | Critical Role | Episode 47',
      '2026-11-19',
      'The party seeks a key. The next episode airs on Thursday at 7pm PT on Twitch.',
    ),
    source(
      2,
      'The Aurora Grows | Critical Role | Episode 49',
      '2026-12-03',
      'Bells Hells may travel far. The show returns on January 8 after a break.',
    ),
  ];
  assert.equal(
    planLatest(when, sources)!.text,
    'The newest episode, "The Aurora Grows | Critical Role | Episode 49", published 3 December 2026, says: The show returns on January 8 after a break.[2]',
  );
  assert.equal(
    planLatest(when, [
      source(2, 'The Aurora Grows | Critical Role | Episode 49', '2026-12-03', 'Bells Hells may travel far.'),
    ])!.text,
    'The newest episode, "The Aurora Grows | Critical Role | Episode 49", published 3 December 2026, does not say when the next one is.[2]',
  );
});

test("a headline without the show's name, in the show's feed: the feed's name counts", () => {
  const sources = [
    source(1, 'Episode 49: The Aurora Grows', '2026-12-03', 'Bells Hells travel the skies.', 'Critical Role'),
    // Older, and names the show only in its text: the headline in its feed comes first.
    source(2, 'Fan recap', '2026-12-04', 'A recap of the Critical Role episode.'),
  ];
  assert.equal(planLatest(asked, sources)!.source.n, 1);
  // Without the feed's name, only the recap's text names the show.
  assert.equal(
    planLatest(
      asked,
      [sources[0]!, sources[1]!].map((s) => ({ ...s, hit: { ...s.hit, sourceName: 'Podcast' } })),
    )!.source.n,
    2,
  );
});

test('a digest never quotes a line its feed repeats in another item, told from the whole articles; a feed asked by name is told item by item, newest first', async () => {
  const { planDigest } = await import('./extractive-digest.ts');
  const DISCLAIMER =
    'Due to the improv nature of Critical Role and other RPG content on our channels, some themes may be difficult for some to handle.';
  const notes = (summary: string) => `This episode is sponsored by Thorum. ${summary}\n${DISCLAIMER}`;
  const episode = (n: number, title: string, date: string, summary: string, passage: string) => ({
    ...source(n, `${title} | Critical Role | Campaign 3, Episode ${40 + n}`, date, passage, 'Critical Role'),
    article: notes(summary),
  });
  // The search's passages of each episode are different lines of the same notes: only the first
  // has the disclaimer in its text; the others have it in their articles.
  const sources: GroundingSource[] = [
    episode(1, 'The Fey Key', '2023-02-06', 'Bells Hells traverse the shadowy Fey Realm.', DISCLAIMER),
    episode(2, 'An Exit Most Fraught', '2023-02-13', 'Bells Hells need to leave the Fey Realm.', 'Critical Role live.'),
    episode(3, 'The Aurora Grows', '2023-02-20', 'Bells Hells travel the aurora-filled skies.', 'Critical Role.'),
  ];
  for (const question of ["What's new from Critical Role?", 'Summarize the news about Critical Role']) {
    const plan = planDigest(question, sources, { stories: 5, poolPerSource: 40 });
    const quoted = plan.sentences.map((s) => s.text);
    assert.ok(!quoted.some((t) => t.startsWith('Due to the improv')), quoted.join(' | '));
    assert.deepEqual(quoted, [
      'Bells Hells travel the aurora-filled skies.',
      'Bells Hells need to leave the Fey Realm.',
      'Bells Hells traverse the shadowy Fey Realm.',
    ]);
  }
});
