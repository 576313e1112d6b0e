// A new user's questions that name one of their feeds: "What has the Guardian published?",
// "What did Off Menu post this week?", "Anything new on the NASA blog?". Five real feeds (of
// ../shared/corpus/feeds/real-world) served from a local HTTP server, added with `tidings feed add`
// (Critical Role under a name of the user's own), then asked of the built-in extractive engine.
// The answer tells the named feed's newest items, newest first, each with its day and headline,
// cited; a roundup names each feed as the user named it; sonar-deep-research's report about a feed
// quotes none of its boilerplate; related questions propose no platform ("YouTube"). Before, the
// search found whatever mentioned the word: Off Menu's Christmas show for the Guardian, a software
// tutorial's "Top Menu" for Off Menu, a blog about Jekyll for NASA.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, SKIP_NO_SHARED, tempDataDir } from './helpers.ts';
import { REAL_WORLD_FEEDS } from './real-world-feeds.ts';
import { startFeedServer, type FeedServer } from './feeds-fixtures.ts';

const ENV = {
  TIDINGS_LLM_BASE_URL: '',
  TIDINGS_LLM_MODEL: '',
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  TIDINGS_FULL_TEXT_AUTO: 'off',
  TIDINGS_LOG_LEVEL: 'silent',
};

const FEEDS: { file: string; title?: string }[] = [
  { file: '2d055498ae801efb0bf0b6124009cac2-feed.xml' }, // The Guardian
  { file: 'dedf3f57aadefbdc6b8ad6e17efca957-feed.xml' }, // Off Menu with Ed Gamble and James Acaster
  { file: 'ee43b6c3afd282f5ca6dd3c294ec1f2e-feed.xml' }, // NASA Breaking News
  { file: '0390cb7970a0c01c35d7bfb28aa300d3-feed.xml' }, // NASA Image of the Day
  { file: 'fa88e615794de0164b706a5c21619e61-feed.xml', title: 'Bells Hells' }, // Critical Role, renamed
];

let server: FeedServer | undefined;
let data: string | undefined;
const cli = (...args: string[]) => runCli(['--data', data!, ...args], ENV);

interface Answer {
  content: string;
  citations: string[];
  related: string[];
}

async function ask(...args: string[]): Promise<Answer> {
  const r = await cli('ask', '--json', '--related', ...args);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as {
    citations: string[];
    related_questions?: string[];
    choices: { message: { content: string } }[];
  };
  return { content: o.choices[0]!.message.content, citations: o.citations, related: o.related_questions ?? [] };
}

/** The URLs an answer's lines cite, in order. */
const cited = (a: Answer) => [...a.content.matchAll(/\[(\d+)\]/g)].map((m) => a.citations[Number(m[1]) - 1]!);
/** The days of a digest's lines, in order. */
const days = (a: Answer) => [...a.content.matchAll(/^- \*\*(\d{4}-\d\d-\d\d)\*\*/gm)].map((m) => m[1]!);

before(async () => {
  if (SKIP_NO_SHARED) return;
  server = await startFeedServer();
  for (const { file } of FEEDS) {
    const body = readFileSync(join(REAL_WORLD_FEEDS, file));
    server.routes.set(`/${file}`, (_, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(body);
    });
  }
  data = tempDataDir('tidings-feed-asked-');
  assert.equal((await cli('user', 'add', 'reader', '--password', 'correct horse')).code, 0);
  for (const { file, title } of FEEDS) {
    const r = await cli('feed', 'add', 'reader', `${server.base}/${file}`, ...(title ? ['--title', title] : []));
    assert.equal(r.code, 0, r.stderr);
  }
});
after(async () => {
  await server?.close();
  if (data) rmSync(data, { recursive: true, force: true });
});

test('"What has the Guardian published?" tells the Guardian feed’s newest articles, newest first', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  const a = await ask('What has the Guardian published?');
  const urls = cited(a);
  assert.ok(urls.length >= 3, a.content);
  for (const u of urls) assert.match(u, /^https:\/\/www\.theguardian\.com\//, a.content);
  assert.deepEqual(days(a), [...days(a)].sort().reverse(), 'newest first');
  // One feed: each line is its day and headline, not the feed's name again.
  assert.match(a.content, /^- \*\*2022-04-05\*\*, "[^"]+": /);
  assert.doesNotMatch(a.content, /mention|do not answer|The Guardian,/);
});

test('"What did Off Menu post this week?" is the podcast’s newest episodes, said to be older than the week', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  const a = await ask('--as-of', '2023-03-10', 'What did Off Menu post this week?');
  const [first, , lead] = a.content.split('\n');
  assert.equal(first, 'Your feeds have nothing from this week; the newest articles found, from February 2023, say:');
  assert.match(lead!, /^- \*\*2023-02-22\*\*, "Ep 180: Reece Shearsmith": /);
  for (const u of cited(a)) assert.match(u, /^https:\/\/shows\.acast\.com\/offmenu\//, a.content);
  // Each episode by its own opening, never the lines every episode's notes repeat.
  assert.doesNotMatch(a.content, /sponsor|acast|patreon|instagram|twitter/i);
});

test('"NASA": "Anything new on the NASA blog?" is both NASA feeds; "What\'s the latest on NASA?" a digest about NASA', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  const blog = await ask('Anything new on the NASA blog?');
  const urls = cited(blog);
  assert.ok(urls.length >= 3, blog.content);
  for (const u of urls) assert.match(u, /^https?:\/\/www\.nasa\.gov\//, blog.content);
  assert.match(blog.content, /^- \*\*\d{4}-\d\d-\d\d\*\*, NASA (?:Breaking News|Image of the Day)[,:]/m);
  // The topic: a digest of what mentions NASA, dated lines with no feed names.
  const topic = await ask("What's the latest on NASA?");
  assert.match(topic.content, /^- \*\*\d{4}-\d\d-\d\d\*\*: /);
});

test('a feed the user renamed is asked by its new name and named by it in a roundup', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  const own = await ask("What's new from Bells Hells?");
  assert.ok(cited(own).length >= 3, own.content);
  for (const u of cited(own)) assert.match(u, /^https:\/\/www\.youtube\.com\//, own.content);
  // By the feed's own title too.
  const byTitle = await ask("What's new from Critical Role?");
  assert.deepEqual(cited(byTitle), cited(own));
  const news = await ask("What's new?");
  assert.match(news.content, /^- \*\*2023-02-20\*\*, Bells Hells, "The Aurora Grows/m);
  assert.doesNotMatch(news.content, /, Critical Role, /);
  // The roundup proposes the feeds it drew on, each a question of its own.
  assert.ok(news.related.includes("What's new from Bells Hells?"), news.related.join('\n'));
  // Never a platform the items are posted on.
  assert.doesNotMatch(
    [...own.related, ...byTitle.related].join('\n'),
    /latest on (?:YouTube|Twitter|Instagram|Facebook|VODs|Q&A|Prime Video|Shops)\?/,
  );
});

test('sonar-deep-research: a report about a feed quotes none of its sponsor reads or captions notices', {
  skip: SKIP_NO_SHARED,
  timeout: 120_000,
}, async () => {
  const a = await ask('--model', 'sonar-deep-research', "What's new from Critical Role?");
  assert.match(a.content, /The question names the feed "Bells Hells": the sources are its \d+ newest articles/);
  const report = a.content.slice(a.content.indexOf('</think>'));
  assert.ok(cited({ ...a, content: report }).length >= 1, report);
  for (const u of a.citations) assert.match(u, /^https:\/\/www\.youtube\.com\//);
  assert.doesNotMatch(report, /sponsor|captions?|subscribe|patreon|https?:\/\//i);
});
