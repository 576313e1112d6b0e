import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchHit, SearchQuery, SearchService } from '../../search/types.ts';
import { newestWanted, wantedOfKind } from './newest-of-kind.ts';
import { latestAskedOf } from '../text/latest-asked.ts';

const DAY = 86_400;
const hit = (i: number, title: string, sourceName = 'Critical Role'): SearchHit => ({
  itemId: i,
  url: `https://example.org/${i}`,
  title,
  sourceName,
  publishedAt: 1_700_000_000 + i * DAY,
  updatedAt: null,
  passages: [],
  score: 1,
  imageUrl: null,
  origin: 'local',
});

// 120 episodes; the search ranks the oldest first (they repeat the show's name more), 50 at most.
const episodes = Array.from({ length: 120 }, (_, i) => hit(i, `Episode ${i}: A night in Jrusar`));
const other = hit(500, 'Holiday sale at the shop');
const queries: SearchQuery[] = [];
const search: SearchService = {
  async search(q) {
    queries.push(q);
    return [...episodes, other].filter((h) => h.publishedAt! >= (q.filters.publishedAfter ?? 0)).slice(0, q.limit);
  },
  async newest() {
    throw new Error('a "latest X" question searches for X, not for the newest of everything');
  },
  async feedNames() {
    return [];
  },
  async articleTexts() {
    return new Map();
  },
};

test('the newest of the kind is found however the search ranks it: each search asks for newer articles than the last found', async () => {
  const asked = latestAskedOf('What is the latest Critical Role episode about?')!;
  const hits = await search.search({ text: 'q', scope: { kind: 'instance' }, filters: {}, limit: 20 });
  assert.ok(!hits.some((h) => h.itemId === 119));
  queries.length = 0;
  const kind = (await newestWanted(search, wantedOfKind(asked), { kind: 'instance' }, {}, hits, 20))!;
  assert.deepEqual(
    kind.hits.slice(0, 3).map((h) => h.itemId),
    [119, 118, 117],
  );
  assert.equal(kind.hits.length, 20);
  assert.ok(kind.ofKind.has('https://example.org/119') && !kind.ofKind.has(other.url));
  // The thing searched for; later rounds only after the newest found (the last finds none newer).
  assert.equal(queries[0]!.text, 'Critical Role episode');
  assert.equal(queries[1]!.filters.publishedAfter, episodes[69]!.publishedAt! + 1);
  assert.equal(kind.searches, queries.length);
  assert.ok(kind.searches <= 4);
  // A user's own date filter stays in force.
  queries.length = 0;
  const before = episodes[60]!.publishedAt!;
  const bounded = {
    async search(q: SearchQuery) {
      queries.push(q);
      return (await search.search(q)).filter((h) => h.publishedAt! <= before);
    },
    newest: search.newest,
    articleTexts: search.articleTexts,
    feedNames: search.feedNames,
  };
  const capped = (await newestWanted(
    bounded,
    wantedOfKind(asked),
    { kind: 'instance' },
    { publishedBefore: before },
    [],
    20,
  ))!;
  assert.equal(capped.hits[0]!.itemId, 60);
  assert.ok(queries.every((q) => q.filters.publishedBefore === before));
});

test('no article of the kind: nothing changes', async () => {
  const asked = latestAskedOf('What is the latest Dimension 20 episode about?')!;
  assert.equal(await newestWanted(search, wantedOfKind(asked), { kind: 'instance' }, {}, [other], 20), undefined);
});
