import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHostLiteral, guardedLookup, refusalReason } from './address-guard.ts';

test('loopback, private, CGNAT, link-local, multicast, unspecified, ULA and mapped forms are refused; public passes', () => {
  const refused = ['127.0.0.1', '10.0.0.5', '172.16.3.1', '192.168.1.1', '100.64.1.1', '169.254.169.254', '224.0.0.1', '0.0.0.0',
    '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.1.2.3', '64:ff9b::a00:1', '2002:a00:1::1'];
  for (const a of refused) assert.notEqual(refusalReason(a), null, a);
  for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) assert.equal(refusalReason(a), null, a);
});

test('IP literals are checked before connecting; names are checked at lookup, on the address connected to', async () => {
  assert.throws(() => checkHostLiteral('[::1]', false), /refusing to fetch loopback address ::1 \(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow\)/);
  assert.throws(() => checkHostLiteral('[::ffff:a00:5]', false), /private address 10\.0\.0\.5/);
  assert.doesNotThrow(() => checkHostLiteral('127.0.0.1', true));
  assert.doesNotThrow(() => checkHostLiteral('example.org', false));
  const lookup = (allow: boolean, all: boolean) => new Promise<unknown>((resolve, reject) =>
    guardedLookup(allow)('localhost', { all }, (err, address) => (err ? reject(err) : resolve(address))));
  await assert.rejects(lookup(false, false), /refusing to fetch loopback address (127\.0\.0\.1|::1) \(localhost\)/);
  await assert.rejects(lookup(false, true), /refusing to fetch loopback/);
  const ok = await lookup(true, true) as { address: string }[];
  assert.ok(ok.length >= 1 && ok.every((a) => refusalReason(a.address) === 'loopback'));
});
