// 055 (ops): tombstones of articles deleted by retention, so ingestion does not bring back an
// article a feed still lists (src/store/sqlite/items.ts skips these guids).
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE items_removed (
  feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  removed_at INTEGER NOT NULL,
  PRIMARY KEY (feed_id, guid)
) WITHOUT ROWID;
`;

const postgres = `
CREATE TABLE items_removed (
  feed_id BIGINT NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  removed_at BIGINT NOT NULL,
  PRIMARY KEY (feed_id, guid)
);
`;

export const migration: Migration = { id: '055_items_removed', sqlite, postgres };
