// Favicons of feeds: found from the site's <link rel="icon">, else /favicon.ico, fetched through
// the SSRF-guarded fetcher with a size limit, and stored (src/store/sqlite/feed-icons.ts).
import { perApp, type App } from '../app.ts';
import type { FeedIconRepository } from '../store/repositories.ts';
import { SqliteFeedIconRepository } from '../store/sqlite/feed-icons.ts';

export const feedIcons: (app: App) => FeedIconRepository = perApp((app) => new SqliteFeedIconRepository(app.db));
