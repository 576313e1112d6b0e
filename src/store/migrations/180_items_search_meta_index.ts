// Migration 180 (SQLite): the metadata of a search's hits (SearchIndexRepository.articles: url,
// title, feed, dates, image) comes from one index entry per article. Those columns sit in `items`
// on both sides of `content`: published_at, updated_at and image_url after it, so reading them
// walked each article's overflow pages (a news article's body spans several 4 KiB pages), 20
// articles per chat answer. Read through this index (INDEXED BY: SQLite would look an id up in the
// table), the 20 rows of an answer cost 0.05 ms instead of 0.18-0.22 ms (BENCHMARKS.md, "Chat CPU:
// the reads of a sonar answer"). The entry is ~115 bytes per item (11 MB at 100k items, beside the
// 250 MB table) and one more B-tree entry per stored item, at the right edge (ids grow); an
// update rewrites it only when one of these columns changed. PostgreSQL keeps a long body out of
// line (TOAST), so its row holds the later columns near the start: nothing to create there.
import type { Migration } from './migration.ts';

const sqlite = 'CREATE INDEX items_search_meta ON items(id, feed_id, url, title, published_at, updated_at, image_url);';

export const migration: Migration = { id: '180_items_search_meta_index', sqlite, postgres: 'SELECT 1;' };
