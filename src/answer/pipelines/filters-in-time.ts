// The request's search filters against the answer's "today", and what they removed.
//
// - `filtersAsOf`: `tidings ask --as-of 2022-04-06 --recency week` means the week up to 6 April
//   2022, not up to the real today. The search resolves `recency` against the clock, so with an
//   as-of day the pipeline turns it into absolute bounds first: published after as-of minus the
//   period, and not after the as-of day.
// - `filteredOutOf`: when the filters leave no article, the same search without them says what the
//   feeds do hold, so the answer does not claim that nothing exists: "70 articles mention NASA;
//   none is from the last week (the newest is from 5 April 2022)".
import type { SearchFilters, SearchHit } from '../../search/types.ts';
import { RECENCY_SECONDS } from '../../search/filters.ts';
import { longDay } from '../engines/extractive-dates.ts';

/** What the filters removed, for the decline (set only when they left no article). */
export interface FilteredOut {
  /** Articles the same search finds without the filters that mention the question's topic. */
  count: number;
  /** True when the count reached the search's limit: "at least". */
  more: boolean;
  /** The topic words they mention (empty: counted every article found). */
  topic: string[];
  /** Publication time of the newest of them (unix seconds), null when none is dated. */
  newest: number | null;
  /** What the filters let through, after "none is": "from the last week", "from nasa.gov". */
  kept: string;
}

export function hasFilters(f: SearchFilters): boolean {
  return (
    f.recency !== undefined ||
    (f.domainFilter?.length ?? 0) > 0 ||
    f.publishedAfter !== undefined ||
    f.publishedBefore !== undefined ||
    f.updatedAfter !== undefined ||
    f.updatedBefore !== undefined
  );
}

/** The filters with `recency` counted back from `asOf` (unix seconds) when the request set one. */
export function filtersAsOf(filters: SearchFilters, asOf: number | undefined): SearchFilters {
  if (asOf === undefined || filters.recency === undefined) return filters;
  const seconds = RECENCY_SECONDS[filters.recency];
  if (!seconds) return filters; // the search names the bad value
  const { recency: _, ...rest } = filters;
  return {
    ...rest,
    publishedAfter: Math.max(rest.publishedAfter ?? Number.NEGATIVE_INFINITY, asOf - seconds),
    publishedBefore: Math.min(rest.publishedBefore ?? Number.POSITIVE_INFINITY, asOf),
  };
}

const or = (xs: string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);
const hostOf = (entry: string) =>
  entry
    .replace(/^-/, '')
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '');

function between(what: string, after?: number, before?: number): string | undefined {
  if (after !== undefined && before !== undefined) return `${what} between ${longDay(after)} and ${longDay(before)}`;
  if (after !== undefined) return `${what} after ${longDay(after)}`;
  if (before !== undefined) return `${what} before ${longDay(before)}`;
  return undefined;
}

/** What the request's filters let through, in words that follow "none is" (the request's own filters, not filtersAsOf's). */
export function keptByFilters(f: SearchFilters, asOf?: number): string {
  const parts: string[] = [];
  if (f.recency)
    parts.push(asOf === undefined ? `from the last ${f.recency}` : `from the ${f.recency} up to ${longDay(asOf)}`);
  if (f.domainFilter?.length) {
    const hosts = f.domainFilter.map(hostOf);
    parts.push(f.domainFilter[0]!.startsWith('-') ? `from a site other than ${or(hosts)}` : `from ${or(hosts)}`);
  }
  const published = between('dated', f.publishedAfter, f.publishedBefore);
  if (published) parts.push(published);
  const updated = between('updated', f.updatedAfter, f.updatedBefore);
  if (updated) parts.push(updated);
  return parts.join(' and ');
}

/**
 * What the filters removed: of the unfiltered hits, those that mention every topic phrase
 * (`mentions`), counted, with the newest date. Undefined when even the unfiltered search finds none.
 */
export function filteredOutOf(
  unfiltered: SearchHit[],
  topic: string[],
  mentions: (hit: SearchHit, phrase: string) => boolean,
  kept: string,
  limit: number,
): FilteredOut | undefined {
  const about = topic.length ? unfiltered.filter((h) => topic.every((t) => mentions(h, t))) : unfiltered;
  const counted = about.length ? about : unfiltered;
  if (!counted.length) return undefined;
  const dated = counted.map((h) => h.publishedAt).filter((t): t is number => t != null);
  return {
    count: counted.length,
    more: counted.length >= limit,
    topic: about.length ? topic : [],
    newest: dated.length ? Math.max(...dated) : null,
    kept,
  };
}

/** "70 articles mention NASA; none is from the last week (the newest is from 5 April 2022)." */
export function filteredOutMessage(f: FilteredOut, joinAnd: (xs: string[]) => string): string {
  const n = `${f.count}${f.more ? ' or more' : ''}`;
  const one = f.count === 1 && !f.more;
  const what = f.topic.length
    ? `${n} article${one ? '' : 's'} mention${one ? 's' : ''} ${joinAnd(f.topic)}`
    : `${n} article${one ? '' : 's'} match${one ? 'es' : ''} the question`;
  const newest = f.newest !== null ? ` (the newest is from ${longDay(f.newest)})` : '';
  return `${what}; ${one ? 'it is not' : 'none is'} ${f.kept}${newest}.`;
}
