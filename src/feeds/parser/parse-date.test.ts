import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeedDate } from './parse-date.ts';

const utc = (s: string) => Date.parse(s) / 1000;

test('RFC 822 / 1123 dates, with named zones and without seconds or weekday', () => {
  assert.equal(parseFeedDate('Tue, 05 Apr 2022 09:20:00 GMT'), utc('2022-04-05T09:20:00Z'));
  assert.equal(parseFeedDate('Tue, 05 Apr 2022 09:20 EDT'), utc('2022-04-05T13:20:00Z'));
  assert.equal(parseFeedDate('Wed, 17 Jan 2018 15:50:00 EST'), utc('2018-01-17T20:50:00Z'));
  assert.equal(parseFeedDate('05 Apr 2022 09:20:00 +0200'), utc('2022-04-05T07:20:00Z'));
  assert.equal(parseFeedDate('Sun, 6 Nov 94 08:49:37 GMT'), utc('1994-11-06T08:49:37Z'));
  assert.equal(parseFeedDate('Thu, 01 Jan 2004 19:48:21 PDT'), utc('2004-01-02T02:48:21Z'));
  assert.equal(parseFeedDate('Mon, 10 July 2023 10:00:00 -0500'), utc('2023-07-10T15:00:00Z'));
  assert.equal(parseFeedDate('Fri, 13 Sep 2019 12:00:00 Z'), utc('2019-09-13T12:00:00Z'));
});

test('RFC 3339 / ISO 8601 / W3CDTF dates', () => {
  assert.equal(parseFeedDate('2017-11-08T18:15:58-05:00'), utc('2017-11-08T23:15:58Z'));
  assert.equal(parseFeedDate('2003-12-31T10:14:55Z'), utc('2003-12-31T10:14:55Z'));
  assert.equal(parseFeedDate('2003-12-31T10:14:55.123+01:00'), utc('2003-12-31T09:14:55Z'));
  assert.equal(parseFeedDate('2003-12-31'), utc('2003-12-31T00:00:00Z'));
  assert.equal(parseFeedDate('2003-12'), utc('2003-12-01T00:00:00Z'));
  assert.equal(parseFeedDate('2003-12-31T10:14Z'), utc('2003-12-31T10:14:00Z'));
  assert.equal(parseFeedDate('2003-12-31 10:14:55 +0100'), utc('2003-12-31T09:14:55Z'));
  assert.equal(parseFeedDate('20031231T101455Z'), utc('2003-12-31T10:14:55Z'));
});

test('common broken formats', () => {
  assert.equal(parseFeedDate('  Tue,  05 Apr 2022   09:20:00   GMT '), utc('2022-04-05T09:20:00Z'));
  assert.equal(parseFeedDate('April 5, 2022'), utc('2022-04-05T00:00:00Z'));
  assert.equal(parseFeedDate('Apr 5, 2022 9:20 PM'), utc('2022-04-05T21:20:00Z'));
});

test('unparseable dates give null', () => {
  assert.equal(parseFeedDate('yesterday-ish'), null);
  assert.equal(parseFeedDate(''), null);
  assert.equal(parseFeedDate(null), null);
  assert.equal(parseFeedDate('2003-13-45'), null);
});

test('localised month and weekday names', () => {
  assert.equal(parseFeedDate('Di, 05 Mär 2022 09:20:00 +0100'), utc('2022-03-05T08:20:00Z'));
  assert.equal(parseFeedDate('mar., 05 avr. 2022 09:20:00 +0200'), utc('2022-04-05T07:20:00Z'));
  assert.equal(parseFeedDate('5 Dez 2021 10:00:00 GMT'), utc('2021-12-05T10:00:00Z'));
  assert.equal(parseFeedDate('05 août 2022 00:00:00 +0000'), utc('2022-08-05T00:00:00Z'));
});
