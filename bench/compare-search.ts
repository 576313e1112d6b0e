// Search latency of this checkout against another (e.g. the commit before a change), paired: both
// load the same index data, and queries alternate between them in one process, so machine load
// (other jobs on a shared box) hits both alike. The ratio is what to read, not the absolute ms.
//
//   node bench/search.bench.ts --no-quality --data /tmp/ab-index      # build (or reuse) the 100k index
//   git worktree add /tmp/base <commit> && ln -s $PWD/node_modules /tmp/base/node_modules
//   node bench/compare-search.ts --baseline /tmp/base --data /tmp/ab-index-100000 [--rounds 3]
//   … --database-url postgres://…     both checkouts on this PostgreSQL index (--data: any folder)
//   … --baseline-database-url postgres://…   the baseline on an index of its own (one its code
//     built: a change to how the index is written, compared at the same size)
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SHARED } from '../test/helpers.ts';
import { loadNews, newsCorpusDir } from './search/news-corpus.ts';
import { percentile } from './search/metrics.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const baseline = arg('baseline');
const dataDir = arg('data');
const rounds = Number(arg('rounds') ?? 3);
const databaseUrl = arg('database-url');
const baselineDatabaseUrl = arg('baseline-database-url') ?? databaseUrl;
if (!baseline || !dataDir) {
  console.error('usage: node bench/compare-search.ts --baseline <other checkout> --data <index data folder>');
  process.exit(2);
}
const dir = newsCorpusDir(SHARED);
if (!dir) {
  console.log(`skipped: ${SHARED}/corpus/news is not present`);
  process.exit(0);
}
const { questions } = loadNews(dir);

interface Side {
  name: string;
  search(text: string, scope: unknown): Promise<unknown>;
  close(): Promise<void>;
}

async function side(root: string, name: string, databaseUrl: string | undefined): Promise<Side> {
  // createApp moved from src/app.ts to src/server/create-app.ts; an older checkout has the former.
  const composition = ['src/server/create-app.ts', 'src/app.ts'].find((f) => existsSync(join(root, f)))!;
  const { createApp } = await import(join(root, composition));
  const { loadConfig } = await import(join(root, 'src/config/config.ts'));
  const { LocalIndexProvider } = await import(join(root, 'src/search/local-provider.ts'));
  const { searchIndexRepository } = await import(join(root, 'src/search/indexing.ts'));
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir, logLevel: 'warn', ...(databaseUrl ? { databaseUrl } : {}) } }),
  );
  // Older checkouts: searchIndexRepository(db), synchronous searchSync.
  const repo = 'store' in app ? searchIndexRepository(app) : searchIndexRepository(app.db);
  const provider = new LocalIndexProvider(repo);
  const search = provider.searchSync
    ? async (text: string, scope: unknown) => provider.searchSync({ text, scope, filters: {}, limit: 10 })
    : (text: string, scope: unknown) => provider.search({ text, scope, filters: {}, limit: 10 });
  return { name, search, close: () => app.close() };
}

const sides = [
  await side(resolve(baseline), 'baseline', baselineDatabaseUrl),
  await side(resolve(import.meta.dirname, '..'), 'this checkout', databaseUrl),
];
for (const scope of [{ kind: 'instance' }, { kind: 'subscriptions', userId: 1 }]) {
  const times: number[][] = sides.map(() => []);
  for (const s of sides) for (const q of questions.slice(0, 30)) await s.search(q.question, scope); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const q of questions) {
      // Alternate which side goes first so neither always gets the warmer cache.
      const order = (r + q.question.length) % 2 ? [0, 1] : [1, 0];
      for (const i of order) {
        const t0 = performance.now();
        await sides[i]!.search(q.question, scope);
        times[i]!.push(performance.now() - t0);
      }
    }
  }
  const fmt = (t: number[]) => {
    const s = [...t].sort((a, b) => a - b);
    return { p50: percentile(s, 0.5), p99: percentile(s, 0.99) };
  };
  const [a, b] = times.map(fmt);
  console.log(
    `${scope.kind.padEnd(13)} baseline p50 ${a!.p50.toFixed(2)} ms p99 ${a!.p99.toFixed(2)} ms | this checkout p50 ${b!.p50.toFixed(2)} ms p99 ${b!.p99.toFixed(2)} ms | ratio p50 ${(b!.p50 / a!.p50).toFixed(3)}x`,
  );
}
for (const s of sides) await s.close();
