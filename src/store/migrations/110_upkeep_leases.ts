// 110: leases on periodic upkeep (src/feeds/upkeep-lease.ts): the favicon look-ups and the WebSub
// maintenance at the end of a refresh round run in one process at a time, among all processes
// and machines on the database, and not again in another process within a minute of a finished
// run. One row per task: who holds it and until when (ms since the epoch; a crashed holder's
// lease runs out), and when the last run finished.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE upkeep_leases (
  task TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL
);
`;

export const migration: Migration = {
  id: '110_upkeep_leases',
  sqlite,
  postgres: sqlite.replace(/INTEGER/g, 'BIGINT'),
};
