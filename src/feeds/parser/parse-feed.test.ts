import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedParseError, parseFeed } from './parse-feed.ts';

const URL_ = 'https://example.com/blog/feed.xml';

test('RSS 2.0: items are normalised (guid, absolute link, plain title, author, dates, enclosure, image, categories)', () => {
  const feed = parseFeed(
    `<?xml version="1.0"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>My &amp; Blog</title><link>/</link><description>About things</description><ttl>90</ttl>
<item>
  <title>&lt;b&gt;Bold&lt;/b&gt; move &amp;amp; more</title>
  <link>posts/1.html</link>
  <guid isPermaLink="false">post-1</guid>
  <dc:creator>Ada</dc:creator>
  <pubDate>Tue, 05 Apr 2022 09:20:00 EDT</pubDate>
  <description>Short &lt;em&gt;summary&lt;/em&gt;</description>
  <content:encoded><![CDATA[<p onclick="x()">Body <img src="/a.png"><script>evil()</script></p>]]></content:encoded>
  <enclosure url="/ep1.mp3" length="1234" type="audio/mpeg"/>
  <media:thumbnail url="https://cdn.example.com/t.jpg"/>
  <category>News</category><category>Tech</category><category>News</category>
</item>
</channel></rss>`,
    { url: URL_ },
  );
  assert.equal(feed.format, 'rss');
  assert.equal(feed.title, 'My & Blog');
  assert.equal(feed.siteUrl, 'https://example.com/');
  assert.equal(feed.ttlMinutes, 90);
  assert.equal(feed.recovered, false);
  const [e] = feed.entries;
  assert.ok(e);
  assert.equal(e.guid, 'post-1');
  assert.equal(e.url, 'https://example.com/blog/posts/1.html');
  assert.equal(e.title, 'Bold move & more', 'RSS titles are HTML: shown as a browser shows them');
  assert.equal(e.author, 'Ada');
  assert.equal(e.publishedAt, Date.parse('2022-04-05T13:20:00Z') / 1000);
  assert.equal(e.content, '<p>Body <img src="https://example.com/a.png" loading="lazy" /></p>');
  assert.equal(e.summary, 'Short <em>summary</em>');
  assert.deepEqual(e.enclosures, [{ url: 'https://example.com/ep1.mp3', type: 'audio/mpeg', length: 1234 }]);
  assert.equal(e.imageUrl, 'https://cdn.example.com/t.jpg');
  assert.deepEqual(e.categories, ['News', 'Tech']);
});

test('Atom 1.0: xml:base, text vs html titles, published/updated, feed-level author fallback', () => {
  const feed = parseFeed(
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://site.example/base/">
  <title type="text">A &lt;tag&gt; title</title><link href="/" rel="alternate"/><author><name>Feed Author</name></author>
  <entry><id>urn:1</id><title type="html">&lt;i&gt;Hi&lt;/i&gt; there</title><link href="e/1"/>
    <updated>2017-11-08T18:15:58-05:00</updated><published>2017-11-07T00:00:00Z</published>
    <content type="html">&lt;a href="rel.html"&gt;x&lt;/a&gt;</content><summary>plain &amp; text</summary></entry>
  <entry><id>urn:2</id><title>Two</title><author><name>Bob</name></author><content type="text">a &lt;b&gt; c</content></entry>
</feed>`,
    { url: URL_ },
  );
  assert.equal(feed.format, 'atom');
  assert.equal(feed.title, 'A <tag> title');
  assert.equal(feed.siteUrl, 'https://site.example/');
  const [a, b] = feed.entries;
  assert.equal(a!.title, 'Hi there');
  assert.equal(a!.url, 'https://site.example/base/e/1');
  assert.equal(a!.author, 'Feed Author');
  assert.equal(a!.publishedAt, Date.parse('2017-11-07T00:00:00Z') / 1000);
  assert.equal(a!.updatedAt, Date.parse('2017-11-08T23:15:58Z') / 1000);
  assert.match(a!.content!, /href="https:\/\/site\.example\/base\/rel\.html"/);
  assert.equal(a!.summary, 'plain &amp; text');
  assert.equal(b!.author, 'Bob');
  assert.equal(b!.content, 'a &lt;b&gt; c');
  assert.equal(b!.publishedAt, null);
});

test('JSON Feed 1.1 with attachments, tags, image', () => {
  const feed = parseFeed(
    JSON.stringify({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'J',
      home_page_url: 'https://j.example/',
      authors: [{ name: 'Jay' }],
      items: [
        {
          id: 42,
          url: '/p/42',
          title: 'Hello <world>',
          content_html: '<p>x</p>',
          date_published: '2021-01-02T03:04:05Z',
          tags: ['a'],
          image: '/i.png',
          attachments: [{ url: '/a.mp3', mime_type: 'audio/mpeg', size_in_bytes: 10 }],
        },
      ],
    }),
    { url: 'https://j.example/feed.json' },
  );
  assert.equal(feed.format, 'json');
  const [e] = feed.entries;
  assert.equal(e!.guid, '42');
  assert.equal(e!.url, 'https://j.example/p/42');
  assert.equal(e!.title, 'Hello <world>');
  assert.equal(e!.author, 'Jay');
  assert.equal(e!.imageUrl, 'https://j.example/i.png');
  assert.deepEqual(e!.enclosures, [{ url: 'https://j.example/a.mp3', type: 'audio/mpeg', length: 10 }]);
  assert.deepEqual(e!.categories, ['a']);
});

test('RSS 1.0 (RDF) items', () => {
  const feed = parseFeed(
    `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="http://r.example/"><title>R</title><link>http://r.example/</link><description>d</description></channel>
  <item rdf:about="http://r.example/1"><title>One</title><link>http://r.example/1</link><dc:date>2004-01-02T03:04:05Z</dc:date><dc:creator>Cee</dc:creator></item>
</rdf:RDF>`,
    { url: 'http://r.example/rss' },
  );
  assert.equal(feed.format, 'rdf');
  assert.equal(feed.entries[0]!.title, 'One');
  assert.equal(feed.entries[0]!.author, 'Cee');
  assert.equal(feed.entries[0]!.publishedAt, Date.parse('2004-01-02T03:04:05Z') / 1000);
});

test('guid falls back to the link, then to a content hash; duplicate guids keep the first entry', () => {
  const feed = parseFeed(
    `<rss><channel><title>t</title>
  <item><title>A</title><link>http://x.example/a</link></item>
  <item><title>No link</title><description>body</description></item>
  <item><guid>dup</guid><title>first</title></item><item><guid>dup</guid><title>second</title></item>
</channel></rss>`,
    { url: 'http://x.example/feed' },
  );
  assert.equal(feed.entries.length, 3);
  assert.equal(feed.entries[0]!.guid, 'http://x.example/a');
  assert.match(feed.entries[1]!.guid, /^sha256:[0-9a-f]{64}$/);
  assert.equal(feed.entries[2]!.title, 'first');
  const again = parseFeed(
    `<rss><channel><item><title>No link</title><description>body</description></item></channel></rss>`,
    { url: 'http://x.example/feed' },
  );
  assert.equal(again.entries[0]!.guid, feed.entries[1]!.guid, 'the content hash is stable');
});

test('malformed but recoverable feeds still yield their items and are flagged recovered', () => {
  const feed = parseFeed(
    `<rss version="2.0"><channel><title>Broken & co</title>
  <item><title>One <b>bold</title><link>http://b.example/1?a=1&b=2</link></item>
  <item><title>Two</title><description>unclosed <p>para</description>
</channel>`,
    { url: 'http://b.example/' },
  );
  assert.equal(feed.recovered, true);
  assert.equal(feed.title, 'Broken & co');
  assert.deepEqual(
    feed.entries.map((e) => e.title),
    ['One bold', 'Two'],
  );
  assert.equal(feed.entries[0]!.url, 'http://b.example/1?a=1&b=2');
});

test('HTML named entities decode; entity declarations are refused', () => {
  const ok = parseFeed('<rss><channel><title>caf&eacute;&nbsp;&hellip;</title></channel></rss>', { url: URL_ });
  assert.equal(ok.title, 'café\u00a0…');
  const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><rss><channel><title>&lol2;</title></channel></rss>`;
  assert.throws(
    () => parseFeed(laughs, { url: URL_ }),
    (e: unknown) => e instanceof FeedParseError && /entity declarations are refused/.test(e.message),
  );
  const xxe = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss><channel><title>&xxe;</title></channel></rss>`;
  assert.throws(() => parseFeed(xxe, { url: URL_ }), FeedParseError);
  // A plain DOCTYPE reference (RSS 0.91) is harmless and accepted.
  const rss091 = `<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss version="0.91"><channel><title>old</title></channel></rss>`;
  assert.equal(parseFeed(rss091, { url: URL_ }).title, 'old');
});

test('clean errors for things that are not feeds', () => {
  const cases: Array<[string | Buffer, RegExp]> = [
    ['', /empty document/],
    ['   \n ', /empty document/],
    ['<!DOCTYPE html><html><head><title>x</title></head><body></body></html>', /looks like an HTML page/],
    ['<note><to>you</to></note>', /no RSS, Atom, RDF or JSON Feed/],
    ['{"not": "a feed"}', /not a feed/],
    ['{broken json', /invalid JSON/],
    ['plain text', /neither XML nor JSON/],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => parseFeed(input, { url: URL_ }),
      (e: unknown) => e instanceof FeedParseError && message.test(e.message),
      String(input),
    );
  }
});

test('an empty but valid feed parses with no entries', () => {
  const feed = parseFeed('<rss version="2.0"><channel></channel></rss>', { url: URL_ });
  assert.equal(feed.entries.length, 0);
  assert.equal(feed.format, 'rss');
});

test('bytes in a legacy charset named by Content-Type end up as Unicode titles', () => {
  const bytes = Buffer.from([
    ...Buffer.from('<rss><channel><title>'),
    0xcd,
    0xee,
    0xe2,
    0xee,
    0xf1,
    0xf2,
    0xe8,
    ...Buffer.from('</title></channel></rss>'),
  ]);
  assert.equal(
    parseFeed(bytes, { url: URL_, contentType: 'application/rss+xml; charset=windows-1251' }).title,
    'Новости',
  );
});

test('entry dates far in the future are clamped to the crawl time', () => {
  const xml = `<rss><channel><item><guid>a</guid><pubDate>Fri, 01 Jan 2100 00:00:00 GMT</pubDate></item><item><guid>b</guid><pubDate>Tue, 05 Apr 2022 09:20:00 GMT</pubDate></item></channel></rss>`;
  const crawlTime = Date.parse('2022-04-06T00:00:00Z') / 1000;
  const feed = parseFeed(xml, { url: URL_, crawlTime });
  assert.equal(feed.entries[0]!.publishedAt, crawlTime);
  assert.equal(feed.entries[1]!.publishedAt, Date.parse('2022-04-05T09:20:00Z') / 1000);
  assert.equal(
    parseFeed(xml, { url: URL_ }).entries[0]!.publishedAt,
    Date.parse('2100-01-01T00:00:00Z') / 1000,
    'no crawl time: dates are kept',
  );
});

test('hostile structure is handled in bounded time: deep nesting, unclosed legacy content, huge dates', () => {
  const started = performance.now();
  const deep =
    '<rss><channel><item><title>x</title><description>' +
    '<a>'.repeat(50_000) +
    '</description></item></channel></rss>';
  assert.throws(
    () => parseFeed(deep, { url: URL_ }),
    (e: unknown) => e instanceof FeedParseError && /nested more than/.test(e.message),
  );
  const deepEscaped = parseFeed(
    '<rss><channel><item><title>x</title><description>' +
      '&lt;div&gt;'.repeat(50_000) +
      'text</description></item></channel></rss>',
    { url: URL_ },
  );
  assert.equal(deepEscaped.entries[0]!.summary, 'text', 'too-deep HTML falls back to its text');
  const bodies = parseFeed(
    '<rss><channel><item><title>t</title>' + '<body>x'.repeat(5_000) + '</item></channel></rss>',
    { url: URL_ },
  );
  assert.equal(bodies.recovered, true);
  const hugeDate = parseFeed(
    '<rss><channel><item><guid>g</guid><pubDate>' + '1 '.repeat(100_000) + '</pubDate></item></channel></rss>',
    { url: URL_ },
  );
  assert.equal(hugeDate.entries[0]!.publishedAt, null);
  assert.ok(performance.now() - started < 20_000, 'bounded time');
});

test('links, images, icons and enclosures are http(s) only', () => {
  const feed = parseFeed(
    `<rss><channel><title>t</title><link>javascript:alert(1)</link><image><url>data:image/png;base64,AAAA</url></image>
     <item><title>x</title><link>javascript:alert(document.cookie)</link><guid>g</guid>
     <enclosure url="file:///etc/passwd" type="text/plain" length="1"/><enclosure url="/ok.mp3" type="audio/mpeg" length="2"/>
     <description>&lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt; &lt;a href="mailto:a@b.example"&gt;mail&lt;/a&gt;</description></item>
     <item><title>tag link</title><link>tag:example.com,2024:1</link></item></channel></rss>`,
    { url: URL_ },
  );
  assert.equal(feed.siteUrl, null);
  assert.equal(feed.iconUrl, null);
  const [a, b] = feed.entries;
  assert.equal(a!.url, null);
  assert.deepEqual(
    a!.enclosures.map((e) => e.url),
    ['https://example.com/ok.mp3'],
  );
  assert.doesNotMatch(a!.summary!, /javascript/);
  assert.match(a!.summary!, /href="mailto:a@b\.example"/);
  assert.equal(b!.url, null);
  assert.match(b!.guid, /^sha256:/, 'no usable link: the guid is a content hash');
});

test('junk before the feed (PHP notices, stray text) is skipped and the feed flagged recovered', () => {
  const php = parseFeed(
    '<br />\n<b>Warning</b>: Cannot modify header information in <b>/wp-includes/feed.php</b><br />\n<?xml version="1.0"?><rss version="2.0"><channel><title>WP</title><item><title>Post</title><guid>p1</guid></item></channel></rss>',
    { url: URL_ },
  );
  assert.equal(php.title, 'WP');
  assert.equal(php.entries[0]!.title, 'Post');
  assert.equal(php.recovered, true);
  const text = parseFeed('Deprecated: something\n<rss version="2.0"><channel><title>T</title></channel></rss>', {
    url: URL_,
  });
  assert.equal(text.title, 'T');
  assert.equal(text.recovered, true);
  const tutorial =
    '<!DOCTYPE html><html><body><pre>&lt;?xml version="1.0"?&gt;</pre><?xml version="1.0"?><rss><channel><title>sample</title></channel></rss></body></html>';
  assert.throws(() => parseFeed(tutorial, { url: URL_ }), /looks like an HTML page/);
});

test('<media:description> is the summary of an entry that has no other text (a YouTube channel feed)', () => {
  const feed = parseFeed(
    `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
<title>Channel</title>
<entry><id>yt:video:1</id><title>Episode 49</title><link rel="alternate" href="https://www.youtube.com/watch?v=1"/>
<published>2023-02-20T20:00:01+00:00</published>
<media:group><media:title>Episode 49</media:title><media:description>Bells Hells travel the skies &lt;not a tag&gt;.</media:description></media:group></entry>
<entry><id>yt:video:2</id><title>Episode 48</title><summary>Own summary</summary>
<media:group><media:description>Media text</media:description></media:group></entry>
</feed>`,
    { url: URL_ },
  );
  // Plain text: its "<" stays text.
  assert.equal(feed.entries[0]!.summary, 'Bells Hells travel the skies &lt;not a tag&gt;.');
  assert.equal(feed.entries[0]!.content, null);
  // An entry's own summary comes first.
  assert.equal(feed.entries[1]!.summary, 'Own summary');
});
