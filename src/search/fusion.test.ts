import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuseKeepingLead, fusionUrl, reciprocalRankFusion, RRF_K, withoutNearDuplicates } from './fusion.ts';
import type { SearchHit } from './types.ts';

function hit(url: string, over: Partial<SearchHit> = {}): SearchHit {
  return {
    itemId: null,
    url,
    title: url,
    sourceName: 'site',
    publishedAt: null,
    updatedAt: null,
    passages: [{ text: `about ${url}`, score: 1 }],
    score: 10,
    imageUrl: null,
    origin: 'local',
    ...over,
  };
}

test('fusionUrl: fragment, trailing slash and host case do not make a different article; the query does', () => {
  assert.equal(fusionUrl('https://Example.ORG/a/#comments'), fusionUrl('https://example.org/a'));
  assert.equal(fusionUrl('HTTPS://example.org:443/a'), fusionUrl('https://example.org/a/'));
  assert.notEqual(fusionUrl('https://example.org/a?id=1'), fusionUrl('https://example.org/a?id=2'));
  assert.notEqual(fusionUrl('https://example.org/a'), fusionUrl('http://example.org/a'));
  assert.equal(fusionUrl('not a url'), 'not a url');
});

test('an article found by several lists rises above one found once, with rank-only scores', () => {
  const a = [hit('https://x.test/1'), hit('https://x.test/2'), hit('https://x.test/3')];
  const b = [hit('https://x.test/3#top', { score: 99 }), hit('https://x.test/4')];
  const fused = reciprocalRankFusion([a, b]);
  assert.deepEqual(
    fused.map((h) => h.url),
    // 2 and 4 tie (both second in one list): the earlier list's comes first.
    ['https://x.test/3', 'https://x.test/1', 'https://x.test/2', 'https://x.test/4'],
  );
  assert.equal(fused[0]!.score, 1 / (RRF_K + 3) + 1 / (RRF_K + 1));
  assert.equal(fused[1]!.score, 1 / (RRF_K + 1));
  assert.equal(reciprocalRankFusion([a, b], 2).length, 2);
});

test('fuseKeepingLead: the first list keeps its best hits in place, the rest in fused order, passages merged', () => {
  const question = ['1', '2', '3', '4'].map((n) => hit(`https://x.test/${n}`));
  const names = ['3', '4', '5', '2'].map((n) =>
    hit(`https://x.test/${n}`, { passages: [{ text: `names ${n}`, score: 1 }] }),
  );
  const urls = (hits: SearchHit[]) => hits.map((h) => h.url.slice('https://x.test/'.length));
  // Rank fusion alone puts 3 (second and first) above 1 (first list only).
  assert.deepEqual(urls(reciprocalRankFusion([question, names])), ['3', '2', '4', '1', '5']);
  const kept = fuseKeepingLead([question, names], 2);
  assert.deepEqual(urls(kept), ['1', '2', '3', '4', '5']);
  assert.deepEqual(
    kept[1]!.passages.map((p) => p.text),
    ['about https://x.test/2', 'names 2'],
  );
  assert.deepEqual(urls(fuseKeepingLead([question, names], 0)), urls(reciprocalRankFusion([question, names])));
  assert.deepEqual(urls(fuseKeepingLead([question, names], 1, 3)), ['1', '3', '2']);
  assert.deepEqual(urls(fuseKeepingLead([question], 2)), ['1', '2', '3', '4']);
});

test('the same article keeps the passages of every list once, and the local copy wins over the web one', () => {
  const web = hit('https://news.test/story/', {
    origin: 'web',
    passages: [{ text: 'web snippet', score: 1 }],
    title: 'Web title',
  });
  const local = hit('https://news.test/story', {
    itemId: 42,
    passages: [
      { text: 'local passage', score: 2 },
      { text: 'web snippet', score: 1 },
    ],
  });
  const [merged, ...rest] = reciprocalRankFusion([[web], [local]]);
  assert.equal(rest.length, 0);
  assert.equal(merged!.itemId, 42);
  assert.equal(merged!.origin, 'local');
  assert.deepEqual(
    merged!.passages.map((p) => p.text),
    ['local passage', 'web snippet'],
  );
  // Inputs are not changed (the lists are cached by callers).
  assert.deepEqual(
    local.passages.map((p) => p.text),
    ['local passage', 'web snippet'],
  );
  assert.equal(web.passages.length, 1);
});

test('hits without a URL are told apart by item id; one list is returned with its own scores', () => {
  const fused = reciprocalRankFusion([[hit('', { itemId: 1 }), hit('', { itemId: 2 })], [hit('', { itemId: 2 })]]);
  assert.deepEqual(
    fused.map((h) => h.itemId),
    [2, 1],
  );
  const one = [hit('https://x.test/1', { score: 7.5 }), hit('https://x.test/2', { score: 3 })];
  assert.deepEqual(
    reciprocalRankFusion([one], 1).map((h) => h.score),
    [7.5],
  );
});

const story =
  'The city council voted on Tuesday to close the old bridge for repairs after inspectors found cracks in two of its supports, and the work will take most of the summer.';

test('withoutNearDuplicates: one story under two URLs or re-titled is listed once, at its better rank', () => {
  const hits = [
    hit('https://news.test/a', { passages: [{ text: story, score: 3 }] }),
    hit('https://other.test/b'),
    hit('https://news.test/a/index.html', { title: 'Bridge closed', passages: [{ text: story, score: 2 }] }),
    // The same story with a sentence added (a wire copy with the local paper's ending) is still it.
    hit('https://wire.test/c', { passages: [{ text: `${story} The mayor said detours are posted.`, score: 1 }] }),
  ];
  assert.deepEqual(
    withoutNearDuplicates(hits).map((h) => h.url),
    ['https://news.test/a', 'https://other.test/b'],
  );
});

test('withoutNearDuplicates: a shared section title, a shared topic or no text does not make a duplicate', () => {
  const hits = [
    hit('https://news.test/1', { title: '50 States', passages: [{ text: story, score: 1 }] }),
    hit('https://news.test/2', {
      title: '50 States',
      passages: [
        {
          text: 'The city council voted on Tuesday to raise bus fares next year, and riders said the service has not improved since the last increase.',
          score: 1,
        },
      ],
    }),
    hit('https://news.test/3', { passages: [] }),
    hit('https://news.test/4', { passages: [] }),
  ];
  assert.deepEqual(
    withoutNearDuplicates(hits).map((h) => h.url),
    hits.map((h) => h.url),
  );
  assert.equal(withoutNearDuplicates(hits), hits, 'nothing dropped: the same array back');
});

test('withoutNearDuplicates: with max, the first max hits of the whole list are kept and no more', () => {
  const hits = [
    hit('https://news.test/a', { passages: [{ text: story, score: 3 }] }),
    hit('https://news.test/a/index.html', { passages: [{ text: story, score: 2 }] }),
    hit('https://other.test/b'),
    hit('https://other.test/c'),
  ];
  const all = withoutNearDuplicates(hits).map((h) => h.url);
  assert.deepEqual(all, ['https://news.test/a', 'https://other.test/b', 'https://other.test/c']);
  for (const max of [0, 1, 2, 3, 4])
    assert.deepEqual(
      withoutNearDuplicates(hits, undefined, max).map((h) => h.url),
      all.slice(0, max),
    );
});

test('withoutNearDuplicates: one call does not see the shingles of the one before, and many long hits fit', () => {
  const copy = hit('https://copy.test/a', { passages: [{ text: story, score: 1 }] });
  assert.equal(
    withoutNearDuplicates([hit('https://news.test/a', { passages: [{ text: story, score: 1 }] })]).length,
    1,
  );
  const other = hit('https://other.test/b', { passages: [{ text: `Unrelated: ${'words '.repeat(5)}`, score: 1 }] });
  assert.deepEqual(
    withoutNearDuplicates([other, copy]).map((h) => h.url),
    ['https://other.test/b', 'https://copy.test/a'],
  );
  // 30 hits of ~190 distinct shingles each (more than the first table holds), then a copy of the last.
  const long = (k: number) =>
    Array.from({ length: 200 }, (_, i) => `w${k}x${i}`)
      .join(' ')
      .slice(0, 1_000);
  const many = Array.from({ length: 30 }, (_, k) =>
    hit(`https://many.test/${k}`, { passages: [{ text: long(k), score: 1 }] }),
  );
  const again = hit('https://many.test/again', { passages: [{ text: long(29), score: 1 }] });
  assert.deepEqual(
    withoutNearDuplicates([...many, again]).map((h) => h.url),
    many.map((h) => h.url),
  );
});

test('withoutNearDuplicates: the passages are read as one text, a line break between them, up to 1,000 characters', () => {
  const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');
  const p = (text: string) => ({ text, score: 1 });
  // One story cut into passages at other places is the same story: a passage boundary only ends a word.
  const whole = hit('https://one.test/a', { passages: [p(`${words(0, 40)} ${words(40, 40)}`)] });
  const cut = hit('https://two.test/a', { passages: [p(words(0, 40)), p(words(40, 40))] });
  assert.deepEqual(
    withoutNearDuplicates([whole, cut]).map((h) => h.url),
    ['https://one.test/a'],
  );
  // A boundary is not glued: "w39" then "w40" are two words, not "w39w40".
  const glued = hit('https://three.test/a', { passages: [p(`${words(0, 39)} w39w40 ${words(41, 39)}`)] });
  assert.equal(withoutNearDuplicates([cut, glued]).length, 1, 'four shingles of 75 differ: still one story');
  // Past the first 1,000 characters (the line breaks counted), nothing is compared.
  const lead = words(0, 300).slice(0, 1_000);
  const a = hit('https://four.test/a', { passages: [p(lead.slice(0, 600)), p(lead.slice(601)), p(words(500, 200))] });
  const b = hit('https://five.test/a', { passages: [p(lead.slice(0, 600)), p(lead.slice(601)), p(words(900, 200))] });
  assert.equal(withoutNearDuplicates([a, b]).length, 1, 'same first 1,000 characters, different rest');
  // An empty first passage adds no line break.
  const empty = hit('https://six.test/a', { passages: [p(''), p(words(1_000, 80))] });
  const other = hit('https://seven.test/a', { passages: [p(words(2_000, 80))] });
  assert.equal(withoutNearDuplicates([empty, other]).length, 2);
  assert.equal(
    withoutNearDuplicates([empty, hit('https://eight.test/a', { passages: [p(words(1_000, 80))] })]).length,
    1,
  );
});
