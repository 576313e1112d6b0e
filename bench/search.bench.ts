// npm run bench:search — search quality on the news corpus (RealTime QA questions against every
// article), then latency and index build rate on a generated corpus.
//
//   node bench/search.bench.ts                 quality + 100k passages
//   node bench/search.bench.ts --scale 1m      also 1M passages (≈15 min, ~2 GB of disk in /tmp)
//   node bench/search.bench.ts --no-scale      quality only
//   node bench/search.bench.ts --no-quality    scale only
//   node bench/search.bench.ts --no-quality --scale 1m --data DIR   keep the generated index in DIR and
//                                              reuse it next time (the build is measured only once)
//   node bench/search.bench.ts --no-quality --database-url postgres://…   the scale run on PostgreSQL
//                                              (an empty database; with --data, reused next time)
//   node bench/search.bench.ts --no-quality --backend postgres    the same on a throwaway cluster
//   node bench/search.bench.ts --no-quality --backend both [--database-url postgres://…] [--data DIR]
//                                              SQLite and PostgreSQL side by side, each question asked
//                                              of both in turn (PostgreSQL's index: a copy of the SQLite
//                                              one made with `tidings db copy` builds fastest)
//   --scale 1m,2m,4m                           several sizes, each built in turn (200k, 2.5m: any size)
//   --no-100k                                  with --scale: the listed sizes only (one PostgreSQL database
//                                              holds one size: reuse it for 1M alone)
//
// The pieces are exported (bench/search/*.ts) so other benchmarks can reuse the built index.
import { SHARED, tempDataDir } from '../test/helpers.ts';
import { loadNews, newsCorpusDir } from './search/news-corpus.ts';
import { baselineRun, buildNewsIndex, rankedRun } from './search/quality.ts';
import { measureLatency, openScaleIndex, runScale, type ScaleIndex } from './search/scale.ts';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Quality } from './search/metrics.ts';
import type { RankingOptions } from '../src/search/ranking.ts';
import { benchBackend } from './backend.ts';

export { loadNews, buildNewsIndex, baselineRun, rankedRun, runScale };

/** The ranking ideas measured, each as changes to the default ranking. */
export const VARIANTS: [string, Partial<RankingOptions>][] = [
  ['article BM25 only (no passage bonus)', { passageWeight: 0 }],
  ['title weight 1 (instead of 3)', { titleWeight: 1 }],
  ['passage bonus 0.5 (instead of 0.3)', { passageWeight: 0.5 }],
  ['URL path words as a field (weight 1)', { urlWeight: 1 }],
  ['plain BM25 (no BM25+ bonus)', { delta: 0 }],
  ['BM25+ bonus 0.5', { delta: 0.5 }],
  ['k1 0.9', { k1: 0.9 }],
];

function fmt(q: Quality, base?: Quality): string {
  const d = (a: number, b?: number) => (b === undefined ? '' : ` (${a - b >= 0 ? '+' : ''}${(a - b).toFixed(3)})`);
  return `recall@10 ${q.recall10.toFixed(3)}${d(q.recall10, base?.recall10)}  success@5 ${q.success5.toFixed(3)}${d(q.success5, base?.success5)}  MRR@10 ${q.mrr10.toFixed(3)}${d(q.mrr10, base?.mrr10)}`;
}

const USAGE = `npm run bench:search [-- options]: search quality on the news corpus, then latency and build rate
  (no option)               quality + 100k generated passages
  --scale 1m                also 1M passages (about 15 min, ~2 GB of disk in /tmp); sizes may be
                            listed: --scale 1m,2m,4m (each built in turn; k = thousand, m = million)
  --no-100k                 with --scale: the listed sizes only
  --no-scale                quality only
  --no-quality              scale only
  --data DIR                keep the generated index in DIR and reuse it next time
  --backend sqlite|postgres|both   the scale run's backend (postgres: a throwaway cluster)
  --database-url URL        the scale run on this PostgreSQL database
  --index-worker            build with searchIndexWorker on (batches prepared on a worker thread)
  --help, -h                this text`;

const FLAGS = new Set([
  '--scale',
  '--no-100k',
  '--no-scale',
  '--no-quality',
  '--data',
  '--backend',
  '--database-url',
  '--index-worker',
]);
const WITH_VALUE = new Set(['--scale', '--data', '--backend', '--database-url']);

/** The options' problem, or null: an unknown option must not start a run of many minutes. */
export function checkArgs(argv: string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!FLAGS.has(a)) return `unknown option ${JSON.stringify(a)}`;
    if (WITH_VALUE.has(a) && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--'))) return `${a} needs a value`;
    if (WITH_VALUE.has(a)) i++;
  }
  const scale = argv.indexOf('--scale');
  if (scale >= 0 && !scaleSizes(argv[scale + 1]!))
    return `--scale takes sizes such as 1m or 200k,2m,4m, got ${JSON.stringify(argv[scale + 1])}`;
  return null;
}

/** `--scale` sizes in passages ("1m", "200k,2m,4m"), or null when one is not a size. */
export function scaleSizes(arg: string): number[] | null {
  const sizes = arg.split(',').map((s) => {
    const m = /^(\d+(?:\.\d+)?)([km])$/.exec(s.trim().toLowerCase());
    return m ? Math.round(Number(m[1]) * (m[2] === 'k' ? 1_000 : 1_000_000)) : Number.NaN;
  });
  return sizes.every((n) => n >= 1_000) ? sizes : null;
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const problem = checkArgs(argv);
  if (problem) {
    console.error(`${problem}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const dir = newsCorpusDir(SHARED);
  if (!dir) {
    console.log(`skipped: ${SHARED}/corpus/news is not present`);
    return;
  }
  const { articles, questions } = loadNews(dir);
  if (!argv.includes('--no-quality')) {
    console.log(`## Quality: ${articles.length} articles, ${questions.length} questions, top 10 articles per question`);
    const index = await buildNewsIndex(articles);
    console.log(
      `index: ${index.passages} passages from ${articles.length} articles in ${index.buildSeconds.toFixed(1)} s (${Math.round(index.passages / index.buildSeconds)} passages/s)`,
    );
    const baseline = await baselineRun(index, articles, questions);
    console.log(`baseline, plain FTS5 bm25 over title+text, words OR-ed   ${fmt(baseline)}`);
    const ours = await rankedRun(index, questions);
    console.log(
      `tidings ranking (default)                                ${fmt(ours, baseline)}  p50 ${ours.p50Ms.toFixed(1)} ms`,
    );
    for (const [name, opts] of VARIANTS) {
      const v = await rankedRun(index, questions, opts);
      console.log(`  variant: ${name.padEnd(60)} ${fmt(v, ours)}  p50 ${v.p50Ms.toFixed(1)} ms`);
    }
    const asOf = await rankedRun(index, questions, {}, { asOfQuestionDate: true });
    console.log(
      `tidings ranking, index as of each question's date (articles published later filtered out)  ${fmt(asOf, baseline)}`,
    );
    await index.app.close();
  }
  if (!argv.includes('--no-scale')) {
    const backend = await benchBackend(argv, ['sqlite', 'postgres', 'both']);
    const sizes = [
      ...(argv.includes('--no-100k') ? [] : [100_000]),
      ...(argv.includes('--scale') ? scaleSizes(argv[argv.indexOf('--scale') + 1]!)! : []),
    ];
    const load = () =>
      `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(', ')}`;
    // Several sizes with --data: one folder (database) grown from each size to the next, so a
    // 4M index costs the 4M build, not 1M + 2M + 4M.
    const grow = sizes.length > 1;
    const dataArg = argv.includes('--data')
      ? argv[argv.indexOf('--data') + 1]
      : grow
        ? join(tempDataDir('tidings-bench-scale-'), 'index')
        : undefined;
    for (const size of sizes) {
      console.log(`## Scale: ${size.toLocaleString('en')} generated passages (${load()})`);
      const dbArg = backend.databaseUrl || undefined;
      if (dbArg) console.log(`PostgreSQL: ${dbArg.replace(/:[^:@/]*@/, ':***@')}`);
      const sides: { name: string; dataDir?: string; databaseUrl?: string }[] =
        backend.backend === 'both'
          ? [
              { name: 'SQLite', dataDir: dataArg && `${dataArg}-${grow ? 'grown' : size}` },
              { name: 'PostgreSQL', dataDir: dataArg && `${dataArg}-${grow ? 'grown' : size}-pg`, databaseUrl: dbArg },
            ]
          : [
              {
                name: dbArg ? 'PostgreSQL' : 'SQLite',
                dataDir: dataArg && `${dataArg}-${grow ? 'grown' : size}`,
                databaseUrl: dbArg,
              },
            ];
      const indexes: ScaleIndex[] = [];
      try {
        for (const side of sides) {
          const r = await openScaleIndex(
            size,
            articles,
            (s) => console.log(s),
            side.dataDir,
            side.databaseUrl,
            argv.includes('--index-worker') ? { searchIndexWorker: true } : {},
          );
          indexes.push(r);
          if (r.buildSeconds > 0)
            console.log(
              `${side.name} index build: ${r.built} passages in ${r.buildSeconds.toFixed(1)} s = ${Math.round(r.built / r.buildSeconds)} passages/s, now ${r.passages} passages (${r.articles} articles), ${(r.bytes / 2 ** 30).toFixed(2)} GiB on disk`,
            );
          else console.log(`${side.name} index reused: ${r.passages} passages (${r.articles} articles)`);
          if (r.postingsTable) console.log(r.postingsTable);
        }
        const latency = await measureLatency(indexes, questions);
        for (const [i, side] of sides.entries())
          for (const l of latency[i]!)
            console.log(
              `${side.name} search latency (${l.scope} scope, limit 10, ${questions.length} questions): p50 ${l.p50.toFixed(1)} ms  p99 ${l.p99.toFixed(1)} ms  mean ${l.mean.toFixed(1)} ms`,
            );
        if (sides.length === 2)
          for (const [s, l] of latency[1]!.entries())
            console.log(`PostgreSQL / SQLite, ${l.scope} scope: p50 ${(l.p50 / latency[0]![s]!.p50).toFixed(2)}x`);
        console.log(`(${load()})`);
      } finally {
        for (const ix of indexes) await ix.app.close();
      }
    }
    backend.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
