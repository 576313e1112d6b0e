// Versioned schema migrations: one file per migration in ./migrations/, listed here in id order
// (migrations.test.ts checks the order and that every file is listed). Each store applies the
// ones not yet recorded in schema_migrations, each in its own transaction: a migration that fails
// leaves the database as it was.
//
// Databases created before the list was sorted recorded 030-033 before 025-027; applying by "not
// yet recorded" rather than by position keeps them working (those steps do not depend on each
// other).
import type { Migration } from './migrations/migration.ts';
import { migration as m001 } from './migrations/001_core.ts';
import { migration as m010 } from './migrations/010_feeds_fetch_state.ts';
import { migration as m020 } from './migrations/020_auth_tokens_oauth.ts';
import { migration as m025 } from './migrations/025_reader_stream_indexes.ts';
import { migration as m026 } from './migrations/026_reader_catalog_version.ts';
import { migration as m027 } from './migrations/027_reader_items_version.ts';
import { migration as m030 } from './migrations/030_search_passages.ts';
import { migration as m031 } from './migrations/031_search_articles.ts';
import { migration as m032 } from './migrations/032_search_drop_passage_fts.ts';
import { migration as m033 } from './migrations/033_search_postings.ts';
import { migration as m040 } from './migrations/040_chat_api.ts';
import { migration as m055 } from './migrations/055_items_removed.ts';
import { migration as m056 } from './migrations/056_users_admin.ts';
import { migration as m060 } from './migrations/060_fever_credentials.ts';
import { migration as m061 } from './migrations/061_feed_icons.ts';
import { migration as m062 } from './migrations/062_filter_rules.ts';
import { migration as m063 } from './migrations/063_full_text.ts';
import { migration as m064 } from './migrations/064_webhooks.ts';
import { migration as m065 } from './migrations/065_websub.ts';
import { migration as m070 } from './migrations/070_web_app.ts';
import { migration as m080 } from './migrations/080_shared_limits.ts';
import { migration as m085 } from './migrations/085_search_index_backlog.ts';
import { migration as m086 } from './migrations/086_change_notifications.ts';
import { migration as m090 } from './migrations/090_chat_jobs_lease.ts';
import { migration as m091 } from './migrations/091_feeds_refresh_claims.ts';
import { migration as m095 } from './migrations/095_auth_change_notifications.ts';
import { migration as m110 } from './migrations/110_upkeep_leases.ts';
import { migration as m115 } from './migrations/115_version_bumps_at_commit.ts';
import { migration as m120 } from './migrations/120_search_postings_version.ts';
import { migration as m125 } from './migrations/125_search_cache_notifications.ts';
import { migration as m130 } from './migrations/130_search_rows_without_item_keys.ts';
import { migration as m135 } from './migrations/135_api_key_change_notifications.ts';
import { migration as m140 } from './migrations/140_web_setup_token.ts';
import { migration as m145 } from './migrations/145_filter_rules_disabled.ts';
import { migration as m150 } from './migrations/150_refresh_host_waits.ts';
import { migration as m157 } from './migrations/157_reader_page_covering_indexes.ts';
import { migration as m165 } from './migrations/165_search_postings_hot_updates.ts';
import { migration as m170 } from './migrations/170_unread_counter_lock_order.ts';
import { migration as m180 } from './migrations/180_items_search_meta_index.ts';
import { migration as m195 } from './migrations/195_sqlite_change_counter.ts';
import { migration as m210 } from './migrations/210_feeds_refresh_fetch_done.ts';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = [
  m001,
  m010,
  m020,
  m025,
  m026,
  m027,
  m030,
  m031,
  m032,
  m033,
  m040,
  m055,
  m056,
  m060,
  m061,
  m062,
  m063,
  m064,
  m065,
  m070,
  m080,
  m085,
  m086,
  m090,
  m091,
  m095,
  m110,
  m115,
  m120,
  m125,
  m130,
  m135,
  m140,
  m145,
  m150,
  m157,
  m165,
  m170,
  m180,
  m195,
  m210,
];
