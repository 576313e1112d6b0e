import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeHtml } from './sanitize-html.ts';

const base = { baseUrl: 'https://blog.example.com/posts/1/' };

test('scripts, styles, event handlers and dangerous URLs are removed', () => {
  const out = sanitizeHtml(
    '<p onclick="steal()">Hi<script>alert(1)</script><style>p{}</style></p>' +
      '<a href="javascript:alert(1)">x</a><a href="JaVaScRiPt&#58;alert(1)">y</a>' +
      '<img src="data:image/svg+xml;base64,PHN2Zz4=" onerror="alert(1)"><iframe src="https://evil.example/"></iframe>' +
      '<object data="x.swf"></object><form action="/x"><input name="q"></form>',
    base,
  );
  assert.doesNotMatch(out, /script|alert|onclick|onerror|javascript|data:|<style|evil|<object|<form|<input/i);
  assert.match(out, /<p>Hi<\/p>/);
});

test('links get target=_blank and rel=noopener noreferrer; relative URLs become absolute', () => {
  const out = sanitizeHtml(
    '<a href="../2/">next</a> <img src="/img/a.png" srcset="a-2x.png 2x, /b.png 800w" alt="A">',
    base,
  );
  assert.match(
    out,
    /<a href="https:\/\/blog\.example\.com\/posts\/2\/" target="_blank" rel="noopener noreferrer">next<\/a>/,
  );
  assert.match(out, /src="https:\/\/blog\.example\.com\/img\/a\.png"/);
  assert.match(
    out,
    /srcset="https:\/\/blog\.example\.com\/posts\/1\/a-2x\.png 2x, https:\/\/blog\.example\.com\/b\.png 800w"/,
  );
  assert.match(out, /loading="lazy"/);
});

test('lazy-loading placeholders are replaced by the real image', () => {
  const out = sanitizeHtml('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg">', base);
  assert.match(out, /src="https:\/\/blog\.example\.com\/real\.jpg"/);
});

test('YouTube and Vimeo embeds are kept, other iframes are dropped', () => {
  const out = sanitizeHtml(
    '<iframe src="https://www.youtube.com/embed/abc" allowfullscreen></iframe><iframe src="https://player.vimeo.com/video/1"></iframe><iframe src="https://ads.example/x"></iframe>',
    base,
  );
  assert.match(out, /youtube\.com\/embed\/abc/);
  assert.match(out, /player\.vimeo\.com/);
  assert.doesNotMatch(out, /ads\.example/);
});

test('article markup survives: figures, tables, lists, code, media with controls', () => {
  const html =
    '<figure><picture><source srcset="/a.webp" type="image/webp"><img src="/a.jpg" alt=""></picture><figcaption>Cap</figcaption></figure>' +
    '<table><tr><th colspan="2">H</th></tr><tr><td>1</td><td>2</td></tr></table><ol start="3"><li>x</li></ol>' +
    '<pre><code class="language-ts evil">let x</code></pre><blockquote cite="/src">q</blockquote><video src="/v.mp4" controls poster="/p.jpg"></video>';
  const out = sanitizeHtml(html, base);
  for (const piece of [
    '<figure>',
    '<picture>',
    '<source srcset="https://blog.example.com/a.webp" type="image/webp"',
    '<figcaption>Cap</figcaption>',
    '<th colspan="2">',
    '<ol start="3">',
    '<code class="language-ts">',
    'cite="https://blog.example.com/src"',
    'poster="https://blog.example.com/p.jpg"',
    'controls',
  ]) {
    assert.ok(out.includes(piece), `${piece} in ${out}`);
  }
});

test('media always gets controls, autoplay is dropped', () => {
  const out = sanitizeHtml('<video src="/v.mp4" autoplay></video><audio src="/a.mp3" autoplay></audio>', base);
  assert.match(out, /<video src="https:\/\/blog\.example\.com\/v\.mp4" controls(="")?><\/video>/);
  assert.match(out, /<audio src="https:\/\/blog\.example\.com\/a\.mp3" controls(="")?><\/audio>/);
  assert.doesNotMatch(out, /autoplay/);
});

test('unbalanced markup is closed; text entities stay intact', () => {
  assert.equal(sanitizeHtml('<p>AT&amp;T &lt;b&gt; <b>bold', base), '<p>AT&amp;T &lt;b&gt; <b>bold</b></p>');
});

test('tracking pixels are removed, real images stay', () => {
  const out = sanitizeHtml(
    '<p>x<img src="http://feeds.feedburner.com/~r/blog/~4/abc" height="1" width="1" alt=""><img src="https://t.example/p.gif" width="1" height="1"><img src="/photo.jpg" width="600" height="400"></p>',
    base,
  );
  assert.doesNotMatch(out, /feedburner|t\.example/);
  assert.match(out, /photo\.jpg/);
});

test('batch sanitizing gives exactly the per-fragment results, even for fragments that try to leak', async () => {
  const { sanitizeHtmlBatch } = await import('./sanitize-html.ts');
  const fragments = [
    '<p>plain <b>bold</b></p>',
    '<div><p>unclosed div and <i>italic',
    '</div></p></i> stray closers first',
    '<a href="/x" title="unterminated>still the attribute',
    'after a broken attribute <img src="/a.png">',
    '<table><tr><td>cell',
    'text with < and & and </ incomplete',
    '<b>bold <',
    '<script>alert(1)</script> after script',
    '<!-- unclosed comment',
    'last <em>one</em>',
  ];
  const batched = sanitizeHtmlBatch(fragments, base);
  assert.equal(batched.length, fragments.length);
  fragments.forEach((f, i) => assert.equal(batched[i], sanitizeHtml(f, base), `fragment ${i}: ${f}`));
});

test('remembered results are per base URL', async () => {
  const { sanitizeHtmlBatch } = await import('./sanitize-html.ts');
  const fragments = ['<a href="x">1</a>', '<img src="y.png">'];
  const a = sanitizeHtmlBatch(fragments, { baseUrl: 'https://a.example/' });
  const b = sanitizeHtmlBatch(fragments, { baseUrl: 'https://b.example/' });
  assert.deepEqual(sanitizeHtmlBatch(fragments, { baseUrl: 'https://a.example/' }), a);
  assert.match(a[0]!, /https:\/\/a\.example\/x/);
  assert.match(b[0]!, /https:\/\/b\.example\/x/);
  assert.match(b[1]!, /https:\/\/b\.example\/y\.png/);
});

test('a malformed srcset is dropped, the src stays', () => {
  const out = sanitizeHtml(
    '<img src="/a.png" srcset="/a 1.png 100w, /b.png 2x"><img src="/c.png" srcset="javascript:alert(1) 1x">',
    base,
  );
  assert.doesNotMatch(out, /srcset|javascript/);
  assert.match(out, /src="https:\/\/blog\.example\.com\/a\.png"/);
  assert.match(out, /src="https:\/\/blog\.example\.com\/c\.png"/);
});
