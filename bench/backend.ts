// The storage backend a benchmark runs on: `--backend sqlite|postgres` (and `both` where a bench
// compares them side by side), `--database-url postgres://…` for a server of your own. PostgreSQL
// without a URL: a throwaway cluster in a temp folder (test/postgres-cluster.ts), stopped at exit.
export type BenchBackend = 'sqlite' | 'postgres' | 'both';

export function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** Arguments that are neither flags nor flag values (the benches' positional options). */
export function positionals(argv: string[], flagsWithValues: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      if (flagsWithValues.includes(a.slice(2))) i++;
    } else out.push(a);
  }
  return out;
}

export async function benchBackend(
  argv: string[],
  allowed: BenchBackend[] = ['sqlite', 'postgres'],
): Promise<{ backend: BenchBackend; databaseUrl: string; stop(): void }> {
  let databaseUrl = flagValue(argv, 'database-url') ?? '';
  const backend = (flagValue(argv, 'backend') ?? (databaseUrl ? 'postgres' : 'sqlite')) as BenchBackend;
  if (!allowed.includes(backend)) {
    console.error(`--backend ${backend}: use ${allowed.join(', ')}`);
    process.exit(2);
  }
  let stop = () => {};
  if (backend !== 'sqlite' && !databaseUrl) {
    const { startCluster } = await import('../test/postgres-cluster.ts');
    const cluster = await startCluster();
    databaseUrl = cluster.url;
    stop = () => cluster.stop();
    process.once('exit', stop);
    console.log(`PostgreSQL: a throwaway cluster in ${cluster.dir}`);
  }
  return { backend, databaseUrl: backend === 'sqlite' ? '' : databaseUrl, stop };
}
