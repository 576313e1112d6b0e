import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeed } from './parser/parse-feed.ts';
import { isTruncated, withoutTruncatedTail } from './truncated-tail.ts';

const doc =
  '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://e.org/</link>' +
  '<item><title>A</title><guid>guid-a</guid></item><item><title>B</title><guid>guid-b</guid></item></channel></rss>\n';

test('the cut-off last entry of a truncated document is left for the next fetch', () => {
  const whole = Buffer.from(doc);
  const full = parseFeed(whole, { url: 'https://e.org/f' });
  assert.equal(isTruncated(full, whole), false);
  assert.equal(withoutTruncatedTail(full, whole).entries.length, 2);

  const cut = Buffer.from(doc.slice(0, doc.indexOf('guid-b') + 4)); // "<guid>guid" of B
  const partial = parseFeed(cut, { url: 'https://e.org/f' });
  assert.equal(isTruncated(partial, cut), true);
  assert.deepEqual(
    withoutTruncatedTail(partial, cut).entries.map((e) => e.guid),
    ['guid-a'],
  );
});
