// The real-world feeds of ../shared/corpus/feeds/real-world in a real data folder, the way a new
// user gets them: served over HTTP on 127.0.0.1, imported with `tidings opml import`, fetched with
// `tidings refresh --all`. For tests that ask what a new user asks (skip when ../shared is absent).
import assert from 'node:assert/strict';
import http from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli, SHARED, tempDataDir } from './helpers.ts';

export const REAL_WORLD_FEEDS = join(SHARED, 'corpus/feeds/real-world');
/** The built-in extractive engine, and the local feed server allowed. */
export const REAL_WORLD_ENV = {
  TIDINGS_LLM_BASE_URL: '',
  TIDINGS_LLM_MODEL: '',
  TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
};

/** A data folder holding the real-world feeds of user "reader"; close() stops the feed server. */
export async function realWorldDataDir(prefix = 'tidings-real-world-'): Promise<{ dir: string; close(): void }> {
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
  const dir = tempDataDir(prefix);
  const outlines = readdirSync(REAL_WORLD_FEEDS)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => `<outline type="rss" text="${f}" xmlUrl="http://127.0.0.1:${port}/${f}"/>`)
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
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  return { dir, close: () => server.close() };
}
