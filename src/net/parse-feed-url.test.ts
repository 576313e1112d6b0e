import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeedUrl } from './http-client.ts';

test('feed URLs: http(s) only, fragment dropped, credentials refused with a reason', () => {
  assert.equal(parseFeedUrl('https://example.org/feed#top').href, 'https://example.org/feed');
  assert.throws(() => parseFeedUrl('ftp://example.org/feed'), /only http and https/);
  for (const u of [
    'https://alice:s3cret@example.org/feed',
    'https://alice@example.org/feed',
    'http://:pw@example.org/',
  ]) {
    assert.throws(() => parseFeedUrl(u), /refusing a URL with a user name or password/, u);
  }
});
