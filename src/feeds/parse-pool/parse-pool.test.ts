import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParsePool } from './parse-pool.ts';
import { FeedParseError } from '../parser/parse-feed.ts';

const feed = (n: number) => Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>Pool ${n}</title><link>https://e.org/</link>`
  + `<item><title>T${n}</title><guid>g${n}</guid><description>&lt;p&gt;hi&lt;script&gt;x()&lt;/script&gt;&lt;/p&gt;</description></item></channel></rss>`);

test('worker threads parse like the main thread, in parallel, and report parse errors as FeedParseError', async () => {
  const pool = new ParsePool(2);
  const inline = new ParsePool(0);
  try {
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => pool.parse(feed(n), { url: 'https://e.org/feed' })));
    assert.deepEqual(results.map((r) => r.title), ['Pool 1', 'Pool 2', 'Pool 3', 'Pool 4', 'Pool 5']);
    assert.deepEqual(results[0], await inline.parse(feed(1), { url: 'https://e.org/feed' }));
    assert.doesNotMatch(results[0]!.entries[0]!.summary ?? results[0]!.entries[0]!.content ?? '', /script/);
    await assert.rejects(pool.parse(Buffer.from('<html><body>page</body></html>'), { url: 'https://e.org/' }), FeedParseError);
    assert.equal((await pool.parse(feed(6), { url: 'https://e.org/feed' })).title, 'Pool 6', 'the pool keeps working after an error');
  } finally { await pool.close(); await inline.close(); }
  await assert.rejects(pool.parse(feed(7), { url: 'https://e.org/feed' }), /closed/);
});
