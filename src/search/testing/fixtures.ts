// Test fixtures for the search tests: a real App on a temp SQLite file and rows inserted the way
// the feed engine stores them (feeds, items, subscriptions, labels, user_items).
import { flushSearchIndexing } from '../indexing.ts';
import { createApp, type App } from '../../app.ts';
import { loadConfig, type Config } from '../../config/config.ts';
import { tempDataDir } from '../../../test/helpers.ts';

export function testApp(overrides: Partial<Config> = {}): App {
  return createApp(loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-search-'), logLevel: 'silent', ...overrides } }));
}

export function addUser(app: App, name: string): number {
  return app.users.create(name, 'x').id;
}

export function addFeed(app: App, url: string, title = url): number {
  const r = app.db.prepare('INSERT INTO feeds (url, title, created_at) VALUES (?, ?, 0)').run(url, title);
  return Number(r.lastInsertRowid);
}

export function subscribe(app: App, userId: number, feedId: number, folder?: string): number {
  const r = app.db.prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (?, ?, 0)').run(userId, feedId);
  const subId = Number(r.lastInsertRowid);
  if (folder) app.db.prepare('INSERT INTO subscription_labels (subscription_id, label_id) VALUES (?, ?)').run(subId, label(app, userId, folder));
  return subId;
}

export function label(app: App, userId: number, name: string): number {
  app.db.prepare('INSERT OR IGNORE INTO labels (user_id, name) VALUES (?, ?)').run(userId, name);
  return (app.db.prepare('SELECT id FROM labels WHERE user_id = ? AND name = ?').get(userId, name) as { id: number }).id;
}

let guid = 0;

export interface ItemInput {
  url: string;
  title: string;
  content: string;
  publishedAt?: number;
  updatedAt?: number;
}

/** Inserts an item (and user_items rows for the feed's subscribers); does not notify. */
export function insertItem(app: App, feedId: number, it: ItemInput): number {
  const published = it.publishedAt ?? 1_700_000_000;
  const r = app.db.prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'h')`).run(feedId, `g${++guid}`, it.url, it.title, it.content, published, it.updatedAt ?? published, Date.now() * 1000);
  const id = Number(r.lastInsertRowid);
  app.db.prepare(`INSERT INTO user_items (user_id, item_id, feed_id, crawled_us)
    SELECT user_id, ?, feed_id, ? FROM subscriptions WHERE feed_id = ?`).run(id, Date.now() * 1000, feedId);
  return id;
}

/**
 * Inserts items and tells the App, as the feed engine does after its ingest transaction, then
 * drains the indexing queue so tests can inspect the index directly (searches drain it anyway).
 */
export function ingest(app: App, feedId: number, items: ItemInput[]): number[] {
  const ids = items.map((it) => insertItem(app, feedId, it));
  app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
  flushSearchIndexing(app);
  return ids;
}
