// "What's new?", "What happened today?" (../text/roundup-asked.ts): the sources of a roundup are
// the newest articles in the asker's scope under the request's filters, at most a few of one feed
// first, since a roundup of one busy feed's last hour is no roundup (over the real-world feeds,
// all 5 stories of "What's new?" were one software site's tutorials).
//
// "What has the Guardian published?" (../text/feed-asked.ts): the sources are the newest articles
// of the feed the question names. Both name each article's feed as the asker named it (the Reader
// API lets a user rename a subscription), not by the feed's own title.
import type { ScopeFeed, SearchHit, SearchService } from '../../search/types.ts';
import { FEED_NAME_CHARS } from '../../store/repositories.ts';
import type { SearchFilters, SearchScope } from '../types.ts';
import { isRoundupAsked } from '../text/roundup-asked.ts';
import { feedAskedOf, feedsNamed } from '../text/feed-asked.ts';
import { describeFilters } from './trace-text.ts';

/** Newest articles a roundup chooses from, and how many of one feed lead it. */
const POOL = 100;
const PER_FEED = 2;
/**
 * Feeds of a scope read for their names at the most: a question is compared with each in one
 * pass (10,000 feeds take a few milliseconds); an instance with more is read up to this many.
 */
export const MAX_SCOPE_FEEDS = 20_000;

/** Whether to answer with a roundup: the question names no topic, nor does its search query (a follow-up's). */
const isRoundup = (question: string, query: string) => isRoundupAsked(question) && isRoundupAsked(query);

/**
 * `limit` hits in their order with at most `perFeed` of one feed first, then the rest in order.
 */
export function fewPerFeed(hits: SearchHit[], perFeed: number, limit: number): SearchHit[] {
  const count = new Map<string, number>();
  const first: SearchHit[] = [];
  const later: SearchHit[] = [];
  for (const h of hits) {
    const n = count.get(h.sourceName) ?? 0;
    count.set(h.sourceName, n + 1);
    (n < perFeed ? first : later).push(h);
  }
  return [...first, ...later].slice(0, limit);
}

/** The roundup's sources (one billed search), and what was done, for the reasoning trace. */
async function roundupHits(
  search: SearchService,
  scope: SearchScope,
  filters: SearchFilters,
  limit: number,
  signal?: AbortSignal,
): Promise<{ hits: SearchHit[]; note: string }> {
  const [latest, feeds] = await Promise.all([
    search.newest({ scope, filters, limit: POOL }, signal),
    search.feedNames(scope, MAX_SCOPE_FEEDS),
  ]);
  const hits = withUserNames(fewPerFeed(latest, PER_FEED, limit), feeds);
  const newest = hits.find((h) => h.publishedAt !== null)?.publishedAt;
  return {
    hits,
    note: `A roundup: the question names no topic, so the sources are the ${hits.length} newest articles${describeFilters(filters)}, at most ${PER_FEED} of a feed first${newest ? ` (the newest from ${new Date(newest * 1000).toISOString().slice(0, 10)})` : ''}.`,
  };
}

/**
 * Hits whose feed the user gave a name of their own, named by it (copies; the others as they
 * are). A hit names its feed by the feed's title, so a title two feeds of the scope share is left
 * as it is.
 */
export function withUserNames(hits: SearchHit[], feeds: readonly ScopeFeed[]): SearchHit[] {
  const byTitle = new Map<string, string | null>();
  for (const f of feeds) byTitle.set(f.title, byTitle.has(f.title) ? null : f.userTitle);
  return hits.map((h) => {
    // Names are read cut to FEED_NAME_CHARS.
    const name = byTitle.get(h.sourceName.slice(0, FEED_NAME_CHARS));
    return name && name !== h.sourceName ? { ...h, sourceName: name } : h;
  });
}

/** The feeds a question names (../text/feed-asked.ts), by the names the asker uses; none when it names none. */
async function feedsAsked(
  search: SearchService,
  scope: SearchScope,
  question: string,
): Promise<{ named: ScopeFeed[]; feeds: ScopeFeed[] }> {
  const asked = feedAskedOf(question);
  if (!asked) return { named: [], feeds: [] };
  const feeds = await search.feedNames(scope, MAX_SCOPE_FEEDS);
  return { named: await feedsNamed(asked, feeds), feeds };
}

/**
 * Whether a question is answered from the newest articles instead of a search by its words: of
 * the scope ("What's new?", a roundup: no feed named) or of the feeds it names ("What has the
 * Guardian published?"). Undefined for any other question. The two pipelines (sonar's and deep
 * research's) decide by this one test.
 */
export async function newestAsked(
  search: SearchService,
  scope: SearchScope,
  question: string,
  query: string,
): Promise<{ named: ScopeFeed[]; feeds: ScopeFeed[] } | undefined> {
  if (isRoundup(question, query)) return { named: [], feeds: [] };
  const asked = await feedsAsked(search, scope, question);
  return asked.named.length ? asked : undefined;
}

/** The sources of a question newestAsked said yes to: the named feeds' newest, else the scope's. */
export function newestHits(
  search: SearchService,
  scope: SearchScope,
  filters: SearchFilters,
  asked: { named: ScopeFeed[]; feeds: ScopeFeed[] },
  limit: number,
  signal?: AbortSignal,
): Promise<{ hits: SearchHit[]; note: string }> {
  return asked.named.length
    ? feedHits(search, scope, filters, asked.named, asked.feeds, limit, signal)
    : roundupHits(search, scope, filters, limit, signal);
}

/** The name the asker knows a feed by. */
export const nameOf = (f: ScopeFeed) => f.userTitle ?? f.title;

/** The sources of a question that names feeds: their newest articles (one billed search), newest first. */
async function feedHits(
  search: SearchService,
  scope: SearchScope,
  filters: SearchFilters,
  named: ScopeFeed[],
  feeds: readonly ScopeFeed[],
  limit: number,
  signal?: AbortSignal,
): Promise<{ hits: SearchHit[]; note: string }> {
  const newest = await search.newest({ scope, filters, limit, feedIds: named.map((f) => f.feedId) }, signal);
  const hits = withUserNames(newest, feeds);
  const names = named.map((f) => `"${nameOf(f)}"`).join(', ');
  return {
    hits,
    note: `The question names ${named.length === 1 ? 'the feed' : 'the feeds'} ${names}: the sources are ${named.length === 1 ? 'its' : 'their'} ${hits.length} newest articles${describeFilters(filters)}, newest first.`,
  };
}
