// The hot id-list queries keep a good plan on a database without statistics (never analyzed, as
// every database was before PRAGMA optimize ran), and openDatabase gathers statistics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { migrate, openDatabase, type Db } from './db.ts';
import { SqliteStreamRepository } from './streams.ts';
import { SqliteReaderLabelRepository } from './reader-labels.ts';
import { SqliteSearchIndex } from './search-index.ts';
import { SqliteChangeSignal } from './change-signal.ts';

function fill(db: Db, items: number): void {
  db.exec(`INSERT INTO users (id, username, password_hash, created_at) VALUES (1, 'a', 'x', 0), (2, 'b', 'x', 0)`);
  db.exec('BEGIN');
  for (let f = 1; f <= 50; f++) {
    db.prepare('INSERT INTO feeds (id, url, created_at) VALUES (?, ?, 0)').run(f, `https://example.org/${f}.xml`);
    db.prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (1, ?, 0)').run(f);
  }
  const item = db.prepare(
    `INSERT INTO items (id, feed_id, guid, title, published_at, updated_at, crawled_us, content_hash) VALUES (?, ?, ?, 't', 0, 0, ?, 'h')`,
  );
  for (let i = 1; i <= items; i++) item.run(i, (i % 50) + 1, `g${i}`, i);
  db.exec(
    'INSERT INTO user_items (user_id, item_id, feed_id, crawled_us) SELECT 1, id, feed_id, crawled_us FROM items',
  );
  db.exec('COMMIT');
}

/** A migrated database in a fresh folder with `items` items (fill), handed to `run`, then removed. */
async function withFilledDb(items: number, run: (db: DatabaseSync) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-plans-'));
  const db = new DatabaseSync(join(dir, 't.db'));
  try {
    migrate(db);
    fill(db, items);
    await run(db);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A handle that records the SQL text of every statement prepared through it. */
function recording(db: Db, seen: string[]): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare')
        return (sql: string) => {
          seen.push(sql);
          return target.prepare(sql);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

test('stream/items/contents and origin lookups drive from the id list without statistics', async () => {
  await withFilledDb(5000, async (db) => {
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() as { n: number }).n,
      0,
      'never analyzed',
    );
    const seen: string[] = [];
    const streams = new SqliteStreamRepository(recording(db, seen));
    const labels = new SqliteReaderLabelRepository(recording(db, seen));
    const ids = [4999, 17, 2500, 99999];
    assert.deepEqual(
      (await streams.statesByIds(1, ids)).map((s) => s.itemId),
      [4999, 17, 2500],
      'in the order asked, unknown ids left out',
    );
    assert.deepEqual(await streams.statesByIds(2, ids), [], "another user's items are not served");
    assert.deepEqual([...(await labels.origins(1, [3, 1, 2])).keys()].sort(), [1, 2, 3]);
    const joins = seen.filter((sql) => /FROM json_each\(\?\) j/.test(sql));
    assert.equal(joins.length, 2, 'both id-list joins were run');
    for (const sql of joins) {
      const params = sql.includes('user_items') ? [JSON.stringify(ids), 1] : [JSON.stringify([3, 1, 2]), 1];
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
        (r) => r.detail,
      );
      assert.match(plan[0]!, /^SCAN j\b/, `the id list is the outer loop:\n${plan.join('\n')}`);
      assert.ok(
        plan.slice(1).every((d) => !/^SCAN /.test(d) && !/\(user_id=\?\)$/.test(d)),
        `only keyed lookups inside:\n${plan.join('\n')}`,
      );
    }
  });
});

test('openDatabase gathers statistics for tables that have none (PRAGMA optimize on open)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-optimize-'));
  const file = join(dir, 't.db');
  try {
    const raw = new DatabaseSync(file);
    migrate(raw);
    fill(raw, 2000);
    raw.close();
    const db = openDatabase(file);
    const analyzed = (db.prepare('SELECT DISTINCT tbl FROM sqlite_stat1').all() as { tbl: string }[]).map((r) => r.tbl);
    db.close();
    for (const t of ['user_items', 'items', 'subscriptions'])
      assert.ok(analyzed.includes(t), `${t} analyzed: ${analyzed}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the unread page and the rows of a folder page come from their index alone, no row lookups', async () => {
  await withFilledDb(3000, async (db) => {
    db.exec(
      'UPDATE user_items SET read = 1 WHERE item_id % 3 = 0; UPDATE user_items SET starred = 1 WHERE item_id % 7 = 0',
    );
    const seen: string[] = [];
    const streams = new SqliteStreamRepository(recording(db, seen));
    const base = { userId: 1, newestFirst: true, limit: 1001 } as const;
    const planOf = (sql: string, params: (string | number)[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);

    const unread = await streams.statesPage({ ...base, where: [{ kind: 'state', column: 'read', value: 0 }] });
    assert.equal(unread.length, 1001);
    assert.ok(
      unread.every((r) => !r.read && r.feedId === (r.itemId % 50) + 1),
      'feeds read from the index',
    );
    assert.ok(unread.some((r) => r.starred) && unread.some((r) => !r.starred), 'flags read from the index');
    let plan = planOf(seen.at(-1)!, [1, 1001]);
    assert.equal(plan.length, 1, `one step:\n${plan.join('\n')}`);
    assert.match(plan[0]!, /USING COVERING INDEX user_items_read\b/, plan.join('\n'));

    // A folder of 2 feeds out of 50: the rows are picked by feed from user_items_all, in crawl order.
    seen.length = 0;
    const feeds = [5, 9];
    const folder = await streams.statesPage({ ...base, where: [{ kind: 'feeds', feedIds: feeds, negate: false }] });
    assert.equal(folder.length, 120);
    assert.ok(folder.every((r) => feeds.includes(r.feedId)));
    plan = planOf(seen.at(-1)!, [1, JSON.stringify(feeds), 1001, 1]);
    const pick = plan.find((d) => /user_items_all/.test(d));
    assert.ok(pick, `the folder's rows come from user_items_all:\n${plan.join('\n')}`);
    assert.match(pick, /USING COVERING INDEX user_items_all\b/, `without a row lookup per entry:\n${plan.join('\n')}`);
  });
});

test("a search's hit metadata comes from items_search_meta alone: no row lookup, no walk past the body", async () => {
  await withFilledDb(300, async (db) => {
    // Bodies over several pages, with the columns after them set: what the index must carry.
    db.exec(`UPDATE items SET content = printf('%.*c', 9000 + id, 'x'), url = 'https://example.org/a/' || id,
      image_url = CASE WHEN id % 2 THEN 'https://example.org/i/' || id || '.jpg' END, published_at = 1000 + id,
      updated_at = 2000 + id, title = 'Title ' || id`);
    const seen: string[] = [];
    const search = new SqliteSearchIndex(recording(db, seen), new SqliteChangeSignal(db));
    const ids = [7, 8, 150, 299, 1000];
    const got = await search.articles(ids);
    const expected = db
      .prepare(
        `SELECT i.id, coalesce(i.url, '') AS url, i.title, coalesce(f.title, f.url) AS feedTitle, i.published_at AS publishedAt,
         i.updated_at AS updatedAt, i.image_url AS imageUrl FROM items i NOT INDEXED JOIN feeds f ON f.id = i.feed_id
         WHERE i.id IN (7, 8, 150, 299) ORDER BY i.id`,
      )
      .all();
    assert.deepEqual(
      got.map((m) => ({ ...m })).sort((a, b) => a.id - b.id),
      expected.map((m) => ({ ...m })),
    );
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${seen.at(-1)!}`).all(JSON.stringify(ids)) as { detail: string }[]
    ).map((r) => r.detail);
    const items = plan.find((d) => /\bi\b/.test(d) && /items/.test(d));
    assert.ok(items, plan.join('\n'));
    assert.match(items, /USING COVERING INDEX items_search_meta\b/, plan.join('\n'));
  });
});
