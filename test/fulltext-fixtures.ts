// Teaser feeds with full article pages, served from a local HTTP server: each item's link is a
// page whose article is much longer than the feed's one-sentence teaser. Shared by the full-text
// test and bench/fulltext.bench.ts.
import type http from 'node:http';

const WORDS = 'orbit lunar module telemetry booster payload thermal shield docking crew capsule ascent'.split(' ');

/** A deterministic paragraph of n words about topic. */
export function paragraph(topic: string, seed: number, n = 60): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(i % 11 === 0 ? topic : WORDS[(seed * 7 + i * 3) % WORDS.length]!);
  return out.join(' ') + '.';
}

/** An article page: navigation, ads and footer around the article, as real sites have. */
export function articlePage(title: string, body: string[], extraHead = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${extraHead}</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav>
<div class="ad">Buy our newsletter subscription now!</div>
<article><h1>${title}</h1>${body.map((p) => `<p>${p}</p>`).join('\n')}<p><a href="/related">Related</a> <img src="/img/figure.png" alt="figure"></p></article>
<footer>© Example Media. All rights reserved. <a href="/privacy">Privacy</a></footer></body></html>`;
}

export interface TeaserItem {
  guid: string;
  title: string;
  link: string;
  teaser: string;
}

export function teaserRss(title: string, items: TeaserItem[]): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return (
    `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>${esc(title)}</title><link>https://example.org/</link>` +
    items
      .map(
        (i) =>
          `<item><guid>${esc(i.guid)}</guid><title>${esc(i.title)}</title><link>${esc(i.link)}</link><description>${esc(i.teaser)}</description>` +
          '<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>',
      )
      .join('') +
    '</channel></rss>'
  );
}

export function sendHtml(res: http.ServerResponse, html: string, type = 'text/html; charset=utf-8'): void {
  res.setHeader('content-type', type);
  res.end(html);
}
