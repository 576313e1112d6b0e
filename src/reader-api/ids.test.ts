import { test } from 'node:test';
import assert from 'node:assert/strict';
import { longItemId, parseItemId, parseStreamId, parseTag, shortItemId } from './ids.ts';
import { ReaderError } from './errors.ts';
import { LibraryError } from '../library/errors.ts';
import { lenientDecode, paramsFromRequest, FormBody } from '../http/params.ts';
import { decodeContinuation, encodeContinuation, parseStreamRequest } from './stream-request.ts';
import { parseMarkTimestamp } from './item-state-service.ts';

test('item ids: long form out, decimal short form out, and the four input forms in', () => {
  assert.equal(longItemId(0xae763aaab), 'tag:google.com,2005:reader/item/0000000ae763aaab');
  assert.equal(shortItemId(47047259872), '47047259872');
  const id = 47047259872;
  for (const form of [
    'tag:google.com,2005:reader/item/0000000af43c36e0',
    'tag:google.com,2005:reader/item/af43c36e0',
    '0000000af43c36e0',
    '47047259872',
    ' 47047259872 ',
    'TAG:google.com,2005:reader/item/0000000AF43C36E0',
  ]) {
    assert.equal(parseItemId(form), id, form);
  }
  // 16 digits without a letter are hex (decimal ids stay below 16 digits).
  assert.equal(parseItemId('0000000000000010'), 16);
  // Negative decimals are the signed view of a 64-bit id: well-formed, never ours.
  assert.equal(parseItemId('-1'), -1);
  assert.equal(parseItemId('tag:google.com,2005:reader/item/ffffffffffffffff'), -1);
  for (const bad of [
    '',
    'abc',
    'tag:google.com,2005:reader/item/',
    'tag:google.com,2005:reader/item/12345678901234567',
    '1.5',
    '0x10',
    '99999999999999999999999',
  ]) {
    assert.throws(
      () => parseItemId(bad),
      (e: unknown) => e instanceof ReaderError && e.status === 400 && /item id/.test(e.message),
      bad,
    );
  }
});

test('item ids read without a BigInt (decimal, zero-padded long form) agree with the exact reading', () => {
  // The reading every form went through before the fast paths, kept as the reference.
  const exact = (v: bigint) => (v > BigInt(Number.MAX_SAFE_INTEGER) || v <= 0n ? -1 : Number(v));
  const values = [1n, 9n, 10n, 255n, 47047259872n, 0xffffffffn, 0x100000000n, 0x1fffff00000000n];
  values.push(
    BigInt(Number.MAX_SAFE_INTEGER),
    BigInt(Number.MAX_SAFE_INTEGER) + 1n,
    0x200000ffffffffn,
    0n,
    10n ** 15n - 1n,
  );
  for (let k = 0; k < 200; k++) values.push(BigInt(Math.floor(Math.random() * 2 ** (1 + (k % 53)))));
  for (const v of values) {
    const hex = v.toString(16).padStart(16, '0');
    assert.equal(parseItemId(`tag:google.com,2005:reader/item/${hex}`), exact(v), hex);
    assert.equal(parseItemId(`tag:google.com,2005:reader/item/${hex.toUpperCase()}`), exact(v), hex);
    if (v.toString().length <= 15) assert.equal(parseItemId(v.toString()), exact(v), v.toString());
    if (v.toString().length <= 14) assert.equal(parseItemId(`0${v}`), exact(v), `0${v}`);
  }
  // A 16-character tail that only starts like hex is still refused.
  assert.throws(() => parseItemId('tag:google.com,2005:reader/item/0000000af43c36eg'), ReaderError);
  assert.throws(() => parseItemId('tag:google.com,2005:reader/item/+000000af43c36e0'), ReaderError);
});

test('stream ids: states in both spellings, labels case-sensitive, feed/ repeats stripped, own user id accepted', () => {
  assert.deepEqual(parseStreamId('user/-/state/com.google/read', 7), { kind: 'state', state: 'read' });
  assert.deepEqual(parseStreamId('user/-/state/com.vendor/starred', 7), { kind: 'state', state: 'starred' });
  assert.deepEqual(parseStreamId('user/7/state/com.google/reading-list', 7), { kind: 'state', state: 'reading-list' });
  assert.deepEqual(parseStreamId('user/-/label/Tech News', 7), { kind: 'label', name: 'Tech News' });
  assert.notDeepEqual(parseStreamId('user/-/label/tech', 7), parseStreamId('user/-/label/Tech', 7));
  assert.deepEqual(parseStreamId('feed/feed/https://x.org/rss?a=1', 7), { kind: 'feed', url: 'https://x.org/rss?a=1' });
  assert.deepEqual(parseTag('user/-/state/com.google/kept-unread', 7), { kind: 'ignored', name: 'kept-unread' });
  for (const bad of ['user/8/label/x', 'user/-/state/com.google/bogus', 'user/-/label/', 'feed/', 'pop/x', 'starred']) {
    assert.throws(
      () => parseStreamId(bad, 7),
      (e: unknown) => e instanceof ReaderError && e.status === 400,
      bad,
    );
  }
});

test('parameters: query and body merged in order, repeats kept, lenient decoding', () => {
  const p = paramsFromRequest(
    '/x?i=1&s=feed/http://a.org/rss&T=abc%0A',
    new FormBody('i=2&i=3&a=user%2F-%2Fstate%2Fcom.google%2Fread&t=50%&x=a+b'),
  );
  assert.deepEqual(p.all('i'), ['1', '2', '3']);
  assert.equal(p.get('s'), 'feed/http://a.org/rss');
  assert.equal(p.get('T'), 'abc\n');
  assert.equal(p.get('a'), 'user/-/state/com.google/read');
  assert.equal(p.get('t'), '50%');
  assert.equal(p.get('x'), 'a b');
  assert.equal(lenientDecode('%E2%82%AC and 100%'), '€ and 100%');
  // A form posted without its content type arrives as text.
  assert.deepEqual(paramsFromRequest('/x', 'i=5&i=6').all('i'), ['5', '6']);
  assert.equal(paramsFromRequest('/x', '<?xml version="1.0"?><opml/>').has('<?xml version'), false);
});

test('continuations are opaque, URL-safe and round-trip; n defaults, clamps and refuses nonsense', () => {
  const c = encodeContinuation({ crawledUs: 1761990925646284, itemId: 47047259872 });
  assert.match(c, /^[0-9a-z-]+$/);
  assert.deepEqual(decodeContinuation(c), { crawledUs: 1761990925646284, itemId: 47047259872 });
  assert.throws(() => decodeContinuation('hXN46UBaS1ZT'), LibraryError);
  const req = (q: string, max = 1000) => parseStreamRequest(paramsFromRequest('/x?' + q, undefined), 1, max);
  assert.equal(req('').limit, 20);
  assert.equal(req('n=5000').limit, 1000);
  assert.equal(req('n=50000', 10000).limit, 10000);
  assert.equal(req('r=o').newestFirst, false);
  assert.equal(req('ot=1700000000.5').minCrawledUs, 1700000000500000);
  assert.equal(req('nt=1700000000').maxCrawledUs, 1699999999999999);
  assert.throws(() => req('n=-1'), ReaderError);
  assert.throws(() => req('nt=tomorrow'), ReaderError);
});

test('mark-all-as-read ts: seconds, fractional seconds, or microseconds from 16 digits on', () => {
  assert.equal(parseMarkTimestamp('1700000000'), 1700000000000000);
  assert.equal(parseMarkTimestamp('1700000000.25'), 1700000000250000);
  assert.equal(parseMarkTimestamp('1700000000123456'), 1700000000123456);
  assert.equal(parseMarkTimestamp(undefined, 42), 42);
  assert.equal(parseMarkTimestamp('  ', 42), 42);
  assert.throws(() => parseMarkTimestamp('soon'), ReaderError);
});
