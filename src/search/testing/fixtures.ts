// Test fixtures for the search tests: a real App on a temp SQLite file and rows inserted the way
// the feed engine stores them (feeds, items, subscriptions, labels, user_items).
import { flushSearchIndexing } from '../indexing.ts';
import { createApp } from '../../server/create-app.ts';
import type { App } from '../../runtime/app.ts';
import { loadConfig, type Config } from '../../config/config.ts';
import { tempDataDir } from '../../../test/helpers.ts';
import { testSql } from '../../store/testing.ts';

export function testApp(overrides: Partial<Config> = {}): Promise<App> {
  return createApp(
    loadConfig({ env: {}, overrides: { dataDir: tempDataDir('tidings-search-'), logLevel: 'silent', ...overrides } }),
  );
}

export async function addUser(app: App, name: string): Promise<number> {
  return (await app.users.create(name, 'x')).id;
}

export async function addFeed(app: App, url: string, title = url): Promise<number> {
  const r = await testSql(app)
    .prepare('INSERT INTO feeds (url, title, created_at) VALUES (?, ?, 0) RETURNING id')
    .get<{ id: number }>(url, title);
  return Number(r!.id);
}

export async function subscribe(app: App, userId: number, feedId: number, folder?: string): Promise<number> {
  const r = await testSql(app)
    .prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (?, ?, 0) RETURNING id')
    .get<{ id: number }>(userId, feedId);
  const subId = Number(r!.id);
  if (folder)
    await testSql(app)
      .prepare('INSERT INTO subscription_labels (subscription_id, label_id) VALUES (?, ?)')
      .run(subId, await label(app, userId, folder));
  return subId;
}

export async function label(app: App, userId: number, name: string): Promise<number> {
  await testSql(app)
    .prepare('INSERT INTO labels (user_id, name) VALUES (?, ?) ON CONFLICT DO NOTHING')
    .run(userId, name);
  return Number(
    (await testSql(app)
      .prepare('SELECT id FROM labels WHERE user_id = ? AND name = ?')
      .get<{ id: number }>(userId, name))!.id,
  );
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
export async function insertItem(app: App, feedId: number, it: ItemInput): Promise<number> {
  const published = it.publishedAt ?? 1_700_000_000;
  const r = await testSql(app)
    .prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'h') RETURNING id`)
    .get<{ id: number }>(
      feedId,
      `g${++guid}`,
      it.url,
      it.title,
      it.content,
      published,
      it.updatedAt ?? published,
      Date.now() * 1000,
    );
  const id = Number(r!.id);
  await testSql(app)
    .prepare(`INSERT INTO user_items (user_id, item_id, feed_id, crawled_us)
    SELECT user_id, ?, feed_id, ? FROM subscriptions WHERE feed_id = ?`)
    .run(id, Date.now() * 1000, feedId);
  return id;
}

/**
 * Inserts items and tells the App, as the feed engine does after its ingest transaction, then
 * drains the indexing queue so tests can inspect the index directly (searches drain it anyway).
 */
export async function ingest(app: App, feedId: number, items: ItemInput[]): Promise<number[]> {
  const ids: number[] = [];
  for (const it of items) ids.push(await insertItem(app, feedId, it));
  app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
  await flushSearchIndexing(app);
  return ids;
}
