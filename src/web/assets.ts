// The page and its assets, read once at start from ./public and kept in memory with a gzip copy:
// hand-written ES modules and CSS served as they are (no build step, nothing fetched from a CDN).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gzipSync, constants } from 'node:zlib';

export interface Asset {
  body: Buffer;
  gzip: Buffer;
  type: string;
  etag: string;
}

const PUBLIC_DIR = join(import.meta.dirname, 'public');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
};

/** URL path -> asset: index.html at `/`, every other file at /assets/<name>. */
export function loadAssets(dir = PUBLIC_DIR): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'));
    const type = TYPES[ext];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    const asset: Asset = {
      body,
      gzip: gzipSync(body, { level: constants.Z_BEST_COMPRESSION }),
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    };
    if (name === 'index.html') out.set('/', asset);
    else out.set(`/assets/${name}`, asset);
  }
  return out;
}
