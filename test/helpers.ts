// Shared test helpers: temp data folders, the CLI as a real child process, the shared corpus.
import { mkdtempSync, existsSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

/** Whether a process with this pid exists (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// The tests never see a model the developer pulled into the machine's store (it would turn the
// extractive answers they expect into a local model's): unless a test names its own store, the
// store is a folder nobody fills. CLI processes the tests start inherit it.
process.env.TIDINGS_MODELS_DIR ||= join(tmpdir(), 'tidings-test-no-models');
export const SHARED = resolve(ROOT, '../shared');
export const hasShared = existsSync(join(SHARED, 'corpus'));
export const SKIP_NO_SHARED = hasShared ? false : 'skipped: ../shared (corpus) is not present beside the checkout';

/**
 * PostgreSQL server the whole suite runs on when set (CI runs the suite on SQLite, then again with
 * this pointing at a throwaway cluster: test/postgres-cluster.ts). Unset: SQLite, as by default.
 */
export const TEST_DATABASE_URL = process.env.TIDINGS_TEST_DATABASE_URL?.trim() || '';

/** Skip reason for tests of SQLite-only tools (the database file, backup/restore) on a PostgreSQL run. */
export const SQLITE_ONLY = TEST_DATABASE_URL
  ? 'skipped on the PostgreSQL run: this checks the SQLite database file (tidings backup/restore, the data folder)'
  : false;

/**
 * A new database on the test server; returns its URL. Empty, or a copy of `template` (the name of
 * a database nobody is connected to, as postgresDatabaseName gives it).
 */
export function freshPostgresDatabase(baseUrl = TEST_DATABASE_URL, template?: string): string {
  const name = `tidings_t_${randomBytes(6).toString('hex')}`;
  if (template !== undefined && !/^tidings_t_[0-9a-f]+$/.test(template))
    throw new Error(`not a test database: ${template}`);
  const sql = template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`;
  execFileSync('psql', [baseUrl, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Not new URL(): postgres://user@/db?host=/socket/dir has no host, which WHATWG URLs refuse.
  return /^[a-z]+:\/\/[^/?]*\/[^?]*/i.test(baseUrl)
    ? baseUrl.replace(/^([a-z]+:\/\/[^/?]*)\/[^?]*/i, `$1/${name}`)
    : baseUrl.replace(/^([a-z]+:\/\/[^/?]*)/i, `$1/${name}`);
}

/**
 * Where a PostgreSQL URL's server listens (its Unix socket, or host and port), and the same
 * database's URL through a TCP proxy on 127.0.0.1: for tests that cut or freeze the connection.
 */
export function postgresProxyTarget(dbUrl: string): {
  target: { path: string } | { host: string; port: number };
  viaPort(port: number): string;
} {
  const host = /[?&]host=([^&]+)/.exec(dbUrl)?.[1];
  const port = Number(/[?&]port=(\d+)/.exec(dbUrl)?.[1] ?? /:(\d+)\//.exec(dbUrl)?.[1] ?? 5432);
  const target = host
    ? { path: `${decodeURIComponent(host)}/.s.PGSQL.${port}` }
    : { host: /@([^:/]+)/.exec(dbUrl)![1]!, port };
  const user = /^postgres(?:ql)?:\/\/([^@:/]+)/.exec(dbUrl)![1];
  const name = /^postgres(?:ql)?:\/\/[^/]*\/([^?]+)/.exec(dbUrl)![1];
  return { target, viaPort: (p) => `postgres://${user}@127.0.0.1:${p}/${name}` };
}

/** The database name in a PostgreSQL URL. */
export function postgresDatabaseName(databaseUrl: string): string | undefined {
  return /^[a-z]+:\/\/[^/?]*\/([^?]+)/i.exec(databaseUrl)?.[1];
}

/** Drops a database freshPostgresDatabase(baseUrl) made (its connections must be closed). */
export function dropPostgresDatabase(baseUrl: string, databaseUrl: string): void {
  const name = postgresDatabaseName(databaseUrl);
  if (!name?.startsWith('tidings_t_')) throw new Error(`not a test database: ${databaseUrl}`);
  execFileSync('psql', [baseUrl, '-q', '-v', 'ON_ERROR_STOP=1', '-c', `DROP DATABASE IF EXISTS ${name}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/**
 * A fresh data folder. On a PostgreSQL test run it also gets a fresh database, named in the
 * folder's config.json, so every App, CLI process and reopen on this folder uses it.
 */
export function tempDataDir(prefix = 'tidings-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (TEST_DATABASE_URL)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ databaseUrl: freshPostgresDatabase() }));
  return dir;
}

export function runCli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    p.stdin.end(input ?? '');
  });
}

/** Deterministic PRNG (mulberry32): the same sequence for the same seed, for generated test and benchmark data. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
