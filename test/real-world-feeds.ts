// The real-world feeds of ../shared/corpus/feeds/real-world in a real data folder, the way a new
// user gets them: served over HTTP on 127.0.0.1, imported with `tidings opml import`, fetched with
// `tidings refresh --all`. For tests that ask what a new user asks (skip when ../shared is absent).
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  globSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  freshPostgresDatabase,
  postgresDatabaseName,
  processAlive,
  ROOT,
  runCli,
  SHARED,
  TEST_DATABASE_URL,
  tempDataDir,
} from './helpers.ts';

export const REAL_WORLD_FEEDS = join(SHARED, 'corpus/feeds/real-world');
/** The built-in extractive engine, and the local feed server allowed. */
export const REAL_WORLD_ENV = {
  TIDINGS_LLM_BASE_URL: '',
  TIDINGS_LLM_MODEL: '',
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
};

/**
 * A data folder of its own holding the real-world feeds of user "reader" (each caller may change
 * or delete it). Building one (a feed server, `tidings user add`, `opml import`, `refresh --all`)
 * costs about 5 s of CPU, so it is built once and copied: the built folder is kept in the OS temp
 * folder under a key of everything that shapes it (the feeds, the code, the Node version, TIDINGS_*
 * variables, the PostgreSQL server of the run, the day), and each caller gets a copy (on
 * PostgreSQL, a database made from the built one with CREATE DATABASE … TEMPLATE). The feed server
 * runs only while the folder is built: close() is kept for callers and stops nothing.
 */
export async function realWorldDataDir(prefix = 'tidings-real-world-'): Promise<{ dir: string; close(): void }> {
  const built = await builtRealWorldDir();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(built, dir, { recursive: true, filter: (src) => src === built || basename(src) !== 'config.json' });
  if (TEST_DATABASE_URL) {
    const config = JSON.parse(readFileSync(join(built, 'config.json'), 'utf8')) as { databaseUrl: string };
    const databaseUrl = freshPostgresDatabase(TEST_DATABASE_URL, postgresDatabaseName(config.databaseUrl));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, databaseUrl }));
  }
  return { dir, close: () => {} };
}

const CACHE = join(tmpdir(), 'tidings-test-cache');

/** What the built folder depends on, hashed. */
function cacheKey(): string {
  const h = createHash('sha256');
  const add = (name: string, content: string | Buffer) => h.update(`${name}\0${content.length}\0`).update(content);
  add('node', process.version);
  add('database', TEST_DATABASE_URL);
  add('day', new Date().toISOString().slice(0, 10));
  for (const [k, v] of Object.entries(process.env).sort()) if (k.startsWith('TIDINGS_')) add(k, v ?? '');
  const code = globSync(['src/**/*.ts', 'bin/*.js', 'scripts/*.js'], { cwd: ROOT })
    .filter((f) => !f.endsWith('.test.ts'))
    .sort();
  for (const f of [...code, 'test/real-world-feeds.ts', 'test/helpers.ts', 'package-lock.json'])
    add(f, readFileSync(join(ROOT, f)));
  for (const f of readdirSync(REAL_WORLD_FEEDS).sort()) add(f, readFileSync(join(REAL_WORLD_FEEDS, f)));
  return h.digest('hex').slice(0, 20);
}

/** The built folder is complete and, on PostgreSQL, its database is still on the server. */
function usable(dir: string): boolean {
  if (!existsSync(join(dir, 'built'))) return false;
  if (!TEST_DATABASE_URL) return true;
  const { databaseUrl } = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { databaseUrl: string };
  const name = postgresDatabaseName(databaseUrl)!;
  const found = execFileSync(
    'psql',
    [TEST_DATABASE_URL, '-tA', '-c', `SELECT 1 FROM pg_database WHERE datname = '${name}'`],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return found.trim() === '1';
}

/** The built folder for this key: built here, or by another test process (a lock file says which). */
async function builtRealWorldDir(): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const ready = join(CACHE, `real-world-${cacheKey()}`);
  const lock = `${ready}.lock`;
  for (;;) {
    if (usable(ready)) return ready;
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // Another process builds it: wait, unless that process is gone (then its lock is stale).
    let holder = 0;
    try {
      holder = Number(readFileSync(lock, 'utf8'));
    } catch {
      continue;
    }
    if (holder && !processAlive(holder)) rmSync(lock, { force: true });
    else await new Promise((r) => setTimeout(r, 200));
  }
  try {
    if (usable(ready)) return ready;
    rmSync(ready, { recursive: true, force: true });
    const dir = await buildRealWorldDir();
    writeFileSync(join(dir, 'built'), '');
    renameSync(dir, ready);
    // Folders of other code or days, left by earlier runs, a day old.
    for (const e of readdirSync(CACHE)) {
      const p = join(CACHE, e);
      if (/^real-world-\w+$/.test(e) && p !== ready && Date.now() - statSync(p).mtimeMs > 86_400_000)
        rmSync(p, { recursive: true, force: true });
    }
    return ready;
  } finally {
    rmSync(lock, { force: true });
  }
}

async function buildRealWorldDir(): Promise<string> {
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\//, '');
    if (!/^[\w.-]+\.xml$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    try {
      res.writeHead(200, { 'Content-Type': 'application/rss+xml' }).end(readFileSync(join(REAL_WORLD_FEEDS, name)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dir = tempDataDir('tidings-real-world-build-');
  const outlines = readdirSync(REAL_WORLD_FEEDS)
    .filter((f) => f.endsWith('.xml'))
    // No name of the user's own (an export names a feed by its title, which the first fetch brings):
    // a file's name here would be the subscription's name, and answers name feeds by it.
    .map((f) => `<outline type="rss" text="" xmlUrl="http://127.0.0.1:${port}/${f}"/>`)
    .join('');
  writeFileSync(
    join(dir, 'feeds.opml'),
    `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body>${outlines}</body></opml>`,
  );
  for (const args of [
    ['user', 'add', 'reader', '--password', 'reader-pass-1'],
    ['opml', 'import', 'reader', join(dir, 'feeds.opml')],
    ['refresh', '--all'],
  ]) {
    const r = await runCli(['--data', dir, ...args], REAL_WORLD_ENV);
    if (r.code !== 0) server.close();
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  await new Promise((r) => server.close(r));
  return dir;
}
