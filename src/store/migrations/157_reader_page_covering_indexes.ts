// Migration 157: the two indexes the 1,000-item Reader pages are read through (the reading list
// and its unread part) carry every column a page shows (feed and flags), so a page is one index
// scan. Before, each of the 1,000 rows was then looked up in user_items by its primary key: 2 ms
// of the 2.6 ms page read on SQLite, more than the page's whole JSON (issue 26). Each entry grows
// by about 7 bytes; a read or star change now also rewrites the entry in user_items_all (it
// already did in user_items_read and user_items_feed). Same names, same leading columns: every
// keyset condition and query plan stays as it was. PostgreSQL keeps the columns out of the key
// (INCLUDE), which gives it index-only scans where the visibility map allows.
import type { Migration } from './migration.ts';

const sqlite = `
DROP INDEX user_items_all;
CREATE INDEX user_items_all ON user_items(user_id, crawled_us, item_id, feed_id, read, starred, liked, broadcast, saved);
DROP INDEX user_items_read;
CREATE INDEX user_items_read ON user_items(user_id, read, crawled_us, item_id, feed_id, starred, liked, broadcast, saved);
`;

const postgres = `
DROP INDEX user_items_all;
CREATE INDEX user_items_all ON user_items(user_id, crawled_us, item_id) INCLUDE (feed_id, read, starred, liked, broadcast, saved);
DROP INDEX user_items_read;
CREATE INDEX user_items_read ON user_items(user_id, read, crawled_us, item_id) INCLUDE (feed_id, starred, liked, broadcast, saved);
`;

export const migration: Migration = { id: '157_reader_page_covering_indexes', sqlite, postgres };
