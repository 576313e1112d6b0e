// 091: feed refresh claims (src/feeds/refresh-claims.ts). A process refreshing a feed holds a claim
// on it until refresh_claimed_until (milliseconds since the epoch), renewed while it works, so no
// other process fetches the same feed meanwhile, and a crashed process's feeds are due again once
// its claims run out. fetch_host (the URL's host[:port], as the fetcher's per-host limit counts
// it) lets a claim skip hosts another process is fetching from: per-host politeness limits then
// hold across processes.
import type { Migration } from './migration.ts';

// host[:port] of every stored URL: after "://", up to the first "/", "?" or "#" (feed URLs never
// carry credentials: they are refused on the way in).
const hostOf = (rest: string) =>
  `lower(substr(${rest}, 1, min(instr(${rest} || '/', '/'), instr(${rest} || '?', '?'), instr(${rest} || '#', '#')) - 1))`;

const sqlite = `
ALTER TABLE feeds ADD COLUMN fetch_host TEXT;
ALTER TABLE feeds ADD COLUMN refresh_claimed_by TEXT;
ALTER TABLE feeds ADD COLUMN refresh_claimed_until INTEGER;
UPDATE feeds SET fetch_host = ${hostOf("substr(url, instr(url, '://') + 3)")};
-- Kept by triggers, so every way a feed is created or moved (subscribe, OPML import, permanent
-- redirect, db copy) keeps it right without the feed repositories knowing about it.
CREATE TRIGGER feeds_fetch_host_insert AFTER INSERT ON feeds BEGIN
  UPDATE feeds SET fetch_host = ${hostOf("substr(NEW.url, instr(NEW.url, '://') + 3)")} WHERE id = NEW.id;
END;
CREATE TRIGGER feeds_fetch_host_url AFTER UPDATE OF url ON feeds BEGIN
  UPDATE feeds SET fetch_host = ${hostOf("substr(NEW.url, instr(NEW.url, '://') + 3)")} WHERE id = NEW.id;
END;
CREATE INDEX feeds_claimed_hosts ON feeds(fetch_host, refresh_claimed_until) WHERE refresh_claimed_until IS NOT NULL;
CREATE INDEX feeds_claimed_by ON feeds(refresh_claimed_by) WHERE refresh_claimed_by IS NOT NULL;
`;

const postgres = `
ALTER TABLE feeds ADD COLUMN fetch_host TEXT;
ALTER TABLE feeds ADD COLUMN refresh_claimed_by TEXT;
ALTER TABLE feeds ADD COLUMN refresh_claimed_until BIGINT;
UPDATE feeds SET fetch_host = lower(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'));
CREATE FUNCTION feeds_set_fetch_host() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.fetch_host := lower(substring(NEW.url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'));
  RETURN NEW;
END $$;
CREATE TRIGGER feeds_fetch_host BEFORE INSERT OR UPDATE OF url ON feeds
  FOR EACH ROW EXECUTE FUNCTION feeds_set_fetch_host();
CREATE INDEX feeds_claimed_hosts ON feeds(fetch_host, refresh_claimed_until) WHERE refresh_claimed_until IS NOT NULL;
CREATE INDEX feeds_claimed_by ON feeds(refresh_claimed_by) WHERE refresh_claimed_by IS NOT NULL;
`;

export const migration: Migration = { id: '091_feeds_refresh_claims', sqlite, postgres };
