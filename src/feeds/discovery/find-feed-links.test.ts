import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commonFeedUrls, findFeedLinks } from './find-feed-links.ts';

test('alternate feed links are found in any attribute order, resolved against the page or <base>', () => {
  const html = `<!doctype html><html><head><base href="https://cdn.example/base/">
    <link rel="stylesheet" href="/style.css"><!-- <link rel="alternate" type="application/rss+xml" href="/commented"> -->
    <LINK TYPE="application/rss+xml" REL="alternate" HREF="rss.xml" title="Posts">
    <link rel="alternate feed" type="application/atom+xml; charset=utf-8" href="https://example.org/atom.xml">
    <link rel="alternate" type="application/feed+json" href="/feed.json"><link rel="alternate" type="text/html" href="/fr/">
    <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)"><link rel="alternate" type="application/rss+xml" href="rss.xml">
    </head><body></body></html>`;
  assert.deepEqual(
    findFeedLinks(html, 'https://example.org/blog/').map((l) => l.url),
    ['https://cdn.example/base/rss.xml', 'https://example.org/atom.xml', 'https://cdn.example/feed.json'],
  );
  assert.deepEqual(
    findFeedLinks('<link rel=alternate type=application/rss+xml href=feed>', 'https://e.org/a/b').map((l) => l.url),
    ['https://e.org/a/feed'],
  );
});

test('common paths are tried beside the page, then at the site root', () => {
  const urls = commonFeedUrls('https://example.org/blog/post?id=1');
  assert.equal(urls[0], 'https://example.org/blog/feed');
  assert.ok(urls.includes('https://example.org/feed.xml'));
  assert.ok(urls.includes('https://example.org/?feed=rss2'));
  assert.equal(new Set(urls).size, urls.length);
});
