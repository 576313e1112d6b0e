// The WebSub hub and topic a feed announces: <link rel="hub"> / <atom:link rel="hub"> and
// rel="self" in the feed's head, or HTTP Link headers (WebSub §4). Only the part before the first
// item/entry is read: that is where feeds declare them, and it keeps a large feed cheap.
import { Parser } from 'htmlparser2';

export interface HubLinks {
  hub: string;
  self: string | null;
}

function fromLinkHeader(header: string | null | undefined, rel: string): string | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /<([^>]+)>\s*;(.*)$/.exec(part.trim());
    if (m && /(?:^|;)\s*rel\s*=\s*"?([^";]*)"?/i.exec(m[2]!)?.[1]?.toLowerCase().split(/\s+/).includes(rel))
      return m[1]!;
  }
  return null;
}

export function findHub(body: Buffer, feedUrl: string, linkHeader?: string | null): HubLinks | null {
  const text = body.subarray(0, 64 * 1024).toString('utf8');
  const cut = text.search(/<(item|entry)[\s>]/i);
  const head = cut >= 0 ? text.slice(0, cut) : text;
  let hub = fromLinkHeader(linkHeader, 'hub');
  let self = fromLinkHeader(linkHeader, 'self');
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (!/(^|:)link$/.test(name) || !attrs.href) return;
        const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/);
        if (rels.includes('hub') && !hub) hub = attrs.href.trim();
        if (rels.includes('self') && !self) self = attrs.href.trim();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(head);
  if (!hub) return null;
  try {
    const h = new URL(hub, feedUrl);
    if (h.protocol !== 'http:' && h.protocol !== 'https:') return null;
    let s: string | null = null;
    if (self) {
      try {
        const u = new URL(self, feedUrl);
        if (u.protocol === 'http:' || u.protocol === 'https:') s = u.href;
      } catch {
        /* no usable self */
      }
    }
    return { hub: h.href, self: s };
  } catch {
    return null;
  }
}
