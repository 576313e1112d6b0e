// How old the news is, on the real-world feeds (../shared/corpus/feeds/real-world, April 2022) read
// as a new user reads them, years later: a filter that leaves nothing says what it removed, --as-of
// moves the filter's window, and an answer about "this week" says first that the feeds hold
// nothing from then. Skips with a message when ../shared is absent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, SKIP_NO_SHARED, hasShared } from './helpers.ts';
import { REAL_WORLD_ENV, realWorldDataDir } from './real-world-feeds.ts';

let dir: string;
let close: (() => void) | undefined;
before(async () => {
  if (!hasShared) return;
  ({ dir, close } = await realWorldDataDir('tidings-time-real-world-'));
});
after(() => close?.());

interface Answer {
  content: string;
  citations: string[];
  search_results: { url: string; date?: string | null }[];
}
async function ask(...args: string[]): Promise<Answer> {
  const r = await runCli(['--data', dir, 'ask', '--json', ...args], REAL_WORLD_ENV);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as Omit<Answer, 'content'> & { choices: { message: { content: string } }[] };
  return { ...o, content: o.choices[0]!.message.content };
}

test('--recency week over April 2022 news: says how many articles the filter removed and how old the newest is', {
  skip: SKIP_NO_SHARED,
}, async () => {
  const a = await ask('--recency', 'week', 'What did NASA announce?');
  assert.doesNotMatch(a.content, /I found no articles/);
  const m = /^(\d+) articles mention NASA; none is from the last week \(the newest is from 5 April 2022\)\.$/.exec(
    a.content,
  );
  assert.ok(m, a.content);
  assert.ok(Number(m[1]) >= 10, `the feeds hold many NASA articles: ${a.content}`);
  // The same for a domain filter.
  const d = await ask('--domain', 'example.com', 'What did NASA announce?');
  assert.match(
    d.content,
    /^\d+ articles mention NASA; none is from example\.com \(the newest is from 5 April 2022\)\.$/,
  );
});

test('--as-of 2022-04-06 --recency week counts the week back from 6 April 2022', { skip: SKIP_NO_SHARED }, async () => {
  const a = await ask('--as-of', '2022-04-06', '--recency', 'week', 'What did NASA announce?');
  assert.doesNotMatch(a.content, /none is from/);
  assert.ok(a.citations.length > 0, a.content);
  assert.match(a.content, /NASA/);
  for (const r of a.search_results) {
    if (!r.date) continue;
    assert.ok(r.date >= '2022-03-30' && r.date <= '2022-04-06', `${r.url} is from ${r.date}`);
  }
});

test('"this week" years later: the answer says first that the feeds have nothing from then, and how old the newest are', {
  skip: SKIP_NO_SHARED,
}, async () => {
  const a = await ask('What did NASA announce about Artemis this week?');
  assert.match(
    a.content,
    /^Your feeds have nothing from this week; the newest articles found, from (March|April) 2022, say:\n\n/,
  );
  assert.ok(a.citations.length > 0);
  // Dated quotes are a clause of their own: never "On 5 April 2022, Within …".
  assert.doesNotMatch(a.content, /\bOn \d{1,2} [A-Z][a-z]+ \d{4}, /);
  assert.match(a.content, /\n\n\d{1,2} (March|April) 2022: \S/);
  // As of that week, the news is current: no such line.
  const then = await ask('--as-of', '2022-04-06', 'What did NASA announce about Artemis this week?');
  assert.doesNotMatch(then.content, /Your feeds have nothing/);
});
