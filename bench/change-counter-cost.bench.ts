// What migration 195's triggers (SQLite: a row of counters bumped on every write to the tables the
// caches read, src/store/sqlite/change-signal.ts) cost the writes that fire them most: an index
// build writes a row per passage and per postings segment. `reindexAll` of a generated corpus
// (bench/search/scale.ts) with the triggers and with them dropped, alternated per round (the order
// flipped each round), in one process: this process's CPU and the wall time.
//
//   node bench/change-counter-cost.bench.ts [--passages 100k] [--rounds 4]
import { flagValue } from './backend.ts';
import { reindexAll } from '../src/search/indexing.ts';
import { testSql } from '../src/store/testing.ts';
import { buildBenchIndex, loadAverage as load } from './search/build-bench.ts';

const argv = process.argv.slice(2);
const rounds = Number(flagValue(argv, 'rounds') ?? 4);
const { index, backend } = await buildBenchIndex(argv, {
  passages: '100k',
  usage: 'node bench/change-counter-cost.bench.ts [--passages 100k] [--rounds 4]',
  valid: () => rounds >= 1,
  backends: ['sqlite'],
});
const sql = testSql(index.app);
const triggers = await sql
  .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%change_counter SET%'")
  .all<{ name: string; sql: string }>();
const setTriggers = async (on: boolean) => {
  for (const t of triggers) await sql.prepare(on ? t.sql : `DROP TRIGGER ${t.name}`).run();
};
console.log(
  `${index.passages} passages (${index.articles} articles), ${triggers.length} counting triggers (load ${load()})`,
);
const cpu = { with: 0, without: 0 };
const wall = { with: 0, without: 0 };
try {
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (const mode of r % 2 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
      if (mode === 'without') await setTriggers(false);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await reindexAll(index.app);
      const c = process.cpuUsage(c0);
      const s = (performance.now() - t0) / 1000;
      if (mode === 'without') await setTriggers(true);
      cpu[mode] += (c.user + c.system) / 1e6;
      wall[mode] += s;
      line.push(`${mode} ${s.toFixed(1)} s, CPU ${((c.user + c.system) / 1e6).toFixed(1)} s`);
    }
    console.log(`round ${r + 1}: ${line.join('; ')} (load ${load()})`);
  }
  console.log(
    `all rounds: with the triggers / without: CPU ${(cpu.with / cpu.without).toFixed(3)}x, wall ${(wall.with / wall.without).toFixed(3)}x`,
  );
} finally {
  await index.app.close();
  backend.stop();
}
