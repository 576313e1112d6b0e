// A throwaway PostgreSQL cluster for tests and CI: initdb in a temp folder, the server listening
// on a unix socket in that folder (and a free TCP port on 127.0.0.1), stopped and deleted by stop().
// PostgreSQL refuses to run as root, so under root the cluster belongs to an unprivileged user
// (`nobody`, or TIDINGS_PG_USER).
//
//   node test/postgres-cluster.ts start <dir>   prints the URL; the server keeps running
//   node test/postgres-cluster.ts stop <dir>
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder of initdb/pg_ctl: TIDINGS_PG_BIN, else the newest Debian install, else PATH. */
export function postgresBinDir(): string | undefined {
  if (process.env.TIDINGS_PG_BIN) return process.env.TIDINGS_PG_BIN;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0]!, 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? join(found, '..') : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresUnavailable(): string | undefined {
  if (process.env.TIDINGS_TEST_DATABASE_URL) return undefined;
  return postgresBinDir()
    ? undefined
    : 'skipped: PostgreSQL is not installed (no initdb; apt-get install postgresql, or set TIDINGS_TEST_DATABASE_URL)';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const runAs = (): string[] =>
  process.getuid?.() === 0 ? ['runuser', '-u', process.env.TIDINGS_PG_USER ?? 'nobody', '--'] : [];

function run(cmd: string[], opts: { cwd?: string } = {}): void {
  const [bin, ...args] = cmd;
  execFileSync(bin!, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? tmpdir() });
}

export interface Cluster {
  url: string;
  dir: string;
  stop(): void;
}

export async function startCluster(dir = mkdtempSync(join(tmpdir(), 'tidings-pg-'))): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL binaries not found (apt-get install postgresql)');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777); // the unprivileged server user writes its data and socket here
  const data = join(dir, 'data');
  const port = await freePort();
  const as = runAs();
  run([
    ...as,
    join(bin, 'initdb'),
    '-D',
    data,
    '-U',
    'tidings',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  // Durability off: the cluster is thrown away, and fsync per commit would dominate test time.
  const options = `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run([...as, join(bin, 'pg_ctl'), '-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  const url = `postgres://tidings@/postgres?host=${encodeURIComponent(dir)}&port=${port}`;
  return { url, dir, stop: () => stopCluster(dir) };
}

export function stopCluster(dir: string): void {
  const bin = postgresBinDir();
  if (bin && existsSync(join(dir, 'data'))) {
    try {
      run([...runAs(), join(bin, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } catch {
      /* already stopped */
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cmd, dir] = process.argv.slice(2);
  if (cmd === 'start' && dir) console.log((await startCluster(dir)).url);
  else if (cmd === 'stop' && dir) stopCluster(dir);
  else {
    console.error('usage: node test/postgres-cluster.ts start|stop <dir>');
    process.exit(2);
  }
}
