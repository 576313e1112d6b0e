// Full rebuilds in a row on PostgreSQL (a second or third `tidings search reindex` in one process
// passed the 60 s statement timeout in appendPostings at load 9-20). A generated corpus is indexed
// once through the backlog drain; then, per round, `--rebuilds` rebuilds emptied as main did
// (DELETE of every index row, the baseline, replicated here) and `--rebuilds` through the store's
// own `reindexAll`, in the same run. Per rebuild: wall time, time in the postings statements (and
// the slowest), the postings table's dead rows right after emptying, its size, and EXPLAIN (ANALYZE,
// BUFFERS) of one postings statement midway (run in a savepoint and rolled back, then the real one).
//
//   node bench/search-rebuild-repeat.bench.ts [--passages 50k] [--rebuilds 3] [--rounds 1]
//                                             [--database-url postgres://…]
import { finishPendingRebuild } from '../src/search/indexing.ts';
import { testSql } from '../src/store/testing.ts';
import { flagValue } from './backend.ts';
import { buildBenchIndex, loadAverage as load } from './search/build-bench.ts';

const argv = process.argv.slice(2);
const rebuilds = Number(flagValue(argv, 'rebuilds') ?? 3);
const rounds = Number(flagValue(argv, 'rounds') ?? 1);
const { index, backend } = await buildBenchIndex(argv, {
  passages: '50k',
  usage: 'node bench/search-rebuild-repeat.bench.ts [--passages 50k] [--rebuilds 3] [--rounds 1]',
  valid: () => rebuilds >= 1 && rounds >= 1,
  backends: ['postgres'],
});
const { app } = index;
console.log(`postgres: ${index.passages} passages (${index.articles} articles) (load ${load()})`);
const sql = testSql(app);

// The postings statement's time, and a plan of one of them per rebuild: the store's statements go
// through its PgDatabase (inside the batch's transaction), so they are watched there.
type Db = { query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
const db = (app.store.searchIndex as unknown as { db: Db }).db;
const query = db.query.bind(db);
let appendMs = 0,
  slowestMs = 0,
  appends = 0,
  explainAt = -1,
  plan = '',
  slowestPlan = '',
  slowestAt = -1;
// The baseline as main ran it: no ANALYZE at a rebuild's first batch (the store's fix).
let baseline = false;
const exec = (db as unknown as { exec(sql: string): Promise<void> }).exec.bind(db);
(db as unknown as { exec(sql: string): Promise<void> }).exec = (text: string) =>
  baseline && text.startsWith('ANALYZE search_postings') ? Promise.resolve() : exec(text);
/** The postings statement's parameters (text[], bytea[], int[]) as SQL literals. */
function literal(v: unknown): string {
  const list = v as unknown[];
  const type = typeof list[0] === 'string' ? 'text' : Buffer.isBuffer(list[0]) ? 'bytea' : 'int';
  const items = list.map((x) =>
    typeof x === 'string'
      ? `'${x.replaceAll("'", "''")}'`
      : Buffer.isBuffer(x)
        ? `'\\x${x.toString('hex')}'`
        : String(x),
  );
  return items.length ? `ARRAY[${items.join(',')}]::${type}[]` : `'{}'::${type}[]`;
}
const nameOf = (db as unknown as { nameOf(sql: string): string }).nameOf.bind(db);
/** EXPLAIN … EXECUTE of the store's own prepared statement (the pool's connections plan it once, generic), rolled back. */
async function explainPrepared(text: string, params: unknown[] | undefined, options: string): Promise<string> {
  await query('SAVEPOINT bench_explain');
  try {
    // EXECUTE's arguments are not parameters of the EXPLAIN statement: sent as literals.
    const args = (params ?? []).map(literal).join(', ');
    const rows = (await query(`EXPLAIN ${options} EXECUTE ${nameOf(text)}(${args})`)).rows;
    return rows.map((r) => String(Object.values(r)[0])).join('\n');
  } catch (e) {
    // Not prepared on this connection yet: its first execution plans it.
    return `(not prepared on this connection yet: ${(e as Error).message})`;
  } finally {
    await query('ROLLBACK TO SAVEPOINT bench_explain');
  }
}
db.query = async (text: string, params?: unknown[]) => {
  if (!text.trimStart().startsWith('WITH batch AS')) return query(text, params);
  // The plan each postings statement runs with (cheap: no execution), kept for the slowest.
  const estimated = await explainPrepared(text, params, '');
  const at = appends;
  if (appends++ === explainAt) plan = await explainPrepared(text, params, '(ANALYZE, BUFFERS, TIMING OFF)');
  const t0 = performance.now();
  try {
    return await query(text, params);
  } finally {
    const ms = performance.now() - t0;
    appendMs += ms;
    if (ms > slowestMs) {
      slowestMs = ms;
      slowestPlan = estimated;
      slowestAt = at;
    }
  }
};

const postingsStats = async () =>
  (await sql
    .prepare(
      `SELECT n_dead_tup AS dead, n_live_tup AS live, pg_total_relation_size('search_postings') AS bytes
         FROM pg_stat_user_tables WHERE relname = 'search_postings'`,
    )
    .get<{ dead: number; live: number; bytes: number }>())!;

/** main's deleteAll before this change: every index row DELETEd, in one transaction (and no ANALYZE at the first batch). */
async function emptyByDelete(): Promise<void> {
  await app.store.transaction(async () => {
    await app.store.searchIndex.lockForWriting();
    await sql.exec(`DELETE FROM search_passages; DELETE FROM search_articles; DELETE FROM search_postings;
        UPDATE search_index_state SET next_doc_no = 1, articles = 0, title_length = 0, body_length = 0, url_length = 0,
          removed = 0, compacted_removed = 0, epoch = epoch + 1, rebuild_after = 0, rebuild_until = (SELECT coalesce(max(id), 0) FROM items) WHERE id = 1;`);
  });
}

let batchesPerRebuild = 0;
async function rebuild(how: 'delete' | 'store', n: number): Promise<number> {
  appendMs = slowestMs = appends = 0;
  slowestAt = -1;
  explainAt = batchesPerRebuild ? Math.floor(batchesPerRebuild / 2) : 5;
  plan = '';
  // reindexAll's two steps, with the statistics read between them.
  baseline = how === 'delete';
  if (how === 'delete') await emptyByDelete();
  else
    await app.store.transaction(async () => {
      await app.store.searchIndex.lockForWriting();
      await app.store.searchIndex.deleteAll();
    });
  // What autovacuum does once it gets to the emptied tables (the first run of this bench met it
  // there by chance, and its next postings statement took 59 s): here at once, every time.
  if (argv.includes('--vacuum-after-emptying'))
    for (const table of ['search_postings', 'search_articles', 'search_passages'])
      await sql.exec(`VACUUM ANALYZE ${table}`);
  // The statistics collector reports a backend's counts within a second of its commit.
  await new Promise((r) => setTimeout(r, 1100));
  const emptied = await postingsStats();
  const t0 = performance.now();
  await finishPendingRebuild(app);
  const s = (performance.now() - t0) / 1000;
  batchesPerRebuild = appends;
  await new Promise((r) => setTimeout(r, 1100));
  const after = await postingsStats();
  console.log(
    `${how === 'delete' ? 'main (DELETE)' : 'this branch (TRUNCATE, ANALYZE)'} rebuild ${n}: ${s.toFixed(1)} s, postings statements ${(appendMs / 1000).toFixed(1)} s (${appends}, slowest ${(slowestMs / 1000).toFixed(2)} s); postings dead rows after emptying ${emptied.dead}, after the rebuild ${after.dead} dead / ${after.live} live, ${(after.bytes / 2 ** 20).toFixed(1)} MiB (load ${load()})`,
  );
  if (process.argv.includes('--plans'))
    console.log(
      `  statement ${explainAt + 1}, EXPLAIN (ANALYZE, BUFFERS):\n${plan.replace(/^/gm, '    ')}\n  the slowest, statement ${slowestAt + 1}, as planned:\n${slowestPlan.replace(/^/gm, '    ')}`,
    );
  else
    console.log(
      `  statement ${explainAt + 1}: ${plan
        .split('\n')
        .find((l) => l.includes('Buffers'))
        ?.trim()}, ${plan
        .split('\n')
        .find((l) => l.includes('Execution Time'))
        ?.trim()}; the slowest (statement ${slowestAt + 1}) planned ${/Index Scan using search_postings_pkey on search_postings p_1/.test(slowestPlan) ? 'with an index probe per chunk updated' : 'with no index probe for the chunks it updates (a nested loop over the batch)'}`,
    );
  return s;
}

try {
  for (let r = 0; r < rounds; r++) {
    const before: number[] = [];
    const after: number[] = [];
    for (let k = 1; k <= rebuilds; k++) before.push(await rebuild('delete', k));
    for (let k = 1; k <= rebuilds; k++) after.push(await rebuild('store', k));
    console.log(
      `round ${r + 1}: rebuild k / rebuild 1, DELETE-emptied: ${before.map((x) => (x / before[0]!).toFixed(2)).join(', ')}; reindexAll: ${after.map((x) => (x / after[0]!).toFixed(2)).join(', ')}; reindexAll vs DELETE-emptied per rebuild: ${after.map((x, k) => (before[k]! / x).toFixed(2)).join(', ')}x the speed (load ${load()})`,
    );
  }
} finally {
  await app.close();
  backend.stop();
}
