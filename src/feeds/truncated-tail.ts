// A document cut off in transit (a dropped connection, a proxy's size limit) is recovered by the
// parser, but its last entry is then usually cut too: a partial title, a guid missing or cut short.
// Stored, that entry would never match the complete one of the next fetch and would show up twice.
// So when a recovered XML document does not end with its root's closing tag, its last entry (in
// document order) is left for the next fetch, which will have it whole.
import type { ParsedFeed } from '../model/parsed-feed.ts';

const CLOSING_ROOT = /<\/(?:[\w.-]+:)?(?:rss|feed|rdf)\s*>[\s\u0000]*$/i;

export function isTruncated(parsed: ParsedFeed, body: Buffer): boolean {
  if (!parsed.recovered || parsed.format === 'json') return false;
  const tail = body.subarray(Math.max(0, body.length - 256)).toString('latin1');
  // UTF-16 documents: drop the NULs so the tag can be matched.
  return !CLOSING_ROOT.test(tail.replace(/\u0000/g, ''));
}

export function withoutTruncatedTail(parsed: ParsedFeed, body: Buffer): ParsedFeed {
  if (!isTruncated(parsed, body) || parsed.entries.length === 0) return parsed;
  return { ...parsed, entries: parsed.entries.slice(0, -1) };
}
