import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isVerbatimSafe } from './verbatim-safe.ts';
import { sanitizeHtml, sanitizeHtmlBatch } from './sanitize-html.ts';
import { SHARED, SKIP_NO_SHARED } from '../../../test/helpers.ts';

const base = { baseUrl: 'https://blog.example.com/posts/1/' };

// What sanitize-html itself returns (our options through the slow path): the fast path must agree.
// sanitizeHtml with a fragment the fast path refuses goes to the library, so compare through a
// fragment that forces the library: the same markup followed by a tag the fast path never accepts.
const MARK = '<br>';
function viaLibrary(markup: string): string {
  const out = sanitizeHtml(markup + MARK, base);
  assert.ok(out.endsWith('<br />'), out);
  return out.slice(0, -'<br />'.length).trim();
}

test('plain formatting markup passes through exactly as sanitize-html would write it', () => {
  for (const html of [
    '<p>One &amp; two &lt;three&gt;</p><p>Four "quoted" \'x\'</p>',
    '<ul><li>a</li><li><b>b</b> <em>c</em></li></ul>',
    '<blockquote><p>q</p></blockquote><pre><code>let x = 1;</code></pre>',
    '<h2>T</h2><p>x<sub>2</sub></p><p></p>',
    'text with <strong>ünïcödé</strong>',
  ]) {
    assert.ok(isVerbatimSafe(html), html);
    assert.equal(sanitizeHtml(html, base), viaLibrary(html));
  }
});

test('anything else goes to sanitize-html: attributes, other tags, entities to decode, bad nesting, stray brackets', () => {
  for (const html of [
    '<p class="x">a</p>',
    '<a href="/x">a</a>',
    '<script>alert(1)</script>',
    '<p>a<br>b</p>',
    '<P>a</P>',
    '<p >a</p>',
    '<p>&nbsp;</p>',
    '<p>&#8217;</p>',
    '<p>AT&T</p>',
    '<p>a > b</p>',
    '<p>a < b</p>',
    '<p><p>nested</p></p>',
    '<p><ul><li>x</li></ul></p>',
    '<b>unclosed',
    '</b>stray',
    '<b><i>crossed</b></i>',
    '<li>a<li>b</li></li>',
    '<h1><h2>x</h2></h1>',
    '<p>cr\r\nlf</p>',
    '<svg><p>x</p></svg>',
    '<p>a</p><!-- c -->',
    '<style>p{}</style>',
    '<iframe>x</iframe>',
    '<textarea>x</textarea>',
  ]) {
    assert.equal(isVerbatimSafe(html), false, html);
  }
  assert.doesNotMatch(sanitizeHtml('<p>ok</p><script>alert(1)</script>', base), /script/);
});

test('random formatting markup: whenever the fast path accepts, sanitize-html gives the same bytes', () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const tags = ['p', 'b', 'i', 'em', 'li', 'ul', 'ol', 'h1', 'h3', 'div', 'span', 'pre', 'code', 'blockquote', 'sup'];
  const texts = ['word', ' ', 'a &amp; b', '&lt;x&gt;', '"q"', "it's", 'é', '\n', '\t'];
  let accepted = 0;
  for (let k = 0; k < 3000; k++) {
    let html = '';
    const open: string[] = [];
    for (let n = 0; n < 12; n++) {
      const r = rand(3);
      if (r === 0) {
        const t = tags[rand(tags.length)]!;
        html += `<${t}>`;
        open.push(t);
      } else if (r === 1 && open.length) html += `</${open.pop()}>`;
      else html += texts[rand(texts.length)];
    }
    while (open.length) html += `</${open.pop()}>`;
    html = html.trim();
    if (!isVerbatimSafe(html)) continue;
    accepted++;
    assert.equal(viaLibrary(html), html, html);
  }
  assert.ok(accepted > 500, `only ${accepted} random fragments accepted`);
});

test('corpus fragments the fast path accepts are unchanged by sanitize-html', { skip: SKIP_NO_SHARED }, () => {
  const dir = join(SHARED, 'corpus/feeds/real-world');
  const opts = { ...base };
  let checked = 0;
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    // Raw fragments straight from the XML (escaped or CDATA), enough to exercise real text.
    for (const m of text.matchAll(
      /<(?:description|content:encoded|content|summary)[^>]*>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\//g,
    )) {
      const html = (
        m[1] ??
        (m[2] ?? '')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&')
      ).trim();
      if (!html.includes('<') || !isVerbatimSafe(html)) continue;
      checked++;
      assert.equal(viaLibrary(html), html, html);
    }
  }
  assert.ok(checked > 0);
  assert.deepEqual(sanitizeHtmlBatch(['<p>a</p>', '<p>b <a href="/x">x</a></p>'], opts), [
    sanitizeHtml('<p>a</p>', opts),
    sanitizeHtml('<p>b <a href="/x">x</a></p>', opts),
  ]);
});
