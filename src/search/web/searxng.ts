// Web search through a SearXNG instance (its JSON API: GET /search?q=…&format=json, which the
// instance must enable under search.formats). The top results' pages are fetched through the
// guarded fetcher, reduced to readable text, split into passages and scored against the query;
// results not fetched keep SearXNG's snippet. Domain and date filters apply here too: recency as
// SearXNG's time_range, a single allowed domain as a site: query, and every filter again on the
// results (engines ignore what they do not support).
import { z } from 'zod';
import type { App } from '../../runtime/app.ts';
import type { RecencyFilter } from '../types.ts';
import type { PassageFilter } from '../../store/repositories.ts';
import { compileFilters, hostAllowed } from '../filters.ts';
import { splitPassages } from '../passages.ts';
import { scorePassages } from '../passage-score.ts';
import { queryTerms } from '../query.ts';
import type { SearchHit, SearchProvider, SearchQuery } from '../types.ts';
import { hostOf } from '../indexing.ts';
import { pageFetcher, type PageFetcher } from './fetch-page.ts';
import { feedEngine } from '../../feeds/index.ts';

/** Time limit of the SearXNG API call itself. */
export const SEARXNG_TIMEOUT_MS = 10_000;
const PASSAGES_PER_HIT = 3;

const searxngResult = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  publishedDate: z.string().nullish(),
  img_src: z.string().nullish(),
  thumbnail: z.string().nullish(),
  engine: z.string().nullish(),
});
const searxngResponse = z.object({ results: z.array(z.unknown()) });
export type SearxngResult = z.infer<typeof searxngResult>;

// SearXNG has no "hour": ask for a day and filter by the result date.
const TIME_RANGE: Record<RecencyFilter, string> = {
  hour: 'day',
  day: 'day',
  week: 'week',
  month: 'month',
  year: 'year',
};

export interface SearxngOptions {
  baseUrl: string;
  pagesFetched: number;
  fetchPage: PageFetcher;
  now?: () => number;
  /** Time limit of the API call (SEARXNG_TIMEOUT_MS; tests shorten it). */
  timeoutMs?: number;
}

export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng';
  private readonly opts: SearxngOptions;
  private readonly now: () => number;
  private readonly app: App;

  constructor(app: App, overrides: Partial<SearxngOptions> = {}) {
    this.app = app;
    this.opts = {
      baseUrl: app.config.searxngUrl,
      pagesFetched: app.config.webResultsFetched,
      fetchPage: overrides.fetchPage ?? pageFetcher(app),
      ...overrides,
    };
    this.now = this.opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async search(q: SearchQuery, signal?: AbortSignal): Promise<SearchHit[]> {
    const filter = compileFilters(q.filters, this.now());
    const results = (await this.query(q, filter, signal)).filter((r) => resultPasses(r, filter));
    const terms = queryTerms(q.text);
    const top = results.slice(0, q.limit);
    const fetched = await Promise.all(
      top.map((r, i) =>
        i < this.opts.pagesFetched ? this.read(r, terms, signal).catch(() => undefined) : Promise.resolve(undefined),
      ),
    );
    return top.map((r, i) => {
      const page = fetched[i];
      const snippet = r.content?.trim() ? [{ text: r.content.trim(), score: 0 }] : [];
      return {
        itemId: null,
        url: r.url,
        title: r.title?.trim() || page?.title || r.url,
        sourceName: page?.siteName || hostOf(r.url) || r.url,
        publishedAt: parseDate(r.publishedDate),
        updatedAt: null,
        passages: page?.passages.length ? page.passages : snippet,
        score: 1 / (i + 1),
        imageUrl: r.img_src || r.thumbnail || null,
        origin: 'web' as const,
      };
    });
  }

  private async query(
    q: SearchQuery,
    filter: Omit<PassageFilter, 'scope'>,
    signal?: AbortSignal,
  ): Promise<SearxngResult[]> {
    const url = new URL('search', this.opts.baseUrl.endsWith('/') ? this.opts.baseUrl : this.opts.baseUrl + '/');
    const site = filter.allowHosts?.length === 1 ? ` site:${filter.allowHosts[0]}` : '';
    url.searchParams.set('q', q.text + site);
    url.searchParams.set('format', 'json');
    if (q.filters.recency) url.searchParams.set('time_range', TIME_RANGE[q.filters.recency]);
    const limit = this.opts.timeoutMs ?? SEARXNG_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(limit);
    const tooLate = (e: unknown) =>
      timeout.aborted && !signal?.aborted
        ? new Error(`SearXNG at ${this.opts.baseUrl} did not answer within ${limit} ms`, { cause: e })
        : e;
    let res: Response;
    try {
      res = await fetch(url, {
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        headers: { accept: 'application/json' },
      });
    } catch (e) {
      throw tooLate(e);
    }
    if (!res.ok)
      throw new Error(
        `SearXNG at ${this.opts.baseUrl} answered HTTP ${res.status}${res.status === 403 ? ' (is format=json enabled in its settings.yml?)' : ''}`,
      );
    let body: unknown;
    try {
      body = await res.json();
    } catch (e) {
      if (timeout.aborted) throw tooLate(e);
      throw new Error(`SearXNG at ${this.opts.baseUrl} did not answer JSON`);
    }
    const parsed = searxngResponse.safeParse(body);
    if (!parsed.success) throw new Error(`SearXNG at ${this.opts.baseUrl} answered JSON without a results list`);
    const out: SearxngResult[] = [];
    for (const raw of parsed.data.results) {
      const r = searxngResult.safeParse(raw);
      if (r.success && /^https?:\/\//i.test(r.data.url)) out.push(r.data);
    }
    return out;
  }

  private async read(r: SearxngResult, terms: string[], signal?: AbortSignal) {
    const page = await this.opts.fetchPage(r.url, signal);
    // Read on a parse worker under its time limit (Readability over a DOM of an untrusted page of
    // up to 3 MiB): on this thread it would hold every request of the process.
    const readable = await feedEngine(this.app).parsePool.readWebPage(page.html);
    if (!readable) return undefined;
    const parts = splitPassages(readable.text);
    const scores = scorePassages(parts, terms);
    const passages = parts
      .map((text, i) => ({ text, score: scores[i]! }))
      .sort((a, b) => b.score - a.score)
      .slice(0, PASSAGES_PER_HIT);
    return { title: readable.title, siteName: readable.siteName, passages };
  }
}

function parseDate(s: string | null | undefined): number | null {
  if (!s) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** Domain filter and date bounds on a web result; a result of unknown date fails a date bound. */
function resultPasses(r: SearxngResult, f: Omit<PassageFilter, 'scope'>): boolean {
  const host = hostOf(r.url);
  if (!host || !hostAllowed(host, f)) return false;
  if (f.publishedAfter === undefined && f.publishedBefore === undefined) return true;
  const published = parseDate(r.publishedDate);
  if (published === null) return false;
  return (
    (f.publishedAfter === undefined || published >= f.publishedAfter) &&
    (f.publishedBefore === undefined || published <= f.publishedBefore)
  );
}
