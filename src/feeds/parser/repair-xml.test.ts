import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { SHARED, SKIP_NO_SHARED } from '../../../test/helpers.ts';
import { repairXml } from './repair-xml.ts';
import { promoteLegacyContent } from './promote-legacy-content.ts';
import { parseFeed } from './parse-feed.ts';

test('repairXml output is well-formed and keeps the text', () => {
  const broken = `<rss><channel><title>AT&T <b>bold</i></title><item><title>One</title><link>http://x/?a=1&b=2</link>
<description><![CDATA[<p>kept</p>]]></description></item><item><title bad=attr>Two\u0001</title><description><![CDATA[cut off`;
  const fixed = repairXml(broken);
  assert.equal(XMLValidator.validate(fixed), true, fixed);
  for (const piece of [
    'AT&amp;T',
    '<b>bold</b>',
    'a=1&amp;b=2',
    '<![CDATA[<p>kept</p>]]>',
    'bad="attr"',
    'Two</title>',
    '<![CDATA[cut off]]>',
  ]) {
    assert.ok(fixed.includes(piece), `${piece} in ${fixed}`);
  }
});

test('the corpus SAX-error feed is recovered with its items', { skip: SKIP_NO_SHARED }, () => {
  const feed = parseFeed(readFileSync(join(SHARED, 'corpus/feeds/edge-cases/saxerror.xml')), {
    url: 'http://example.com/feed',
  });
  assert.equal(feed.recovered, true);
  assert.ok(feed.entries.length >= 3);
  assert.equal(feed.entries[0]!.title, 'Good Item');
});

test('legacy RSS <body>/<xhtml:body>/<fullitem> become content:encoded', () => {
  const out = promoteLegacyContent(
    '<rss><channel><item><body xmlns="http://www.w3.org/1999/xhtml"><p>a ]]> b</p></body></item><item><fullitem>&lt;p>c&lt;/p></fullitem></item></channel></rss>',
  );
  assert.equal(
    out,
    '<rss><channel><item><content:encoded><![CDATA[<p>a ]]]]><![CDATA[> b</p>]]></content:encoded></item><item><content:encoded>&lt;p>c&lt;/p></content:encoded></item></channel></rss>',
  );
  assert.equal(
    promoteLegacyContent('<feed><entry><body>x</body></entry></feed>'),
    '<feed><entry><body>x</body></entry></feed>',
    'only RSS is rewritten',
  );
  const feed = parseFeed(
    '<rss version="2.0"><channel><item><title>t</title><xhtml:body xmlns:xhtml="http://www.w3.org/1999/xhtml"><p>Body <a href="/x">link</a></p></xhtml:body></item></channel></rss>',
    { url: 'http://e.example/feed' },
  );
  assert.match(feed.entries[0]!.content!, /<p>Body <a href="http:\/\/e\.example\/x"/);
});

test('Atom 0.3 mode="base64" text constructs are decoded', async () => {
  const { decodeBase64Content } = await import('./decode-base64-content.ts');
  const encoded = Buffer.from('Example <b>Atom</b> & more').toString('base64');
  assert.equal(
    decodeBase64Content(`<feed><entry><title type="text/html" mode="base64">\n${encoded}\n</title></entry></feed>`),
    '<feed><entry><title type="text/html">Example &lt;b&gt;Atom&lt;/b&gt; &amp; more</title></entry></feed>',
  );
  const feed = parseFeed(
    `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><id>x</id><content type="text/html" mode="base64">${encoded}</content></entry></feed>`,
    { url: 'http://e.example/' },
  );
  assert.equal(feed.entries[0]!.content, 'Example <b>Atom</b> &amp; more');
});
