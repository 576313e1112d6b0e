// Migration 125 (PostgreSQL): every write to what a process keeps from the search index between
// answers NOTIFYs the change channel of migration 086, so a process can trust what it holds while
// its change signal stays put, with no round trip (src/store/postgres/search-index.ts: postings
// chunks, candidate passages, article metadata). Before, each answer checked its held postings and
// passages in the database; those writes mostly came with a notification already (indexing moves
// the index counters and the backlog, an item's url, title or dates move the Reader item version,
// a feed's url or title the catalog version), but not all of them: an item's image, a deleted item,
// passages or postings written by a statement those triggers do not watch. Statement triggers, and
// PostgreSQL folds the notifications of one transaction into one, so an indexing batch still sends
// one. SQLite reads all of these in process every time: nothing to create.
import type { Migration } from './migration.ts';

const postgres = `
CREATE TRIGGER search_passages_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_passages
  FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_change();
CREATE TRIGGER search_postings_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_postings
  FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_change();
CREATE TRIGGER items_deleted_notify AFTER DELETE OR TRUNCATE ON items
  FOR EACH STATEMENT EXECUTE FUNCTION tidings_notify_change();
CREATE TRIGGER items_image_notify AFTER UPDATE OF image_url, feed_id ON items FOR EACH ROW
  WHEN (OLD.image_url IS DISTINCT FROM NEW.image_url OR OLD.feed_id IS DISTINCT FROM NEW.feed_id)
  EXECUTE FUNCTION tidings_notify_change();
`;

const sqlite = 'SELECT 1;';

export const migration: Migration = { id: '125_search_cache_notifications', sqlite, postgres };
