// "What is the latest Critical Role episode about?" (../text/latest-asked.ts): the newest article
// that is such a thing must be among the sources the answer reads, but the search ranks by
// relevance, and look-alike episodes all match the question about as well: over the real-world
// feeds the newest Critical Role episode was not among the question's 20 hits. So the thing itself
// is searched ("Critical Role episode"), then searched again for articles published after the
// newest one found, until a round finds none newer (at most ROUNDS searches): each round's window
// is narrower, so the newest such article surfaces whatever its relevance rank. The articles whose
// headline (with its feed's name) names every term of the thing then go first, newest first; for
// "what is it about" they are read from their article's start (the show notes' opening says what
// the episode is about; the search's passages are the lines that best match "Critical Role
// episode", which are the notes every episode repeats).
import type { SearchHit, SearchService } from '../../search/types.ts';
import type { SearchFilters, SearchScope } from '../types.ts';
import { headlineNames, type LatestAsked } from '../text/latest-asked.ts';
import { terms } from '../text/terms.ts';

/** Searches for newer articles of the kind, at most. */
const ROUNDS = 4;
/** Hits per such search. */
const LIMIT = 50;

const isoDay = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

export interface NewestOfKind {
  hits: SearchHit[];
  /** URLs of the articles of the kind among them. */
  ofKind: Set<string>;
  /** Searches run. */
  searches: number;
  /** What was done, for the reasoning trace. */
  note: string;
}

/** What to look for: the search's words, and which of its hits count. */
export interface Wanted {
  /** Searched each round. */
  query: string;
  /** Whether a hit is one of the wanted articles. */
  isOne: (hit: SearchHit) => boolean;
  /** The rule, in words, for the reasoning trace: "whose headline (with its feed's name) names …". */
  rule: string;
}

/** The articles of the kind a "latest X" question asks for: whose headline (with its feed's name) names X. */
export function wantedOfKind(asked: LatestAsked): Wanted {
  return {
    query: asked.thing,
    isOne: (h) => headlineNames(h, asked.thingTerms),
    rule: `whose headline (with its feed's name) names ${asked.thingTerms.join(', ')}`,
  };
}

/**
 * The articles about a topic a digest asks the newest of ("what's the latest on Critical Role?"):
 * whose headline, feed name or passages have every term of it; undefined when it has no terms.
 */
export function wantedAbout(topic: string[]): Wanted | undefined {
  const topicTerms = terms(topic.join(' '));
  if (!topicTerms.length) return undefined;
  return {
    query: topic.join(' '),
    isOne: (h) => {
      const said = new Set(terms(`${h.title} ${h.sourceName} ${h.passages.map((p) => p.text).join(' ')}`));
      return topicTerms.every((t) => said.has(t));
    },
    rule: `that mention ${topicTerms.join(', ')}`,
  };
}

/**
 * The newest of the wanted articles first (newest first): the question's hits, then searches for
 * articles newer than the newest found, until a round finds none (ROUNDS at most); `limit` hits at
 * most. Undefined when no dated wanted article is found (the hits stay as they were).
 */
export async function newestWanted(
  search: SearchService,
  wanted: Wanted,
  scope: SearchScope,
  filters: SearchFilters,
  hits: SearchHit[],
  limit: number,
  signal?: AbortSignal,
): Promise<NewestOfKind | undefined> {
  const ofKind = (h: SearchHit) => h.publishedAt != null && wanted.isOne(h);
  const found = new Map<string, SearchHit>();
  for (const h of hits) if (ofKind(h)) found.set(h.url, h);
  let searches = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const newest = found.size ? Math.max(...[...found.values()].map((h) => h.publishedAt!)) : undefined;
    const after =
      newest === undefined
        ? filters
        : { ...filters, publishedAfter: Math.max(filters.publishedAfter ?? 0, newest + 1) };
    const more = await search.search({ text: wanted.query, scope, filters: after, limit: LIMIT }, signal);
    searches++;
    const fresh = more.filter((h) => ofKind(h) && !found.has(h.url));
    if (!fresh.length) break;
    for (const h of fresh) found.set(h.url, h);
  }
  if (!found.size) return undefined;
  const first = [...found.values()].sort((a, b) => b.publishedAt! - a.publishedAt!).slice(0, limit);
  const rest = hits.filter((h) => !first.some((f) => f.url === h.url));
  const fromSearch = first.filter((f) => !hits.some((h) => h.url === f.url)).length;
  return {
    hits: [...first, ...rest].slice(0, Math.max(limit, hits.length)),
    ofKind: new Set(first.map((h) => h.url)),
    searches,
    note: `The question asks for the newest: searched "${wanted.query}" ${searches} time${searches === 1 ? '' : 's'} (each for articles newer than the newest found); the ${first.length} article${first.length === 1 ? '' : 's'} ${wanted.rule} go first, newest first (the newest is from ${isoDay(first[0]!.publishedAt!)}${fromSearch ? `; ${fromSearch} of them not among the question's hits` : ''}).`,
  };
}
