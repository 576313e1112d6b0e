// The index build at several batch sizes, alternated in one run (issue 26): a generated corpus
// (bench/search/scale.ts) is indexed once through the backlog drain, then `reindexAll` rebuilds
// it with each batch size in turn, the order rotated per round, so load on the shared machine
// hits every size alike. 500 is the drain's batch (and main's `tidings search reindex`).
//
//   node bench/search-build.bench.ts [--passages 100k] [--rounds 2] [--batches 500,2000,5000]
//                                    [--backend sqlite|postgres] [--database-url postgres://…]
import { reindexAll } from '../src/search/indexing.ts';
import { flagValue } from './backend.ts';
import { buildBenchIndex, loadAverage as load } from './search/build-bench.ts';

const argv = process.argv.slice(2);
const rounds = Number(flagValue(argv, 'rounds') ?? 2);
const batches = (flagValue(argv, 'batches') ?? '500,2000,5000').split(',').map(Number);
const { index, backend } = await buildBenchIndex(argv, {
  passages: '100k',
  usage: 'node bench/search-build.bench.ts [--passages 100k] [--rounds 2] [--batches 500,2000,5000]',
  valid: () => rounds >= 1 && batches.every((b) => Number.isInteger(b) && b > 0),
});
console.log(
  `${backend.backend}: ${index.passages} passages (${index.articles} articles); drain build ${(index.built / index.buildSeconds).toFixed(0)} passages/s (load ${load()})`,
);
const seconds = new Map<number, number[]>(batches.map((b) => [b, []]));
// This process's CPU as well as the wall time: on a machine shared with other work, CPU time
// moves far less with the load (on PostgreSQL it leaves out the server's share).
const cpuSeconds = new Map<number, number[]>(batches.map((b) => [b, []]));
try {
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (let k = 0; k < batches.length; k++) {
      const batch = batches[(r + k) % batches.length]!;
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const out = await reindexAll(index.app, { batchSize: batch });
      const s = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1e6;
      seconds.get(batch)!.push(s);
      cpuSeconds.get(batch)!.push(cpu);
      line.push(
        `batch ${batch}: ${s.toFixed(1)} s, CPU ${cpu.toFixed(1)} s (${Math.round(out.passages / s)} passages/s)`,
      );
    }
    const base = seconds.get(batches[0]!)![r]!;
    const baseCpu = cpuSeconds.get(batches[0]!)![r]!;
    console.log(
      `round ${r + 1}: ${line.join('; ')}; vs batch ${batches[0]}: ${batches
        .slice(1)
        .map(
          (b) =>
            `${b} ${(base / seconds.get(b)![r]!).toFixed(2)}x the speed, ${(cpuSeconds.get(b)![r]! / baseCpu).toFixed(2)}x the CPU`,
        )
        .join(', ')} (load ${load()})`,
    );
  }
} finally {
  await index.app.close();
  backend.stop();
}
