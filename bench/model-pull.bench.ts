// What `tidings model pull`'s checks cost over a bare download: a GGUF-looking file served from
// 127.0.0.1 (no network in the way, so the checks are all that differs) is fetched
//   1. baseline: undici's body piped to a file, nothing else;
//   2. baseline + SHA-256 of the bytes as they pass;
//   3. pullModel: redirect, lock, free-space check, GGUF header, SHA-256, progress file four
//      times a second, fsync, rename, models.json.
// Rounds alternate the three (the machine is shared and noisy); medians and ratios to the
// baseline of the same run are printed.
//   node bench/model-pull.bench.ts [MiB=256] [rounds=3]
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { loadConfig } from '../src/config/config.ts';
import { pullModel } from '../src/models/index.ts';

const mib = Number(process.argv[2] ?? 256);
const rounds = Number(process.argv[3] ?? 3);
const work = mkdtempSync(join(tmpdir(), 'tidings-pull-bench-'));
const source = join(work, 'source.gguf');
{
  const fh = createWriteStream(source);
  const head = Buffer.alloc(24);
  head.write('GGUF', 0, 'latin1');
  head.writeUInt32LE(3, 4);
  head.writeBigUInt64LE(1n, 8);
  fh.write(head);
  for (let i = 0; i < mib; i++) fh.write(randomBytes(1024 * 1024));
  await new Promise<void>((r) => fh.end(r));
}
const size = statSync(source).size;
const sha = createHash('sha256');
for await (const c of createReadStream(source)) sha.update(c as Buffer);
const digest = sha.digest('hex');

const server = createServer((req, res) => {
  if (req.url!.includes('/resolve/main/'))
    return res.writeHead(302, { location: '/cdn/source.gguf', 'x-linked-etag': `"${digest}"` }).end();
  res.writeHead(200, { 'content-length': String(size) });
  createReadStream(source).pipe(res);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function bare(hash: boolean): Promise<void> {
  const out = join(work, 'bare.gguf');
  const res = await request(`${base}/cdn/source.gguf`);
  const h = createHash('sha256');
  if (hash) res.body.on('data', (c: Buffer) => h.update(c));
  await pipeline(res.body, createWriteStream(out));
  if (hash && h.digest('hex') !== digest) throw new Error('hash');
  rmSync(out);
}

async function tidings(): Promise<void> {
  const store = mkdtempSync(join(work, 'store-'));
  const config = loadConfig({
    env: {},
    overrides: { modelsDir: store, modelsHubUrl: base, allowPrivateNetworks: true },
  });
  const m = await pullModel('hf:bench/b-GGUF/source.gguf', config);
  if (m.sha256 !== digest || m.verifiedBy !== 'published') throw new Error('not verified');
  rmSync(store, { recursive: true });
}

const lines: [string, () => Promise<void>][] = [
  ['baseline: undici body -> file', () => bare(false)],
  ['baseline + SHA-256', () => bare(true)],
  ['tidings model pull (all checks)', tidings],
];
const times = new Map<string, number[]>(lines.map(([n]) => [n, []]));
for (let r = 0; r < rounds; r++)
  for (const [name, fn] of lines) {
    const t0 = performance.now();
    await fn();
    times.get(name)!.push(performance.now() - t0);
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const baseMs = median(times.get(lines[0]![0])!);
console.log(`${mib} MiB file from 127.0.0.1, ${rounds} rounds, medians`);
for (const [name] of lines) {
  const ms = median(times.get(name)!);
  console.log(
    `${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  ${((size / 1024 / 1024 / ms) * 1000).toFixed(0).padStart(5)} MiB/s  ${(ms / baseMs).toFixed(2)}x`,
  );
}
server.close();
rmSync(work, { recursive: true, force: true });
