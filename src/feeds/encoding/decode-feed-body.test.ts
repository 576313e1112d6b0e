import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { canonicalCharset, charsetFromContentType, decodeFeedBody } from './decode-feed-body.ts';

const xml = (encoding: string, body: string) =>
  `<?xml version="1.0" encoding="${encoding}"?><rss><channel><title>${body}</title></channel></rss>`;

test('UTF-8 BOM wins over a wrong declaration and header', () => {
  const bytes = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(xml('iso-8859-1', 'Iñtërnâtiônàl'), 'utf8'),
  ]);
  const d = decodeFeedBody(bytes, 'text/xml; charset=windows-1251');
  assert.equal(d.source, 'bom');
  assert.match(d.text, /Iñtërnâtiônàl/);
  assert.ok(d.text.startsWith('<?xml'), 'the BOM itself is removed');
});

test('UTF-16 LE/BE with BOM and UTF-16 without BOM are detected', () => {
  const s = xml('utf-16', 'Привет');
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(s, 'utf-16le')]);
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(s, 'utf-16be')]);
  assert.match(decodeFeedBody(le).text, /Привет/);
  assert.match(decodeFeedBody(be).text, /Привет/);
  assert.match(decodeFeedBody(iconv.encode(s, 'utf-16le')).text, /Привет/);
});

test('legacy charsets from the XML declaration become correct Unicode', () => {
  for (const [charset, sample] of [
    ['windows-1251', 'Новости'],
    ['KOI8-R', 'Новости дня'],
    ['Shift_JIS', 'ニュース'],
    ['GB2312', '新闻'],
    ['ISO-8859-1', 'Café crème'],
    ['ISO-8859-2', 'Zażółć gęślą'],
  ] as const) {
    const encoded = canonicalCharset(charset)!;
    const d = decodeFeedBody(iconv.encode(xml(charset, sample), encoded));
    assert.equal(d.source, 'xml-declaration', charset);
    assert.match(d.text, new RegExp(sample), charset);
  }
});

test('the Content-Type charset overrides the XML declaration (RFC 7303)', () => {
  const bytes = iconv.encode(xml('iso-8859-1', 'Новости'), 'windows-1251');
  const d = decodeFeedBody(bytes, 'application/rss+xml; charset="windows-1251"');
  assert.equal(d.source, 'content-type');
  assert.equal(d.charset, 'windows-1251');
  assert.match(d.text, /Новости/);
});

test('undeclared bytes: UTF-8 if valid, else windows-1252 (smart quotes survive)', () => {
  assert.match(decodeFeedBody(Buffer.from('<rss><title>naïve</title></rss>', 'utf8')).text, /naïve/);
  const cp1252 = Buffer.from([
    ...Buffer.from('<rss><title>'),
    0x93,
    0x68,
    0x69,
    0x94,
    0x20,
    0xe9,
    ...Buffer.from('</title></rss>'),
  ]);
  const d = decodeFeedBody(cp1252);
  assert.equal(d.charset, 'windows-1252');
  assert.match(d.text, /\u201chi\u201d é/);
});

test('declared UTF-8 with invalid bytes falls back and reports the mismatch', () => {
  const bytes = Buffer.concat([
    Buffer.from('<?xml version="1.0" encoding="utf-8"?><rss><title>'),
    Buffer.from([0xe9, 0x74, 0xe9]),
    Buffer.from('</title></rss>'),
  ]);
  const d = decodeFeedBody(bytes);
  assert.equal(d.mismatch, true);
  assert.match(d.text, /été/);
});

test('unknown charset labels fall back instead of throwing', () => {
  const d = decodeFeedBody(Buffer.from(xml('x-bogus-charset', 'plain')), null);
  assert.equal(d.mismatch, true);
  assert.match(d.text, /plain/);
});

test('gzip bytes without Content-Encoding are inflated', () => {
  const d = decodeFeedBody(gzipSync(Buffer.from(xml('utf-8', 'zipped'))));
  assert.match(d.text, /zipped/);
});

test('charset parameter parsing', () => {
  assert.equal(charsetFromContentType('text/xml; charset=UTF-8'), 'UTF-8');
  assert.equal(charsetFromContentType("text/xml;charset='koi8-r'; q=1"), 'koi8-r');
  assert.equal(charsetFromContentType('application/atom+xml'), null);
  assert.equal(charsetFromContentType(null), null);
});

test('C1 controls (Windows-1252 smart quotes passed through Latin-1) are mapped back', () => {
  assert.match(
    decodeFeedBody(Buffer.from('<rss><title>don\u0092t \u0093quote\u0094 \u0080</title></rss>', 'utf8')).text,
    /don\u2019t \u201cquote\u201d €/,
  );
});

test('a plain Uint8Array (as after a worker transfer) decodes like a Buffer', () => {
  const bytes = new Uint8Array(Buffer.from(xml('utf-8', 'Grüße')));
  assert.match(decodeFeedBody(bytes).text, /Grüße/);
});

test("a header wrongly claiming UTF-8 yields to the document's declared legacy charset", () => {
  const bytes = iconv.encode(xml('windows-1251', 'Новости'), 'windows-1251');
  const d = decodeFeedBody(bytes, 'text/xml; charset=utf-8');
  assert.equal(d.charset, 'windows-1251');
  assert.equal(d.source, 'xml-declaration');
  assert.equal(d.mismatch, true);
  assert.match(d.text, /Новости/);
});

test('mostly-UTF-8 text with stray Windows-1252 bytes keeps its UTF-8 and fixes the strays', () => {
  const bytes = Buffer.concat([
    Buffer.from('<rss><title>Café – naïve ', 'utf8'),
    Buffer.from([0x93]),
    Buffer.from('quoted', 'utf8'),
    Buffer.from([0x94]),
    Buffer.from('</title></rss>', 'utf8'),
  ]);
  const d = decodeFeedBody(bytes);
  assert.equal(d.text, '<rss><title>Café – naïve \u201cquoted\u201d</title></rss>');
  assert.equal(d.mismatch, true);
});
