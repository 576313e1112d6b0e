// Feed links announced by an HTML page: <link rel="alternate" type="application/rss+xml" href>.
// htmlparser2 (a streaming, forgiving HTML tokenizer, already used by the sanitizer) rather than
// regular expressions: attributes in any order and quoting, comments and <base href> all handled.
import { Parser } from 'htmlparser2';

const FEED_TYPES = new Set([
  'application/rss+xml',
  'application/atom+xml',
  'application/feed+json',
  'application/json',
  'application/rdf+xml',
  'application/x.atom+xml',
  'application/x-atom+xml',
  'text/xml',
  'application/xml',
]);

export interface FeedLink {
  url: string;
  title: string | null;
  type: string;
}

/** Feed links in document order, made absolute (against <base href> when present), without duplicates. */
export function findFeedLinks(html: string, pageUrl: string): FeedLink[] {
  let base = pageUrl;
  const found: { href: string; title: string | null; type: string }[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href && found.length === 0) {
          try {
            base = new URL(attrs.href, pageUrl).href;
          } catch {
            /* keep the page URL */
          }
        }
        if (name !== 'link' || !attrs.href) return;
        const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/);
        const type = (attrs.type ?? '').toLowerCase().split(';')[0]!.trim();
        if (rels.includes('alternate') && FEED_TYPES.has(type))
          found.push({ href: attrs.href.trim(), title: attrs.title ?? null, type });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);

  const seen = new Set<string>();
  const out: FeedLink[] = [];
  for (const l of found) {
    let url: URL;
    try {
      url = new URL(l.href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({ url: url.href, title: l.title, type: l.type });
  }
  return out;
}

/** Where feeds usually live when a page announces none: next to the page, then at the site root. */
export const COMMON_FEED_PATHS = [
  'feed',
  'rss',
  'feed.xml',
  'atom.xml',
  'rss.xml',
  'index.xml',
  'feed.json',
  '?feed=rss2',
];

export function commonFeedUrls(pageUrl: string): string[] {
  const page = new URL(pageUrl);
  const dirs = new Set<string>();
  const dir = page.pathname.endsWith('/') ? page.pathname : page.pathname.replace(/[^/]*$/, '');
  dirs.add(dir);
  dirs.add('/');
  const out: string[] = [];
  for (const d of dirs) for (const p of COMMON_FEED_PATHS) out.push(new URL(d + p, page.origin).href);
  return [...new Set(out)];
}
