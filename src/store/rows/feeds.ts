// Row shape and mapping of feeds (fetch state), shared by the SQLite and PostgreSQL repositories.
import type { FeedRecord } from '../../model/feed-record.ts';

export interface FeedRow {
  id: number;
  url: string;
  site_url: string | null;
  title: string | null;
  description: string | null;
  icon_url: string | null;
  etag: string | null;
  last_modified: string | null;
  last_fetched_at: number | null;
  last_success_at: number | null;
  last_status: number | null;
  last_error: string | null;
  error_count: number;
  next_fetch_at: number;
  interval_seconds: number | null;
  item_count: number;
  ttl_minutes: number | null;
  body_hash: string | null;
  last_duration_ms: number | null;
  created_at: number;
}

export const toFeed = (r: FeedRow): FeedRecord => ({
  id: r.id,
  url: r.url,
  siteUrl: r.site_url,
  title: r.title,
  description: r.description,
  iconUrl: r.icon_url,
  etag: r.etag,
  lastModified: r.last_modified,
  lastFetchedAt: r.last_fetched_at,
  lastSuccessAt: r.last_success_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  errorCount: r.error_count,
  nextFetchAt: r.next_fetch_at,
  intervalSeconds: r.interval_seconds,
  itemCount: r.item_count,
  ttlMinutes: r.ttl_minutes,
  bodyHash: r.body_hash,
  lastDurationMs: r.last_duration_ms,
  createdAt: r.created_at,
});
