// 150: processes waiting for a place on a host (src/feeds/refresh-claims.ts). A claim refused
// because a host was full records its owner here, since when (kept while it keeps waiting) and
// until when (renewed by each refused claim, so a crashed waiter's row runs out). A place that
// comes free goes to the longest waiting process first, instead of back at once to the process
// whose fetch just ended there (a round of 40 feeds on 4 hosts split 38/0/2 over three processes).
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE refresh_host_waits (
  fetch_host TEXT NOT NULL,
  owner TEXT NOT NULL,
  since_ms INTEGER NOT NULL,
  until_ms INTEGER NOT NULL,
  PRIMARY KEY (fetch_host, owner)
);
`;

export const migration: Migration = {
  id: '150_refresh_host_waits',
  sqlite,
  postgres: sqlite.replace(/INTEGER/g, 'BIGINT'),
};
