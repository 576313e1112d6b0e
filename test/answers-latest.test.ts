// A new user's first day: a podcast feed added with `tidings feed add` from a local server, then
// "What is the latest Critical Role episode about?" asked of the built-in extractive engine. The
// answer names the newest episode with its day and says what it is about, cited, whatever order
// the feed lists its episodes in and even when a newer item of the feed is no episode; "what's
// the latest on X" stays a digest, and a show no article mentions is still declined. Then the real
// YouTube channel feed of ../shared/corpus (its text is in <media:description>).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { runCli, SKIP_NO_SHARED, tempDataDir } from './helpers.ts';
import { rss, startFeedServer, type FeedServer } from './feeds-fixtures.ts';
import { REAL_WORLD_FEEDS, realWorldDataDir } from './real-world-feeds.ts';

const ENV = {
  TIDINGS_LLM_BASE_URL: '',
  TIDINGS_LLM_MODEL: '',
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  TIDINGS_LOG_LEVEL: 'silent',
};

const EPISODES: [string, string, string][] = [
  [
    'The Aurora Grows',
    'Bells Hells travel the aurora-filled skies of the Hellcatch Valley, concocting plans and gathering allies.',
    '2026-12-03',
  ],
  ['An Exit Most Fraught', 'Bells Hells attempt a daring escape from the clutches of the Ruby Vanguard.', '2026-11-26'],
  ['The Fey Key', 'The party seeks out a mysterious key in the Feywild, hoping to unlock a path home.', '2026-11-19'],
  [
    'Night at the Ligament Manor',
    'An invitation to a lavish party at Ligament Manor leads Bells Hells into danger.',
    '2026-11-12',
  ],
  ['Ominous Lectures', 'At the Cerberus Assembly, the party attends a series of ominous lectures.', '2026-11-05'],
  [
    'Bawdy Basement Belligerence',
    'A basement brawl breaks out as Bells Hells hunt for information in Jrusar.',
    '2026-10-29',
  ],
  ['Axiom Shaken', 'The group reels after the events at the Axiom, and tempers flare.', '2026-10-22'],
  ['The City of Flowing Light', 'Bells Hells arrive in the City of Flowing Light and meet old friends.', '2026-10-15'],
];

/**
 * A show's feed: its episodes (newest first as listed above), each with the show's boilerplate
 * after its summary; `bareTitles`: "Episode 49: The Aurora Grows", the show named only by the feed.
 */
function showFeed(
  show: string,
  order: 'newest-first' | 'oldest-first',
  extra: { title: string; body: string; date: string }[] = [],
  bareTitles = false,
) {
  const episodes = EPISODES.map(([title, summary, date], i) => ({
    guid: `${show.replace(/ /g, '-')}-${i}`,
    title: bareTitles ? `Episode ${49 - i}: ${title}` : `${title} | ${show} | Campaign 3, Episode ${49 - i}`,
    date: new Date(`${date}T20:00:00Z`).toUTCString(),
    body: `This episode is sponsored by Thorum. ${summary} New episodes of ${show} air live every Thursday at 7pm PT on Twitch.`,
  }));
  const items = [
    ...extra.map((e, i) => ({
      guid: `${show.replace(/ /g, '-')}-extra-${i}`,
      title: e.title,
      body: e.body,
      date: new Date(`${e.date}T20:00:00Z`).toUTCString(),
    })),
    ...(order === 'newest-first' ? episodes : episodes.reverse()),
  ];
  return rss(show, items);
}

let server: FeedServer;
let data: string;
const cli = (...args: string[]) => runCli(['--data', data, ...args], ENV);

async function ask(question: string): Promise<{ content: string; citations: string[] }> {
  const r = await cli('ask', '--json', question);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as { citations: string[]; choices: { message: { content: string } }[] };
  return { content: o.choices[0]!.message.content, citations: o.citations };
}

/** The URL a `[n]` marker of the answer cites. */
function cited(a: { content: string; citations: string[] }, at: number): string {
  const m = /\[(\d+)\]/g;
  m.lastIndex = at;
  return a.citations[Number(m.exec(a.content)![1]) - 1]!;
}

before(async () => {
  server = await startFeedServer();
  const serve = (path: string, body: string) =>
    server.routes.set(path, (_, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(body);
    });
  // Newest first, with a newer post that is no episode (a merch sale that names the show).
  serve(
    '/critical-role.xml',
    showFeed('Critical Role', 'newest-first', [
      {
        title: 'Holiday sale at the Critical Role shop',
        body: 'Everything in the Critical Role shop is 20 percent off until Christmas.',
        date: '2026-12-05',
      },
    ]),
  );
  // Oldest first, the show named only by the feed's title.
  serve('/high-tide.xml', showFeed('High Tide', 'oldest-first', [], true));
  data = tempDataDir('tidings-latest-');
  assert.equal((await cli('user', 'add', 'reader', '--password', 'correct horse')).code, 0);
  for (const path of ['/critical-role.xml', '/high-tide.xml'])
    assert.equal((await cli('feed', 'add', 'reader', `${server.base}${path}`)).code, 0);
});
after(async () => {
  await server?.close();
  if (data) rmSync(data, { recursive: true, force: true });
});

test('"What is the latest Critical Role episode about?": the newest episode, its day and its summary, cited; a newer merch post is passed over', {
  timeout: 120_000,
}, async () => {
  const a = await ask('What is the latest Critical Role episode about?');
  assert.equal(
    a.content.replace(/\[\d+\]/g, '[n]'),
    'The latest episode, published 3 December 2026, is "The Aurora Grows | Critical Role | Campaign 3, Episode 49".[n] ' +
      'Bells Hells travel the aurora-filled skies of the Hellcatch Valley, concocting plans and gathering allies.[n]',
  );
  // Both markers cite the episode's own page.
  assert.match(cited(a, 0), /\/Critical-Role-0$/);
  assert.match(cited(a, a.content.indexOf('Bells')), /\/Critical-Role-0$/);
  // The same by other words.
  for (const q of [
    'What was the last episode of Critical Role about?',
    "What is Critical Role's newest episode about?",
    'What happened in the most recent Critical Role episode?',
  ]) {
    const b = await ask(q);
    assert.match(
      b.content,
      /^The (last|newest|most recent) episode, published 3 December 2026, is "The Aurora Grows \| Critical Role/,
      q,
    );
    assert.doesNotMatch(b.content, /shop/, q);
  }
});

test("a feed that lists its episodes oldest first, its titles without the show's name: still the newest", {
  timeout: 120_000,
}, async () => {
  const a = await ask('What is the latest High Tide episode about?');
  assert.match(
    a.content,
    /^The latest episode, published 3 December 2026, is "Episode 49: The Aurora Grows"\.\[\d+\] Bells Hells travel the aurora-filled skies/,
  );
  assert.match(cited(a, 0), /\/High-Tide-0$/);
});

/** Runs `check` on a data folder of its own whose reader has only the real Critical Role YouTube feed. */
async function withRealYouTubeFeed(name: string, check: () => Promise<void>): Promise<void> {
  const feed = readFileSync(join(REAL_WORLD_FEEDS, 'fa88e615794de0164b706a5c21619e61-feed.xml'));
  server.routes.set(`/${name}.xml`, (_, res) => {
    res.setHeader('content-type', 'application/atom+xml');
    res.end(feed);
  });
  const own = data;
  data = tempDataDir(`tidings-${name}-`);
  try {
    assert.equal((await cli('user', 'add', 'reader', '--password', 'correct horse')).code, 0);
    assert.equal((await cli('feed', 'add', 'reader', `${server.base}/${name}.xml`)).code, 0);
    await check();
  } finally {
    rmSync(data, { recursive: true, force: true });
    data = own;
  }
}

test('"When is the next … episode?": the newest episode\'s sentence that names a time', {
  timeout: 120_000,
}, async () => {
  const a = await ask('When is the next Critical Role episode?');
  assert.match(
    a.content,
    /^The newest episode, "The Aurora Grows \| Critical Role \| Campaign 3, Episode 49", published 3 December 2026, says: New episodes of Critical Role air live every Thursday at 7pm PT on Twitch\.\[\d+\]$/,
  );
});

test('"What\'s the latest on Critical Role?" stays a digest; a show no article mentions is declined', {
  timeout: 120_000,
}, async () => {
  const digest = await ask("What's the latest on Critical Role?");
  assert.match(digest.content, /^- \*\*2026-12-0\d\*\*: /);
  assert.ok(digest.content.split('\n').length >= 3, digest.content);
  const none = await ask('What is the latest Dimension 20 episode about?');
  assert.match(none.content, /^Your feeds do not answer this: no article I found mentions Dimension 20\.$/);
});

test('the real Critical Role YouTube feed: the newest video named and what it is about, from <media:description>', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  await withRealYouTubeFeed('youtube', async () => {
    const a = await ask('What is the latest Critical Role episode about?');
    assert.match(
      a.content,
      /^The latest episode, published 20 February 2023, is "The Aurora Grows \| Critical Role \| Campaign 3, Episode 49"\.\[\d+\] Bells Hells travel the aurora-filled skies of the Hellcatch Valley, concocting plans and gathering allies as the days tick down to the apogee solstice\.\.\.\[\d+\]$/,
    );
    assert.equal(cited(a, 0), 'https://www.youtube.com/watch?v=0_NVdZp8haA');
    const when = await ask('When is the next Critical Role episode?');
    assert.match(when.content, /live Thursdays at 7pm PT/);
  });
});

test("the real Critical Role YouTube feed: a digest of what's new tells each video by its own line, never the boilerplate every description repeats; the last Q&A is found", {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  await withRealYouTubeFeed('youtube-digest', async () => {
    for (const question of ["What's new from Critical Role?", "What's the latest on Critical Role?"]) {
      const a = await ask(question);
      // The channel's disclaimer, sponsor reads, link lists and calls to subscribe, in every description.
      assert.doesNotMatch(
        a.content,
        /improv nature|Twitch subscribers|sponsored by|risk-free|https?:|Subscribe|CAPTION|live Thursdays/i,
        a.content,
      );
      const lines = a.content.split('\n');
      // The newest videos, newest first, each by what it is about.
      assert.match(
        lines[0]!,
        /^- \*\*2023-02-20\*\*(?:, "[^"]+")?: Bells Hells travel the aurora-filled skies of the Hellcatch Valley, .*\[\d+\]$/,
      );
      // "… from Critical Role?" names the feed (src/answer/text/feed-asked.ts): each line has its headline too.
      assert.match(
        lines[1]!,
        /^- \*\*2023-02-16\*\*(?:, "[^"]+")?: Join Matthew Mercer, .* as we watch Episodes 10-12, /,
      );
      assert.match(lines[2]!, /^- \*\*2023-02-13\*\*(?:, "[^"]+")?: Bells Hells need to leave the Fey Realm behind/);
      assert.equal(cited(a, 0), 'https://www.youtube.com/watch?v=0_NVdZp8haA');
    }
    // "Q&A" is a word to search by (it was the stop word "a" and the letter "q": a decline).
    const qa = await ask('What was the last Q&A about?');
    assert.match(
      qa.content,
      /^The last article about Q&A, published 16 February 2023, is "The Legend of Vox Machina Season 2, Episodes 10-12 Q&A"\.\[\d+\] Join Matthew Mercer, /,
    );
  });
});

test("among all the real-world feeds: the newest episode is found though the question's own search ranks it below 20 others", {
  skip: SKIP_NO_SHARED,
  timeout: 300_000,
}, async () => {
  const own = data;
  const { dir, close } = await realWorldDataDir('tidings-latest-real-world-');
  data = dir;
  try {
    const a = await ask('What is the latest Critical Role episode about?');
    assert.match(
      a.content,
      /^The latest episode, published 20 February 2023, is "The Aurora Grows \| Critical Role \| Campaign 3, Episode 49"\.\[1\] Bells Hells travel the aurora-filled skies/,
    );
    // "Video" is no word a channel's titles use: any item of the channel.
    const video = await ask('What is the newest video from Critical Role?');
    assert.match(video.content, /^The newest video, published 20 February 2023, is "The Aurora Grows/);
  } finally {
    data = own;
    close();
    rmSync(dir, { recursive: true, force: true });
  }
});
