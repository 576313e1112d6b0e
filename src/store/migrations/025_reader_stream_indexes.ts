// 025: Reader API indexes the core schema does not cover: all items of one feed in crawl order
// (the core feed index has `read` before crawled_us), and the rare states as partial indexes so
// their streams are keyset scans.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE INDEX user_items_feed_all ON user_items(user_id, feed_id, crawled_us, item_id);
CREATE INDEX user_items_liked ON user_items(user_id, crawled_us, item_id) WHERE liked = 1;
CREATE INDEX user_items_broadcast ON user_items(user_id, crawled_us, item_id) WHERE broadcast = 1;
CREATE INDEX user_items_saved ON user_items(user_id, crawled_us, item_id) WHERE saved = 1;
`;

export const migration: Migration = { id: '025_reader_stream_indexes', sqlite, postgres: sqlite };
