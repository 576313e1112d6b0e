// A new user's first questions name no topic: "What's new?", "What happened today?", "Summarize
// the news". Two feeds (a news site and a podcast) added with `tidings feed add` from a local
// server, then those questions asked of the built-in extractive engine. The answer is a roundup of
// the newest articles across the user's feeds, newest first, each with its day, its feed and its
// headline, cited; a period the feeds hold nothing from is said first; the recency filter and the
// as-of day hold. Before, every one of them declined ("8 articles mention What, but none says that").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { runCli, SKIP_NO_SHARED, tempDataDir } from './helpers.ts';
import { realWorldDataDir } from './real-world-feeds.ts';
import { rss, startFeedServer, type FeedServer } from './feeds-fixtures.ts';

const ENV = {
  TIDINGS_LLM_BASE_URL: '',
  TIDINGS_LLM_MODEL: '',
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  TIDINGS_LOG_LEVEL: 'silent',
};

const at = (day: string) => new Date(`${day}T09:00:00Z`).toUTCString();

const NEWS = rss('Harbour Gazette', [
  {
    guid: 'bridge',
    title: 'Harbour bridge reopens after repairs',
    date: at('2026-12-04'),
    body: 'The harbour bridge reopened to traffic on Friday after six months of repairs. The council said cyclists get a new lane.',
  },
  {
    guid: 'budget',
    title: 'Council passes the budget',
    date: at('2026-11-20'),
    body: 'The city council passed next year’s budget by nine votes to four. Libraries get more money.',
  },
  {
    guid: 'ferry',
    title: 'Ferry timetable changes',
    date: at('2026-10-02'),
    body: 'The winter ferry timetable starts in October with fewer evening crossings.',
  },
]);

const PODCAST = rss('Kitchen Table Talk', [
  {
    guid: 'ep-12',
    title: 'Ep 12: Sourdough at home',
    date: at('2026-12-02'),
    body: 'A baker explains how to keep a starter alive through winter. Plus listener questions.',
  },
  {
    guid: 'ep-11',
    title: 'Ep 11: Knife skills',
    date: at('2026-11-25'),
    body: 'Two chefs compare the knives they cannot cook without.',
  },
]);

let server: FeedServer;
let data: string;
const cli = (...args: string[]) => runCli(['--data', data, ...args], ENV);

async function ask(...args: string[]): Promise<{ content: string; citations: string[] }> {
  const r = await cli('ask', '--json', ...args);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as { citations: string[]; choices: { message: { content: string } }[] };
  return { content: o.choices[0]!.message.content, citations: o.citations };
}

/** The answer's lines with each `[n]` replaced by the URL it cites. */
const withUrls = (a: { content: string; citations: string[] }) =>
  a.content.replace(/\[(\d+)\]/g, (_, n: string) => `[${a.citations[Number(n) - 1]}]`).split('\n');

before(async () => {
  server = await startFeedServer();
  for (const [path, body] of [
    ['/gazette.xml', NEWS],
    ['/podcast.xml', PODCAST],
  ] as const)
    server.routes.set(path, (_, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(body);
    });
  data = tempDataDir('tidings-roundup-');
  assert.equal((await cli('user', 'add', 'reader', '--password', 'correct horse')).code, 0);
  for (const path of ['/gazette.xml', '/podcast.xml'])
    assert.equal((await cli('feed', 'add', 'reader', `${server.base}${path}`)).code, 0);
});
after(async () => {
  await server?.close();
  if (data) rmSync(data, { recursive: true, force: true });
});

test('"What\'s new?": the newest articles across the feeds, newest first, each with its day, feed and headline, cited', {
  timeout: 120_000,
}, async () => {
  const a = await ask('--as-of', '2026-12-05', "What's new?");
  assert.deepEqual(withUrls(a).slice(0, 4), [
    '- **2026-12-04**, Harbour Gazette, "Harbour bridge reopens after repairs": The harbour bridge reopened to traffic on Friday after six months of repairs.[https://example.org/bridge]',
    '- **2026-12-02**, Kitchen Table Talk, "Ep 12: Sourdough at home": A baker explains how to keep a starter alive through winter.[https://example.org/ep-12]',
    '- **2026-11-25**, Kitchen Table Talk, "Ep 11: Knife skills": Two chefs compare the knives they cannot cook without.[https://example.org/ep-11]',
    '- **2026-11-20**, Harbour Gazette, "Council passes the budget": The city council passed next year’s budget by nine votes to four.[https://example.org/budget]',
  ]);
  // The same roundup by other words.
  for (const q of ['What is the latest news?', 'Summarize the news', 'What did I miss?', 'Any news?']) {
    const b = await ask('--as-of', '2026-12-05', q);
    assert.match(b.content, /^- \*\*2026-12-04\*\*, Harbour Gazette, "Harbour bridge reopens after repairs": /, q);
  }
});

test('"What happened today?" over feeds with nothing from today says so first, then the newest', {
  timeout: 120_000,
}, async () => {
  const stale = await ask('--as-of', '2026-12-20', 'What happened today?');
  const [first, blank, lead] = stale.content.split('\n');
  assert.equal(first, 'Your feeds have nothing from today; the newest articles found, from December 2026, say:');
  assert.equal(blank, '');
  assert.match(lead!, /^- \*\*2026-12-04\*\*, Harbour Gazette, /);
  // The day after the newest article: yesterday's news is quoted as it is.
  const fresh = await ask('--as-of', '2026-12-05', 'What happened today?');
  assert.match(fresh.content, /^- \*\*2026-12-04\*\*, Harbour Gazette, /);
});

test('"What did X announce recently?": a digest of the newest about X, newest first', {
  timeout: 120_000,
}, async () => {
  const a = await ask('--as-of', '2026-12-05', 'What did the council announce recently?');
  const lines = withUrls(a);
  assert.deepEqual(
    lines.map((l) => /^- \*\*(\S+)\*\*: .*\[(https:[^\]]+)\]$/.exec(l)?.slice(1)),
    [
      ['2026-12-04', 'https://example.org/bridge'],
      ['2026-11-20', 'https://example.org/budget'],
    ],
  );
});

test('sonar-deep-research: "What\'s new?" reads the newest articles instead of planning sub-questions about "What"', {
  timeout: 120_000,
}, async () => {
  const a = await ask('--as-of', '2026-12-05', '--model', 'sonar-deep-research', "What's new?");
  assert.match(a.content, /A roundup: the question names no topic, so the sources are the 5 newest articles/);
  assert.doesNotMatch(a.content, /Sub-questions|Searched "What/);
  assert.ok(a.citations.includes('https://example.org/bridge'), a.content);
});

test('a roundup keeps to the recency filter, counted from the as-of day', { timeout: 120_000 }, async () => {
  const week = await ask('--as-of', '2026-12-05', '--recency', 'week', "What's new?");
  const lines = withUrls(week);
  assert.deepEqual(
    lines.map((l) => /\[(https:[^\]]+)\]$/.exec(l)?.[1]),
    ['https://example.org/bridge', 'https://example.org/ep-12'],
  );
});

test('the real-world feeds: "What\'s new?" lists the newest items across the 24 feeds, newest first; "What\'s the latest on Critical Role?" leads with its newest video', {
  skip: SKIP_NO_SHARED,
  timeout: 300_000,
}, async () => {
  const own = data;
  const { dir, close } = await realWorldDataDir('tidings-roundup-real-world-');
  data = dir;
  try {
    const news = await ask("What's new?");
    const days = [...news.content.matchAll(/^- \*\*(\d{4}-\d\d-\d\d)\*\*, /gm)].map((m) => m[1]!);
    assert.ok(days.length >= 3, news.content);
    assert.deepEqual(days, [...days].sort().reverse(), 'newest first');
    assert.doesNotMatch(news.content, /mention|do not answer/);
    // Several feeds, at most two stories of one (one software site's tutorials were all five), and
    // no empty quote or headline (a Mastodon post without text, an image bot's untitled posts).
    const feeds = [...news.content.matchAll(/^- \*\*[\d-]+\*\*, ([^,:"]+)/gm)].map((m) => m[1]!);
    assert.ok(new Set(feeds).size >= 3, news.content);
    for (const f of feeds) assert.ok(feeds.filter((x) => x === f).length <= 2, news.content);
    assert.doesNotMatch(news.content, /""|: \[\d+\]$/m);
    // Each item by its own opening, not by its feed's sponsor read or captions notice.
    assert.doesNotMatch(news.content, /sponsored|captions/i);
    // By relevance alone the digest led with a story of 6 February; the newest video is of the 20th.
    const latest = await ask("What's the latest on Critical Role?");
    assert.match(latest.content, /^- \*\*2023-02-20\*\*: /);
    assert.equal(latest.citations[0], 'https://www.youtube.com/watch?v=0_NVdZp8haA');
  } finally {
    data = own;
    close();
    rmSync(dir, { recursive: true, force: true });
  }
});
