// The backlog drain's build rate with each way of preparing its batches, alternated in one run
// (issue 26): a generated corpus (bench/search/scale.ts) is indexed once; then, per round, the
// index is emptied, every item queued again, and drained by a BacklogDrain of each kind in turn
// (order rotated per round, so load on the shared machine hits each alike):
// - inside: each batch prepared in its own write transaction (main before batches were prepared ahead);
// - ahead: prepared on the main thread before the transaction opens (searchIndexWorker false);
// - worker: the next batch prepared on a worker thread while the current one is written (the default).
// Wall time and this process's CPU (every thread's, the worker's included).
//
//   node bench/search-drain.bench.ts [--passages 50k] [--rounds 3] [--backend sqlite|postgres] [--database-url …]
import { BacklogDrain, PrepareAhead } from '../src/search/indexing.ts';
import { PrepareThread } from '../src/search/prepare-thread.ts';
import { testSql } from '../src/store/testing.ts';
import { flagValue } from './backend.ts';
import { buildBenchIndex, loadAverage as load } from './search/build-bench.ts';

const argv = process.argv.slice(2);
const rounds = Number(flagValue(argv, 'rounds') ?? 3);
const { index, backend } = await buildBenchIndex(argv, {
  passages: '50k',
  usage: 'node bench/search-drain.bench.ts [--passages 50k] [--rounds 3] [--backend sqlite|postgres]',
  valid: () => rounds >= 1,
});
const { app } = index;
const store = app.store;
const repo = store.searchIndex;
console.log(`${backend.backend}: ${index.passages} passages (${index.articles} articles) (load ${load()})`);
const thread = new PrepareThread();
const variants: [string, () => PrepareAhead | null][] = [
  ['inside', () => null],
  ['ahead', () => new PrepareAhead()],
  ['worker', () => new PrepareAhead((sources) => thread.run(sources))],
];
const wall = new Map<string, number[]>(variants.map(([v]) => [v, []]));
const cpu = new Map<string, number[]>(variants.map(([v]) => [v, []]));
try {
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (let k = 0; k < variants.length; k++) {
      const [name, ahead] = variants[(r + k) % variants.length]!;
      await store.transaction(async () => {
        await repo.lockForWriting();
        await repo.deleteAll();
        await repo.setRebuildCursor(null);
      });
      await testSql(app).prepare('INSERT INTO search_index_backlog (item_id, queued_at) SELECT id, 0 FROM items').run();
      const drain = new BacklogDrain(
        store,
        (e) => {
          throw e;
        },
        () => {},
        1,
        ahead(),
      );
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await drain.flush();
      const s = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const passages = await repo.passageCount();
      if (passages !== index.passages) throw new Error(`${name}: ${passages} passages, expected ${index.passages}`);
      wall.get(name)!.push(s);
      cpu.get(name)!.push((c.user + c.system) / 1e6);
      line.push(
        `${name} ${s.toFixed(1)} s, CPU ${((c.user + c.system) / 1e6).toFixed(1)} s (${Math.round(passages / s)} passages/s)`,
      );
    }
    const ratio = (v: string) =>
      `${v} ${(wall.get('inside')![r]! / wall.get(v)![r]!).toFixed(2)}x the speed, ${(cpu.get(v)![r]! / cpu.get('inside')![r]!).toFixed(2)}x the CPU`;
    console.log(
      `round ${r + 1}: ${line.join('; ')}; vs inside: ${ratio('ahead')}, ${ratio('worker')} (load ${load()})`,
    );
  }
} finally {
  await thread.close();
  await app.close();
  backend.stop();
}
