// What the durable search backlog and the cross-process change signal cost (issue 12), each
// against a baseline measured in the same run:
// 1. storing items: a 50-item insert transaction with the backlog trigger (migration 085) vs the
//    same store with the trigger dropped, alternating;
// 2. revalidating what a process caches, per request: the three reads a request did before (catalog
//    version, item-body version, search index counters) vs the change-gated values.
//
//   node bench/durable-index.bench.ts                                   # SQLite
//   node bench/durable-index.bench.ts --database-url postgres://…/db    # PostgreSQL (a fresh database per store is created there)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { ChangeGated } from '../src/store/open-store.ts';
import { testSql } from '../src/store/testing.ts';
import { freshPostgresDatabase } from '../test/helpers.ts';

const BASE_URL = process.argv.includes('--database-url')
  ? process.argv[process.argv.indexOf('--database-url') + 1]!
  : '';

async function open(): Promise<App> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-bench-durable-'));
  const databaseUrl = BASE_URL ? freshPostgresDatabase(BASE_URL) : '';
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ databaseUrl }));
  return createApp(loadConfig({ env: {}, overrides: { dataDir, databaseUrl, logLevel: 'silent' } }));
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

async function ingestCost(): Promise<void> {
  const withTrigger = await open();
  const without = await open();
  const pg = withTrigger.store.backend === 'postgres';
  await testSql(without).exec(`DROP TRIGGER search_backlog_item_added${pg ? ' ON items' : ''}`);
  const feedOf = async (app: App) =>
    Number(
      (await testSql(app)
        .prepare("INSERT INTO feeds (url, title, created_at) VALUES ('https://bench.example/f', 'F', 0) RETURNING id")
        .get<{ id: number }>())!.id,
    );
  const feeds = [await feedOf(withTrigger), await feedOf(without)];
  let next = 0;
  const insert50 = async (app: App, feed: number) => {
    const first = next + 1;
    next += 50;
    const t0 = performance.now();
    await app.store.transaction(async () => {
      const sql = pg
        ? `INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
           SELECT ?, 'g' || v, 'https://bench.example/' || v, 'Title ' || v, '<p>Body</p>', 1, 1, 1, 'h' FROM generate_series(?::int, ?::int) v`
        : `INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
           WITH RECURSIVE s(v) AS (SELECT ? UNION ALL SELECT v + 1 FROM s WHERE v < ?)
           SELECT ?, 'g' || v, 'https://bench.example/' || v, 'Title ' || v, '<p>Body</p>', 1, 1, 1, 'h' FROM s`;
      if (pg) await testSql(app).prepare(sql).run(feed, first, next);
      else await testSql(app).prepare(sql).run(first, next, feed);
    });
    return performance.now() - t0;
  };
  const times: number[][] = [[], []];
  for (let round = 0; round < 300; round++)
    for (const k of round % 2 ? [0, 1] : [1, 0]) times[k]!.push(await insert50(k ? without : withTrigger, feeds[k]!));
  const [a, b] = times.map(median) as [number, number];
  console.log(
    `store 50 items in one transaction (p50, 300 alternating rounds): with backlog trigger ${a.toFixed(3)} ms, without ${b.toFixed(3)} ms, ratio ${(a / b).toFixed(2)}x`,
  );
  await withTrigger.close();
  await without.close();
}

async function revalidationCost(): Promise<void> {
  const app = await open();
  const s = app.store;
  const catalog = new ChangeGated(s.changes, () => s.readerLabels.catalogVersion());
  const items = new ChangeGated(s.changes, () => s.streams.itemsVersion());
  const index = new ChangeGated(s.changes, () => s.searchIndex.state());
  // Let the PostgreSQL listener connect (until then every call reads).
  for (let i = 0; i < 100; i++) {
    s.changes.generation();
    await new Promise((r) => setTimeout(r, 10));
  }
  const n = s.backend === 'postgres' ? 2000 : 20_000;
  const perCall = async (f: () => Promise<unknown>) => {
    // Each "request" in its own event-loop turn, as the server's are (the SQLite signal reads
    // data_version once per turn); the turn change costs both sides the same.
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await f();
      await new Promise((r) => setImmediate(r));
    }
    return ((performance.now() - t0) * 1000) / n;
  };
  for (let round = 0; round < 3; round++) {
    const reads = await perCall(async () => {
      await s.readerLabels.catalogVersion();
      await s.streams.itemsVersion();
      await s.searchIndex.state();
    });
    const gated = await perCall(async () => {
      await catalog.get();
      await items.get();
      await index.get();
    });
    console.log(
      `revalidate per request, round ${round + 1}: 3 reads ${reads.toFixed(2)} µs, change-gated ${gated.toFixed(2)} µs, ratio ${(gated / reads).toFixed(3)}x`,
    );
  }
  await app.close();
}

const { loadavg } = await import('node:os');
console.log(`backend: ${BASE_URL ? 'postgres' : 'sqlite'}, load average ${loadavg()[0]!.toFixed(1)}`);
await ingestCost();
await revalidationCost();
