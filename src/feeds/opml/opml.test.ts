import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpml, parseOpmlSubscriptions } from './opml.ts';

test('nested outlines become folders; title, text and escaping survive a round trip', () => {
  const xml = `<?xml version="1.0"?><opml version="1.0"><head><title>x</title></head><body>
    <outline text="Tech &amp; Science"><outline text="Inner"><outline type="rss" text="A &lt;1&gt;" xmlUrl="https://a.example/feed?x=1&amp;y=2"/></outline>
      <outline title="B title" text="B text" xmlUrl=" https://b.example/rss " htmlUrl="https://b.example/"/></outline>
    <outline text="Top" xmlUrl="https://c.example/atom"/><outline text="Empty folder"/></body></opml>`;
  const subs = parseOpmlSubscriptions(xml);
  assert.deepEqual(subs, [
    { xmlUrl: 'https://a.example/feed?x=1&y=2', title: 'A <1>', htmlUrl: null, folders: ['Tech & Science', 'Inner'] },
    { xmlUrl: 'https://b.example/rss', title: 'B title', htmlUrl: 'https://b.example/', folders: ['Tech & Science'] },
    { xmlUrl: 'https://c.example/atom', title: 'Top', htmlUrl: null, folders: [] },
  ]);
  const out = buildOpml(
    't',
    subs.map((s) => ({ title: s.title!, xmlUrl: s.xmlUrl, htmlUrl: s.htmlUrl, folders: s.folders.slice(-1) })),
  );
  assert.match(out, /xmlUrl="https:\/\/a\.example\/feed\?x=1&amp;y=2"/);
  assert.deepEqual(
    parseOpmlSubscriptions(out).map((s) => [s.title, s.xmlUrl, s.folders]),
    [
      ['A <1>', 'https://a.example/feed?x=1&y=2', ['Inner']],
      ['B title', 'https://b.example/rss', ['Tech & Science']],
      ['Top', 'https://c.example/atom', []],
    ],
  );
});

test('broken, empty and entity-declaring files are refused with a clear error', () => {
  assert.throws(() => parseOpmlSubscriptions(''), /OPML file is empty/);
  assert.throws(() => parseOpmlSubscriptions('<html><body>x</body></html>'), /not a valid OPML file/);
  assert.throws(() => parseOpmlSubscriptions('<opml><body><outline text="x"'), /not a valid OPML file/);
  assert.throws(
    () => parseOpmlSubscriptions('<!DOCTYPE opml [<!ENTITY lol "lol">]><opml><body/></opml>'),
    /declares XML entities/,
  );
});
