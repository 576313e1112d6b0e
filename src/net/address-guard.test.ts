import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHostLiteral, guardedLookup, refusalReason } from './address-guard.ts';

test('loopback, private, CGNAT, link-local, multicast, unspecified, ULA and mapped forms are refused; public passes', () => {
  const refused = [
    '127.0.0.1',
    '10.0.0.5',
    '172.16.3.1',
    '192.168.1.1',
    '100.64.1.1',
    '169.254.169.254',
    '224.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
  ];
  for (const a of refused) assert.notEqual(refusalReason(a), null, a);
  for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])
    assert.equal(refusalReason(a), null, a);
});

test('every IPv6 form that embeds an IPv4 address is judged by the embedded address', () => {
  const refused: [string, string][] = [
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::a9fe:a9fe', 'linkLocal'],
    ['::2', 'unspecified'], // IPv4-compatible
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:a9fe:a9fe', 'linkLocal'], // mapped, translated
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'linkLocal'],
    ['64:ff9b:1::808:808', 'NAT64 local-use (64:ff9b:1::/48)'], // NAT64
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'linkLocal'], // 6to4
    // Teredo: server 65.54.227.120, client stored bit-inverted (f7f7:f7f7 is 8.8.8.8, 80ff:fffe is 127.0.0.1);
    // refused even when both are public (no feed server lives behind a Teredo tunnel).
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo'],
    ['2001:0:a00:1:8000:63bf:3fff:fdd2', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ];
  for (const [a, reason] of refused) assert.equal(refusalReason(a), reason, a);
  for (const a of ['::808:808', '::8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:0:808:808'])
    assert.equal(refusalReason(a), null, a);
  assert.equal(refusalReason('::1'), 'loopback');
  assert.equal(refusalReason('::'), 'unspecified');
  // What URL parsing hands the fetcher for http://[::127.0.0.1]/ and friends.
  for (const literal of [
    '[::127.0.0.1]',
    '[::10.0.0.1]',
    '[::169.254.169.254]',
    '[64:ff9b::10.0.0.1]',
    '[2002:a00:1::]',
  ]) {
    assert.throws(
      () => checkHostLiteral(new URL(`http://${literal}/feed`).hostname, false),
      /refusing to fetch/,
      literal,
    );
  }
});

test('IP literals are checked before connecting; names are checked at lookup, on the address connected to', async () => {
  assert.throws(
    () => checkHostLiteral('[::1]', false),
    /refusing to fetch loopback address ::1 \(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow\)/,
  );
  assert.throws(() => checkHostLiteral('[::ffff:a00:5]', false), /private address 10\.0\.0\.5/);
  assert.doesNotThrow(() => checkHostLiteral('127.0.0.1', true));
  assert.doesNotThrow(() => checkHostLiteral('example.org', false));
  const lookup = (allow: boolean, all: boolean) =>
    new Promise<unknown>((resolve, reject) =>
      guardedLookup(allow)('localhost', { all }, (err, address) => (err ? reject(err) : resolve(address))),
    );
  await assert.rejects(lookup(false, false), /refusing to fetch loopback address (127\.0\.0\.1|::1) \(localhost\)/);
  await assert.rejects(lookup(false, true), /refusing to fetch loopback/);
  const ok = (await lookup(true, true)) as { address: string }[];
  assert.ok(ok.length >= 1 && ok.every((a) => refusalReason(a.address) === 'loopback'));
});
