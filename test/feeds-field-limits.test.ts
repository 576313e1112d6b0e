// A hostile feed with huge fields is stored capped, entry by entry, and the rest of the feed is kept.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, refreshFeed } from '../src/feeds/index.ts';
import { FIELD_LIMITS } from '../src/feeds/parser/field-limits.ts';
import { testSql } from '../src/store/testing.ts';
import { startFeedServer, testApp, addUser } from './feeds-fixtures.ts';

const server = await startFeedServer();
after(() => server.close());

test('oversized titles, authors, guids, URLs and content are capped with a marker; the feed is kept', async () => {
  const app = await testApp({ fetchTimeoutMs: 20_000 }); // a 7 MB document: the 3 s test default failed at load 20
  try {
    const hugeTitle = 'T'.repeat(5 * 1024 * 1024);
    const hugeGuid = 'g'.repeat(2 * 1024 * 1024);
    const hugeUrl = `https://example.org/${'u'.repeat(10_000)}`;
    const bigContent =
      '<p>' +
      'word '.repeat(1000) +
      '</p><p><a href="https://example.org/x">' +
      'link <b>bold</b> '.repeat(100_000) +
      '</a></p>';
    const emoji = '😀'.repeat(600); // surrogate pairs straddle the cut
    const feed = `<?xml version="1.0" encoding="utf-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Hostile</title><link>https://example.org/</link>
      <item><title>${hugeTitle}</title><guid>${hugeGuid}</guid><link>${hugeUrl}</link><dc:creator>${'A'.repeat(5000)}</dc:creator><description><![CDATA[${bigContent}]]></description></item>
      <item><title>${emoji}</title><guid>second</guid><link>https://example.org/2</link><description>fine</description></item>
      <item><title>Normal</title><guid>normal</guid><link>https://example.org/n</link><description>Normal body</description></item>
      </channel></rss>`;
    server.routes.set('/hostile.xml', (_req, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.end(feed);
    });
    const alice = await addUser(app, 'alice');
    const sub = await subscribe(app, alice, `${server.base}/hostile.xml`);
    const rows = await testSql(app)
      .prepare('SELECT guid, url, title, author, content, summary FROM items WHERE feed_id = ? ORDER BY id')
      .all<any>(sub.feedId);
    assert.equal(rows.length, 3, 'no entry is lost');
    const byGuid = (g: string) => rows.find((r) => r.guid === g);
    const second = byGuid('second'),
      normal = byGuid('normal');
    const big = rows.find((r) => r !== second && r !== normal);
    assert.equal(big.title.length, FIELD_LIMITS.title);
    assert.ok(big.title.endsWith('…'));
    assert.match(big.guid, /^sha256:[0-9a-f]{64}$/, 'a long guid becomes a stable hash');
    assert.equal(big.url, null, 'a URL too long to be real is dropped, not cut');
    assert.equal(big.author.length, FIELD_LIMITS.author);
    const html = big.content ?? big.summary;
    assert.ok(html.length <= FIELD_LIMITS.html, `content is ${html.length} chars`);
    assert.match(html, /the rest of this article was cut/);
    assert.ok(
      html.includes('<a ') && html.lastIndexOf('</a>') > html.lastIndexOf('<a '),
      'the open link is closed before the note',
    );
    assert.ok(html.length > FIELD_LIMITS.html * 0.9, 'most of the article is kept');
    assert.ok(
      !/[\ud800-\udbff]…$/.test(second.title) &&
        second.title.endsWith('…') &&
        second.title.length <= FIELD_LIMITS.title,
      'no half surrogate pair',
    );
    assert.equal(normal.title, 'Normal');
    assert.equal(normal.summary ?? normal.content, 'Normal body');

    // The same document again: the hashed guid is stable, so nothing is duplicated.
    await refreshFeed(app, sub.feedId, { force: true } as never);
    assert.equal(
      Number(
        (await testSql(app)
          .prepare('SELECT count(*) AS n FROM items WHERE feed_id = ?')
          .get<{ n: number }>(sub.feedId))!.n,
      ),
      3,
    );
  } finally {
    await app.close();
  }
});
