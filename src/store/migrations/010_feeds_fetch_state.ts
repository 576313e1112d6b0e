// 010: feed engine (src/feeds): fetch state beyond 001, and the index behind the adaptive interval.
import type { Migration } from './migration.ts';

const sqlite = `
ALTER TABLE feeds ADD COLUMN ttl_minutes INTEGER;
ALTER TABLE feeds ADD COLUMN body_hash TEXT;
ALTER TABLE feeds ADD COLUMN last_duration_ms INTEGER;
CREATE INDEX items_feed_published ON items(feed_id, published_at);
`;

export const migration: Migration = { id: '010_feeds_fetch_state', sqlite, postgres: sqlite };
