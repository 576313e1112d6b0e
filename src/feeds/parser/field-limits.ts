// Size caps of stored item fields. A feed is untrusted input: one entry with a 5 MiB title or a
// 2 MiB guid was stored whole and served in every stream page that held it (13.6 MB pages). Caps
// are generous for real articles; an oversized field is shortened with a visible marker, and the
// rest of the feed is kept. Sizes count UTF-16 code units (JavaScript string length), never
// splitting a surrogate pair.
import { createHash } from 'node:crypto';
import type { ParsedEntry, ParsedFeed } from '../../model/parsed-feed.ts';
import { sanitizeHtmlBatch } from '../sanitizer/sanitize-html.ts';

export const FIELD_LIMITS = {
  /** Entry and feed titles (plain text). */
  title: 1_000,
  author: 200,
  /** Feed description (plain text). */
  description: 4_000,
  /** Longer guids are replaced by a hash of the whole guid, so they stay unique and stable. */
  guid: 512,
  /** Longer URLs (article, enclosure, image, site, icon) are dropped: a cut URL points nowhere. */
  url: 4_096,
  /** Content and summary HTML each. */
  html: 512 * 1024,
  category: 200,
  categories: 100,
  enclosures: 50,
} as const;

const TRUNCATION_MARKER = '…';
const HTML_TRUNCATION_NOTE = '<p><em>[… the rest of this article was cut: it was longer than 512 KB]</em></p>';

/** Caps every field of a normalised feed in place; returns it. */
export function capFeedFields(feed: ParsedFeed): ParsedFeed {
  feed.title = capText(feed.title, FIELD_LIMITS.title);
  if (feed.description !== null) feed.description = capText(feed.description, FIELD_LIMITS.description);
  feed.siteUrl = capUrl(feed.siteUrl);
  feed.iconUrl = capUrl(feed.iconUrl);
  const cut: { entry: ParsedEntry; field: 'content' | 'summary' }[] = [];
  for (const e of feed.entries) {
    e.title = capText(e.title, FIELD_LIMITS.title);
    if (e.author !== null) e.author = capText(e.author, FIELD_LIMITS.author);
    e.url = capUrl(e.url);
    e.imageUrl = capUrl(e.imageUrl);
    e.enclosures = e.enclosures.filter((x) => x.url.length <= FIELD_LIMITS.url).slice(0, FIELD_LIMITS.enclosures);
    for (const x of e.enclosures) if (x.type !== null) x.type = capText(x.type, FIELD_LIMITS.category);
    e.categories = e.categories.slice(0, FIELD_LIMITS.categories).map((c) => capText(c, FIELD_LIMITS.category));
    if (e.content !== null && e.content.length > FIELD_LIMITS.html) cut.push({ entry: e, field: 'content' });
    if (e.summary !== null && e.summary.length > FIELD_LIMITS.html) cut.push({ entry: e, field: 'summary' });
  }
  if (cut.length) {
    // Cut before a tag, then let the sanitizer close the elements left open (a dangling <a> would
    // swallow the note and whatever the client shows after the item); the closing tags it adds
    // fit in the room left (nesting depth is bounded by the sanitizer).
    const room = FIELD_LIMITS.html - HTML_TRUNCATION_NOTE.length - 16 * 1024;
    const balanced = sanitizeHtmlBatch(cut.map(({ entry, field }) => cutBeforeTag(entry[field]!, room)));
    cut.forEach(
      ({ entry, field }, i) =>
        (entry[field] = balanced[i]!.slice(0, FIELD_LIMITS.html - HTML_TRUNCATION_NOTE.length) + HTML_TRUNCATION_NOTE),
    );
  }
  return feed;
}

/** A guid within the cap: longer ones become a hash of the whole guid (unique, stable across fetches). */
export function capGuid(guid: string): string {
  return guid.length <= FIELD_LIMITS.guid ? guid : 'sha256:' + createHash('sha256').update(guid).digest('hex');
}

function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  return keepWholeChars(s, max - TRUNCATION_MARKER.length).trimEnd() + TRUNCATION_MARKER;
}

function capUrl(u: string | null): string | null {
  return u !== null && u.length > FIELD_LIMITS.url ? null : u;
}

function cutBeforeTag(html: string, max: number): string {
  const head = keepWholeChars(html, max);
  const lastOpen = head.lastIndexOf('<');
  return lastOpen > head.lastIndexOf('>') ? head.slice(0, lastOpen) : head;
}

function keepWholeChars(s: string, n: number): string {
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
