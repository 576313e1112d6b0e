// Rules of storing feed entries that both backends follow, so a feed ingested on SQLite and on
// PostgreSQL ends up the same: what counts as a changed entry, insertion order, crawl times, the
// future-date guard and how many items a new subscriber is given.
import { createHash } from 'node:crypto';
import type { ParsedEntry } from '../model/parsed-feed.ts';

/** Publication dates further ahead than this are clock errors of the feed: use the crawl time. */
export const FUTURE_TOLERANCE_S = 86_400;

/**
 * How many of a feed's stored items a new subscriber receives (as unread). Feeds are shared, so a
 * second subscriber would otherwise see nothing until the next new post. Inoreader and FreshRSS
 * show what the feed document currently carries, which for most feeds is 10-100 entries; 200
 * covers large feeds without flooding a new subscriber with years of archive.
 */
export const BACKFILL_ON_SUBSCRIBE = 200;

/** What makes an entry "changed": the parts a reader sees, not dates (some feeds bump them on every build). */
export function contentHash(e: ParsedEntry): string {
  const h = createHash('sha256');
  for (const part of [
    e.url,
    e.title,
    e.author,
    e.content,
    e.summary,
    e.imageUrl,
    JSON.stringify(e.enclosures),
    JSON.stringify(e.categories),
  ]) {
    h.update(part ?? '\u0000');
    h.update('\u0001');
  }
  return h.digest('base64url');
}

/** Insertion order of new entries: oldest first, so newer posts get larger crawl times. */
export function oldestFirst(entries: ParsedEntry[]): ParsedEntry[] {
  // Feeds usually list newest first: reverse document order is the fallback when dates are missing.
  const reversed = [...entries].reverse();
  if (reversed.every((e) => e.publishedAt !== null)) reversed.sort((a, b) => a.publishedAt! - b.publishedAt!);
  return reversed;
}

let lastCrawlUs = 0;
/** Crawl times strictly increase within this process, so stream order is total and stable. */
export function nextCrawlUs(atLeast: number): number {
  lastCrawlUs = Math.max(lastCrawlUs + 1, atLeast);
  return lastCrawlUs;
}
