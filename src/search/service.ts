// The search service of an App: the local index plus, when configured, web search (SearXNG),
// fused by reciprocal rank. One call to search() is one billed search, whatever the number of
// providers behind it; the service also counts them (searchesPerformed) for metrics.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import { reciprocalRankFusion } from './fusion.ts';
import { searchIndexRepository, flushSearchIndexing } from './indexing.ts';
import { LocalIndexProvider } from './local-provider.ts';
import type {
  NewestQuery,
  ScopeFeed,
  SearchHit,
  SearchProvider,
  SearchQuery,
  SearchReport,
  SearchScope,
  SearchService,
} from './types.ts';
import { SearxngProvider } from './web/searxng.ts';
import type { Logger } from '../log/logger.ts';
import { observeSearch, reportMemoryUse } from '../observability/events.ts';
import { articleIndexMemory } from './article-index.ts';
import type { SearchIndexRepository } from '../store/repositories.ts';

export interface SearchServiceOptions {
  local: LocalIndexProvider;
  /** Brings the index up to date before a search (the ingest listener indexes lazily). */
  beforeSearch?: () => Promise<void> | void;
  web?: SearchProvider[];
  log: Logger;
}

export class FusedSearchService implements SearchService {
  private readonly local: LocalIndexProvider;
  private readonly web: SearchProvider[];
  private readonly log: Logger;
  private readonly repo: SearchIndexRepository;
  private count = 0;
  private readonly beforeSearch: () => Promise<void> | void;

  constructor(repo: SearchIndexRepository, opts: SearchServiceOptions) {
    this.repo = repo;
    this.local = opts.local;
    this.web = opts.web ?? [];
    this.log = opts.log;
    this.beforeSearch = opts.beforeSearch ?? (() => {});
  }

  get searchesPerformed(): number {
    return this.count;
  }

  async search(q: SearchQuery, signal?: AbortSignal): Promise<SearchHit[]> {
    return (await this.searchWithReport(q, signal)).hits;
  }

  /** Called with each search's duration in seconds (metrics). */
  onSearched: (seconds: number) => void = () => {};

  async searchWithReport(q: SearchQuery, signal?: AbortSignal): Promise<SearchReport> {
    return this.billed(q, () => this.searchAll(q, signal));
  }

  /**
   * One billed search: the query validated first (throws SearchFilterError: a rejected request
   * is not a billed search), then counted and timed.
   */
  private async billed<T>(q: NewestQuery, run: () => Promise<T>): Promise<T> {
    await this.local.compile({ ...q, text: '' });
    this.count++;
    const t0 = performance.now();
    try {
      return await run();
    } finally {
      this.onSearched((performance.now() - t0) / 1000);
    }
  }

  private async searchAll(q: SearchQuery, signal?: AbortSignal): Promise<SearchReport> {
    await this.beforeSearch();
    const local = await this.local.search(q);
    if (!this.web.length) return { hits: local, billedSearches: 1, degraded: [] };
    const degraded: string[] = [];
    const webLists = await Promise.all(
      this.web.map(async (p) => {
        try {
          return await p.search(q, signal);
        } catch (e) {
          if (signal?.aborted) throw e;
          const message = `${p.name} web search failed: ${(e as Error).message}`;
          this.log.warn({ err: e, provider: p.name }, 'web search failed; answering from the local index only');
          degraded.push(message);
          return [];
        }
      }),
    );
    return { hits: reciprocalRankFusion([local, ...webLists], q.limit), billedSearches: 1, degraded };
  }

  async newest(q: NewestQuery): Promise<SearchHit[]> {
    return this.billed(q, async () => {
      await this.beforeSearch();
      return this.local.newest(q);
    });
  }

  feedNames(scope: SearchScope, limit: number): Promise<ScopeFeed[]> {
    return this.local.feedNames(scope, limit);
  }

  articleTexts(itemIds: number[]): Promise<Map<number, { title: string; url: string; text: string }>> {
    return this.repo.articleTexts(itemIds);
  }
}

/** The App's search service (created on first use). */
export const searchService: (app: App) => FusedSearchService = perApp((app) => {
  const repo = searchIndexRepository(app);
  const web: SearchProvider[] = app.config.searxngUrl ? [new SearxngProvider(app)] : [];
  const s = new FusedSearchService(repo, {
    local: new LocalIndexProvider(repo),
    web,
    log: app.log,
    beforeSearch: () => flushSearchIndexing(app),
  });
  s.onSearched = (seconds) => observeSearch(app, seconds);
  reportMemoryUse(app, 'search_article_table', () => articleIndexMemory(repo));
  return s;
});
