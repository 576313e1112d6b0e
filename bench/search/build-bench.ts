// What the index build benches share (search-build.bench.ts, search-rebuild-repeat.bench.ts): the
// options checked before anything runs, the news corpus (skipped without it), the backend, and a
// generated corpus indexed once through the backlog drain (./scale.ts).
import { loadavg } from 'node:os';
import { SHARED } from '../../test/helpers.ts';
import { loadNews, newsCorpusDir } from './news-corpus.ts';
import { openScaleIndex, type ScaleIndex } from './scale.ts';
import { type BenchBackend, benchBackend, flagValue } from '../backend.ts';
import { scaleSizes } from '../search.bench.ts';

/** The load average, as the benches print it. */
export const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

/**
 * The generated index of `--passages` (default `passages`), built on the bench's backend. Exits
 * with the usage when `valid()` refuses the options (or --passages is not a size), and with
 * "skipped" when the news corpus is absent.
 */
export async function buildBenchIndex(
  argv: string[],
  opts: { passages: string; usage: string; valid: () => boolean; backends?: BenchBackend[] },
): Promise<{ index: ScaleIndex; backend: Awaited<ReturnType<typeof benchBackend>> }> {
  const passages = scaleSizes(flagValue(argv, 'passages') ?? opts.passages)?.[0];
  if (!passages || !opts.valid()) {
    console.error(`usage: ${opts.usage}`);
    process.exit(2);
  }
  const dir = newsCorpusDir(SHARED);
  if (!dir) {
    console.log(`skipped: ${SHARED}/corpus/news is not present`);
    process.exit(0);
  }
  const backend = await benchBackend(argv, opts.backends);
  const { articles } = loadNews(dir);
  return { index: await openScaleIndex(passages, articles, () => {}, undefined, backend.databaseUrl), backend };
}
