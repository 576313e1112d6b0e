import { test } from 'node:test';
import assert from 'node:assert/strict';
import { htmlToText } from './html-to-text.ts';

test('tags are stripped, entities decoded once, blocks become line breaks', () => {
  assert.equal(
    htmlToText('<p>One &amp; <b>two</b></p><p>Three&nbsp;four</p><script>x()</script>'),
    'One & two\n\nThree\u00a0four',
  );
  assert.equal(htmlToText('&amp;lt;b&amp;gt;'), '&lt;b&gt;');
});

test('singleLine collapses all whitespace', () => {
  assert.equal(htmlToText('<h1>Title</h1>\n\n<p>body   text</p>', { singleLine: true }), 'Title body text');
});

test('plain text passes through', () => {
  assert.equal(htmlToText('  just text  '), 'just text');
  assert.equal(htmlToText(''), '');
});
