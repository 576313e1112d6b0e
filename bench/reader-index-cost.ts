// What migration 157's indexes cost and save, on SQLite, measured in one process: a generated
// library (bench/library.ts) in two copies, one with the index definitions from before 157, one as
// migrated; the page reads and a 1,000-id read flip through the real repositories, the two copies in
// turns, CPU time (process.cpuUsage) per operation, median of the turns.
//
//   node bench/reader-index-cost.ts [--items 100000] [--feeds 2000] [--turns 12]
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateLibrary } from './library.ts';
import { flagValue } from './backend.ts';
import { openDatabase } from '../src/store/sqlite/db.ts';
import { SqliteStreamRepository } from '../src/store/sqlite/streams.ts';
import { SqliteItemStateRepository } from '../src/store/sqlite/item-states.ts';
import { tempDataDir } from '../test/helpers.ts';
import type { ItemCondition, StreamPageQuery } from '../src/model/stream.ts';

const argv = process.argv.slice(2);
const ITEMS = Number(flagValue(argv, 'items') ?? 100000);
const FEEDS = Number(flagValue(argv, 'feeds') ?? 2000);
const TURNS = Number(flagValue(argv, 'turns') ?? 12);
const dir = tempDataDir('tidings-index-cost-');
try {
  generateLibrary(dir, { feeds: FEEDS, items: ITEMS, username: 'bench', passwordHash: 'x' });
  copyFileSync(join(dir, 'tidings.db'), join(dir, 'before.db'));
  const before = openDatabase(join(dir, 'before.db'));
  // The definitions migration 157 replaced (001_core).
  before.exec(`DROP INDEX user_items_all; CREATE INDEX user_items_all ON user_items(user_id, crawled_us, item_id);
    DROP INDEX user_items_read; CREATE INDEX user_items_read ON user_items(user_id, read, crawled_us, item_id);
    ANALYZE`);
  const after = openDatabase(join(dir, 'tidings.db'));
  after.exec('ANALYZE');
  const sides = { before, after };
  const page = (where: ItemCondition[]): StreamPageQuery => ({ userId: 1, where, newestFirst: true, limit: 1001 });
  const ids = Array.from({ length: 1000 }, (_, i) => ITEMS - i * 3);
  const ops: Record<string, { reps: number; run: (db: typeof before) => Promise<unknown> }> = {
    'reading list page (1,001 rows)': { reps: 40, run: (db) => new SqliteStreamRepository(db).statesPage(page([])) },
    'unread page (1,001 rows)': {
      reps: 40,
      run: (db) => new SqliteStreamRepository(db).statesPage(page([{ kind: 'state', column: 'read', value: 0 }])),
    },
    'folder of 2 feeds page': {
      reps: 10,
      run: (db) => new SqliteStreamRepository(db).statesPage(page([{ kind: 'feeds', feedIds: [5, 9], negate: false }])),
    },
    'folder of 20 feeds page': {
      reps: 10,
      run: (db) =>
        new SqliteStreamRepository(db).statesPage(
          page([{ kind: 'feeds', feedIds: Array.from({ length: 20 }, (_, i) => i * 7 + 1), negate: false }]),
        ),
    },
    'read flip of 1,000 ids (read, then unread)': {
      reps: 5,
      run: async (db) => {
        const states = new SqliteItemStateRepository(db);
        await states.setState(1, 'read', 1, ids);
        await states.setState(1, 'read', 0, ids);
      },
    },
    'star flip of 1,000 ids (star, then unstar)': {
      reps: 5,
      run: async (db) => {
        const states = new SqliteItemStateRepository(db);
        await states.setState(1, 'starred', 1, ids);
        await states.setState(1, 'starred', 0, ids);
      },
    },
  };
  console.log(`${ITEMS} items, ${FEEDS} feeds, ${TURNS} turns; CPU ms per operation, median (min)`);
  for (const [name, op] of Object.entries(ops)) {
    const cpu: Record<string, number[]> = { before: [], after: [] };
    for (let turn = 0; turn < TURNS; turn++)
      for (const [side, db] of turn % 2 ? Object.entries(sides) : Object.entries(sides).reverse()) {
        await op.run(db);
        const c0 = process.cpuUsage();
        for (let i = 0; i < op.reps; i++) await op.run(db);
        const c = process.cpuUsage(c0);
        cpu[side]!.push((c.user + c.system) / 1000 / op.reps);
      }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    const b = med(cpu.before!);
    const a = med(cpu.after!);
    console.log(
      `  ${name.padEnd(44)} before ${b.toFixed(2)} (${Math.min(...cpu.before!).toFixed(2)})  after ${a.toFixed(2)} (${Math.min(...cpu.after!).toFixed(2)})  ${(a / b).toFixed(2)}x`,
    );
  }
  before.close();
  after.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
