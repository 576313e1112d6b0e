// A local stand-in for Hugging Face in the model store's tests, on 127.0.0.1 with a random port:
// /<owner>/<repo>/resolve/main/<file> answers as the hub does (a redirect to its CDN carrying
// X-Linked-ETag = the file's SHA-256 and X-Linked-Size), and /cdn/<file> serves the bytes with
// ETag and Range (206, If-Range, 416). A file can be served slowly, or cut after N bytes once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

/** A file that starts with a valid GGUF v3 header, then random bytes: a "model" for the store, not for a runtime. */
export function ggufBytes(size: number): Buffer {
  const b = randomBytes(size);
  b.write('GGUF', 0, 'latin1');
  b.writeUInt32LE(3, 4);
  b.writeBigUInt64LE(2n, 8);
  b.writeBigUInt64LE(5n, 16);
  return b;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface HubFile {
  body: Buffer;
  /** SHA-256 announced as X-Linked-ETag on the /resolve/ redirect ('' = none; default: the true one). */
  linkedSha?: string;
  /** Close the connection after this many body bytes of the next full (non-range) answer. */
  cutAfter?: number;
  /** Send the body in 16 KiB pieces this many ms apart (to watch progress). */
  chunkDelayMs?: number;
  contentType?: string;
}

export interface ModelHub {
  base: string;
  files: Map<string, HubFile>;
  requests: { path: string; range?: string; ifRange?: string }[];
  close(): Promise<void>;
}

export async function startModelHub(): Promise<ModelHub> {
  const files = new Map<string, HubFile>();
  const requests: ModelHub['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    requests.push({ path, range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined });
    const resolveMatch = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(path);
    if (resolveMatch) {
      const f = files.get(resolveMatch[2]!);
      if (!f) return res.writeHead(404).end('Entry not found');
      const sha = f.linkedSha ?? sha256(f.body);
      const h: Record<string, string> = { location: `/cdn/${resolveMatch[2]}`, 'x-linked-size': String(f.body.length) };
      if (sha) h['x-linked-etag'] = `"${sha}"`;
      return res.writeHead(302, h).end();
    }
    const cdn = /^\/cdn\/(.+)$/.exec(path);
    const f = cdn && files.get(cdn[1]!);
    if (!f) return res.writeHead(404).end('no such file');
    const etag = `"${createHash('md5').update(f.body).digest('hex')}"`;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    let start = 0;
    if (range && (!req.headers['if-range'] || req.headers['if-range'] === etag)) {
      start = Number(range[1]);
      if (start >= f.body.length) return res.writeHead(416, { 'content-range': `bytes */${f.body.length}` }).end();
      res.writeHead(206, {
        'content-range': `bytes ${start}-${f.body.length - 1}/${f.body.length}`,
        'content-length': String(f.body.length - start),
        etag,
      });
    } else {
      res.writeHead(200, {
        'content-length': String(f.body.length),
        'content-type': f.contentType ?? 'application/octet-stream',
        etag,
      });
    }
    const rest = f.body.subarray(start);
    if (f.cutAfter !== undefined && start === 0) {
      const cut = f.cutAfter;
      f.cutAfter = undefined; // the next attempt gets the whole file
      res.write(rest.subarray(0, cut), () => setTimeout(() => res.socket?.destroy(), 50));
      return;
    }
    if (!f.chunkDelayMs) return res.end(rest);
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= rest.length) return res.end();
      res.write(rest.subarray(at, at + 16384));
      at += 16384;
      setTimeout(next, f.chunkDelayMs);
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
