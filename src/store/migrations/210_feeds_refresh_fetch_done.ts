// 210: a claimed feed whose fetch has ended no longer holds a place on its host
// (src/feeds/refresh-claims.ts). A claim lasts through the fetch, the parse and the store, so a
// host's places (TIDINGS_PER_HOST_CONCURRENCY, counted over every process's live claims) were held
// by feeds waiting for the parse worker or the database: with 2,000 feeds on one host and 4
// places, the host saw 2.5 fetches at a time on average while the bodies already read waited
// (BENCHMARKS.md, "The first refresh of 2,000 feeds on one host"). The claim itself still keeps
// the feed from every other process until its success or failure write; only the host's count
// leaves it out once this is set (by the process holding the claim; a new claim clears it).
import type { Migration } from './migration.ts';

const sqlite = `ALTER TABLE feeds ADD COLUMN refresh_fetch_done INTEGER;`;

export const migration: Migration = {
  id: '210_feeds_refresh_fetch_done',
  sqlite,
  postgres: sqlite.replace('INTEGER', 'SMALLINT'),
};
