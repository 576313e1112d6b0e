import { test } from 'node:test';
import assert from 'node:assert/strict';
import { feedAskedOf, feedsNamed, MAX_FEEDS_NAMED, nameMatch } from './feed-asked.ts';
import { SKIP_NO_SHARED } from '../../../test/helpers.ts';
import { readQuestions } from '../testing/news-corpus.ts';

/** Some of the real-world feeds' own titles (../shared/corpus/feeds/real-world), one renamed by its user. */
const FEEDS = [
  { feedId: 1, title: 'NASA Image of the Day', userTitle: null },
  { feedId: 6, title: 'The Guardian', userTitle: null },
  { feedId: 15, title: 'The Latest News from the UK and Around the World | Sky News', userTitle: null },
  { feedId: 20, title: 'Off Menu with Ed Gamble and James Acaster', userTitle: null },
  { feedId: 21, title: 'NASA Breaking News', userTitle: null },
  { feedId: 23, title: 'BBC News - World', userTitle: null },
  { feedId: 24, title: 'Critical Role', userTitle: 'CR videos' },
  { feedId: 12, title: 'The Verge - Front Pages', userTitle: 'Gadget reads' },
];
const named = async (q: string) => {
  const asked = feedAskedOf(q);
  return asked ? (await feedsNamed(asked, FEEDS)).map((f) => f.feedId) : undefined;
};

test('a question that names a feed, by its own title or the user’s, is answered from that feed', async () => {
  assert.deepEqual(await named('What has the Guardian published?'), [6]);
  assert.deepEqual(await named('What’s new from Critical Role?'), [24]);
  assert.deepEqual(await named('What did Off Menu post this week?'), [20]);
  assert.deepEqual(await named('Anything new on the NASA blog?'), [1, 21]);
  assert.deepEqual(await named('What is new from Sky News?'), [15]);
  assert.deepEqual(await named('Any news from the BBC?'), [23]);
  // The name the user gave the subscription, and the feed's own, both name it.
  assert.deepEqual(await named("What's new from CR videos?"), [24]);
  assert.deepEqual(await named('Anything new from Gadget reads?'), [12]);
  assert.deepEqual(await named('What did The Verge publish today?'), [12]);
  assert.deepEqual(await named("What's the Guardian's latest?"), [6]);
});

test('a feed’s name is the feed when the question asks about a source, else a topic', async () => {
  // "NASA" opens "NASA Breaking News" and "NASA Image of the Day": a topic too.
  assert.deepEqual(await named("What's the latest on NASA?"), []);
  assert.deepEqual(await named('What did NASA announce?'), []);
  assert.deepEqual(await named("What's new from NASA?"), [1, 21]);
  assert.deepEqual(await named("What's NASA's latest?"), [1, 21]);
  assert.deepEqual(await named('What did NASA post this week?'), [1, 21]);
  // A whole name too: without a word for a source it stays a topic (a digest of its newest items).
  assert.deepEqual(await named("What's the latest on Critical Role?"), []);
  assert.deepEqual(await named('What did the Guardian announce?'), []);
  // A name opening feeds that another feed's name is whole: that one.
  assert.deepEqual(
    (
      await feedsNamed(feedAskedOf('What did NASA post?')!, [...FEEDS, { feedId: 99, title: 'NASA', userTitle: null }])
    ).map((f) => f.feedId),
    [99],
  );
});

test('other questions are not about a feed', async () => {
  for (const q of [
    "What's new?",
    'Who founded the Guardian?',
    'Tell me about Critical Role',
    'What is the new fee to climb Mount Everest?',
    'Which of the following did the Federal Reserve announce this week?',
    "What's new with Ukraine?",
    '',
    'news '.repeat(30),
  ]) {
    const n = await named(q);
    assert.ok(n === undefined || n.length === 0, `${q}: ${n}`);
  }
  assert.equal(nameMatch(['nasa'], 'Recent Commits to hugo:master'), undefined);
  assert.equal(nameMatch(['critical', 'role'], 'Critical Role'), 'whole');
  assert.equal(nameMatch(['off', 'menu'], 'Off Menu with Ed Gamble and James Acaster'), 'opening');
  assert.equal(nameMatch(['sky', 'news'], 'The Latest News from the UK and Around the World | Sky News'), 'whole');
});

test('a hostile question or subscription list costs one bounded pass', async () => {
  for (const q of [
    `What has the ${'Guardian '.repeat(100_000)}published?`,
    `What's new from${' '.repeat(100_000)}NASA?`,
    `What's new from ${"'".repeat(100_000)}NASA?`,
  ])
    assert.equal(feedAskedOf(q), undefined);
  // 10,000 feeds, every one opening with the name asked for, with long names.
  const many = Array.from({ length: 10_000 }, (_, i) => ({
    feedId: i,
    title: `The Guardian ${'Local Edition '.repeat(200)}${i}`,
    userTitle: `Guardian ${'(('.repeat(1000)} ${i}`,
  }));
  const t0 = performance.now();
  const found = await feedsNamed(feedAskedOf("What's new from the Guardian?")!, many);
  assert.equal(found.length, MAX_FEEDS_NAMED);
  assert.ok(performance.now() - t0 < 2_000, `${performance.now() - t0} ms`);
});

test('no question of the news judge names one of its feeds ("News 3", "Held 7")', {
  skip: SKIP_NO_SHARED,
}, async () => {
  const judgeFeeds = Array.from({ length: 40 }, (_, k) => [
    { feedId: k, title: `News ${k}`, userTitle: null },
    { feedId: 100 + k, title: `Held ${k}`, userTitle: null },
  ]).flat();
  for (const { question } of readQuestions()) {
    const asked = feedAskedOf(question);
    if (asked) assert.deepEqual(await feedsNamed(asked, judgeFeeds), [], question);
  }
});
