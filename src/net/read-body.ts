// Reads a response body into a Buffer under a size cap that applies both to the bytes on the wire
// and to the bytes after decompression (a 50 KB gzip can expand to gigabytes: the "zip bomb").
// Decompression is ours, with node:zlib streams, so we can count and stop at the cap.
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { NetError, formatBytes } from './errors.ts';

export function tooLarge(cap: number, what: string): NetError {
  return new NetError(
    'too_large',
    `feed is larger than ${formatBytes(cap)}${what} (raise TIDINGS_MAX_BODY_BYTES if it is genuine)`,
  );
}

/** Counts bytes flowing through and fails past the cap. */
function byteCounter(cap: number, what: string): Transform {
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      if (n > cap) cb(tooLarge(cap, what));
      else cb(null, chunk);
    },
  });
}

/** "deflate" is zlib-wrapped per the RFC, but some servers send raw deflate: sniff the header. */
function inflater(): Transform {
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!inner) {
        const zlibWrapped = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
        inner = zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
        inner.on('data', (d: Buffer) => this.push(d));
        inner.on('error', (e) => this.destroy(e));
      }
      if (inner.write(chunk)) cb();
      else inner.once('drain', () => cb());
    },
    flush(cb) {
      if (!inner) return cb();
      inner.once('end', () => cb());
      inner.end();
    },
  });
}

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return inflater();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return typeof zlib.createZstdDecompress === 'function' ? zlib.createZstdDecompress() : null;
    case 'identity':
    case '':
      return null;
    default:
      throw new NetError('bad_encoding', `the server used an unsupported Content-Encoding "${encoding}"`);
  }
}

export async function readBody(body: Readable, contentEncoding: string | undefined, cap: number): Promise<Buffer> {
  // Encodings are listed in the order they were applied; undo them in reverse.
  const encodings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
  const decoders = encodings.map(decoderFor).filter((d): d is Transform => d !== null);
  const chunks: Buffer[] = [];
  const transforms: Transform[] = [byteCounter(cap, '')];
  if (decoders.length) transforms.push(...decoders, byteCounter(cap, ' once decompressed'));
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  };
  try {
    await (pipeline as unknown as (streams: unknown[]) => Promise<void>)([body, ...transforms, collect]);
  } catch (e) {
    if (e instanceof NetError) throw e;
    // An abort arrives as a DOMException, whose `code` is a number.
    const err = e as { code?: unknown; message?: string };
    const code = typeof err.code === 'string' ? err.code : '';
    if (
      code.startsWith('Z_') ||
      code === 'ERR__ERROR_FORMAT_PADDING_1' ||
      /incorrect header|invalid|unexpected end/i.test(err.message ?? '')
    ) {
      throw new NetError('bad_encoding', `the server sent a broken ${encodings.join('+')} stream: ${err.message}`, {
        cause: e,
      });
    }
    throw e;
  }
  return concatOwned(chunks);
}

/**
 * The chunks in one Buffer over memory of its own. Buffer.concat returns a slice of Node's shared
 * allocation pool (64 KiB here), which postMessage cannot move: the parse pool then copies the
 * body to its worker, twice over (serialized, then read back), 3 % of the main thread's time in
 * a first refresh. A body of its own moves instead (ParsePool.parse, `giveAway`).
 */
export function concatOwned(chunks: readonly Uint8Array[]): Buffer {
  let n = 0;
  for (const c of chunks) n += c.byteLength;
  const out = Buffer.from(new ArrayBuffer(n));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
