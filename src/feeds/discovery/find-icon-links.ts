// Icon links announced by a page's <head> (<link rel="icon">, apple-touch-icon), for favicons.ts.
// Kept apart from favicons.ts so a parse worker (src/feeds/parse-pool) can run it without loading
// the App's services: the page is remote content, parsed off the thread serving requests.
import { Parser } from 'htmlparser2';

/** Icon links of a page, best first: rel="icon"/"shortcut icon" (sized nearest 32 px first), then apple-touch-icon. */
export function findIconLinks(html: string, pageUrl: string): string[] {
  let base = pageUrl;
  const found: { href: string; rank: number }[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href) {
          try {
            base = new URL(attrs.href, pageUrl).href;
          } catch {
            /* keep */
          }
        }
        if (name !== 'link' || !attrs.href) return;
        const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/);
        const type = (attrs.type ?? '').toLowerCase();
        if (type.includes('svg') || /\.svg($|\?)/i.test(attrs.href)) return;
        const size = Number(/(\d+)x\d+/.exec(attrs.sizes ?? '')?.[1] ?? 32);
        if (rels.includes('icon')) found.push({ href: attrs.href.trim(), rank: Math.abs(size - 32) });
        else if (rels.includes('apple-touch-icon') || rels.includes('apple-touch-icon-precomposed'))
          found.push({ href: attrs.href.trim(), rank: 1000 + Math.abs(size - 180) });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // Icon links live in <head>: the first 256 KiB hold it on any sane page.
  parser.end(html.slice(0, 256 * 1024));
  const out: string[] = [];
  for (const l of found.sort((a, b) => a.rank - b.rank)) {
    try {
      const u = new URL(l.href, base);
      if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'data:') && !out.includes(u.href))
        out.push(u.href);
    } catch {
      /* unusable href */
    }
  }
  return out;
}
