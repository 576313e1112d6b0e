// 090: async chat jobs are claimed with a lease (src/chat-api/async-jobs.ts). A process that runs a
// job owns it until lease_until (milliseconds since the epoch) and renews it while it runs; a job
// whose lease ran out (its process died) is claimed by another. Jobs left IN_PROGRESS by a process
// of an older version have no lease: they are claimable, as they were resumed before.
import type { Migration } from './migration.ts';

const sqlite = `
ALTER TABLE chat_async_jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE chat_async_jobs ADD COLUMN lease_until INTEGER;
DROP INDEX chat_async_jobs_open;
CREATE INDEX chat_async_jobs_open ON chat_async_jobs(created_at, id) WHERE status IN ('CREATED', 'IN_PROGRESS');
`;

const postgres = `
ALTER TABLE chat_async_jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE chat_async_jobs ADD COLUMN lease_until BIGINT;
DROP INDEX chat_async_jobs_open;
CREATE INDEX chat_async_jobs_open ON chat_async_jobs(created_at, id) WHERE status IN ('CREATED', 'IN_PROGRESS');
`;

export const migration: Migration = { id: '090_chat_jobs_lease', sqlite, postgres };
