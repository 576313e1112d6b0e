// A snapshot of the article table (./article-table.ts) in the data folder, so a short-lived
// process (`tidings search query`, `tidings ask`) does not read every article row of the store
// before its one search: at 1M articles that load took 14.6 s and 404 MB; reading the snapshot
// takes a few tens of milliseconds, and the process then catches up from the store on the
// articles indexed since, exactly as a server does between searches.
//
// The snapshot names the store (its location), the index (search_index_state.index_id, random per
// database) and the index's epoch (a rebuild renumbers the articles): a snapshot of anything else
// is ignored. It also carries the store's removal count at the time its live flags were exact, so
// removals since then send the candidates back to the store's check, as in a long-running server.
// Written atomically (temporary file, then rename) by whichever process loaded many rows.
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { endianness } from 'node:os';

const MAGIC = 0x54_44_41_54; // 'TDAT'
export const SNAPSHOT_FORMAT = 1;

export interface SnapshotHeader {
  format: number;
  /** The typed arrays are stored as they are in memory. */
  endianness: 'BE' | 'LE';
  /** The store's location (SQLite file, PostgreSQL URL without the password). */
  location: string;
  indexId: string;
  epoch: number;
  /** The store's removal count when the live flags were last exact (the table's full load). */
  removedAtLoad: number;
  /** Document numbers below this are in the snapshot. */
  loadedUpTo: number;
  hosts: string[];
}

/** The per-article columns, in file order. */
export interface SnapshotColumns {
  itemId: Float64Array<ArrayBuffer>;
  feedId: Int32Array<ArrayBuffer>;
  hostId: Int32Array<ArrayBuffer>;
  publishedAt: Float64Array<ArrayBuffer>;
  updatedAt: Float64Array<ArrayBuffer>;
  titleLength: Int32Array<ArrayBuffer>;
  bodyLength: Int32Array<ArrayBuffer>;
  urlLength: Int32Array<ArrayBuffer>;
  live: Uint8Array<ArrayBuffer>;
}

const COLUMNS: { name: keyof SnapshotColumns; bytes: number }[] = [
  { name: 'itemId', bytes: 8 },
  { name: 'feedId', bytes: 4 },
  { name: 'hostId', bytes: 4 },
  { name: 'publishedAt', bytes: 8 },
  { name: 'updatedAt', bytes: 8 },
  { name: 'titleLength', bytes: 4 },
  { name: 'bodyLength', bytes: 4 },
  { name: 'urlLength', bytes: 4 },
  { name: 'live', bytes: 1 },
];

/**
 * Writes the first `header.loadedUpTo` entries of each column. The columns may be changed while
 * the write waits (a later sync appends past that length or clears live flags, both harmless:
 * a cleared flag only makes the snapshot more careful); a rebuild replaces them, and its epoch
 * then no longer matches the header.
 */
export async function writeSnapshot(file: string, header: SnapshotHeader, columns: SnapshotColumns): Promise<void> {
  const n = header.loadedUpTo;
  const parts = COLUMNS.map(({ name, bytes }) => {
    const a = columns[name];
    return new Uint8Array(a.buffer, a.byteOffset, n * bytes);
  });
  let crc = 0;
  for (const p of parts) crc = crc32(p, crc);
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(12);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(json.length, 4);
  head.writeUInt32LE(crc >>> 0, 8);
  const tmp = `${file}.${process.pid}.tmp`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writev([head, json, ...parts]);
    await fh.close();
    await rename(tmp, file);
  } catch (e) {
    await fh.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * The snapshot in the file if it is whole (checksum) and of this format; undefined when there is
 * none or it does not read (the caller then loads from the store, which is always right).
 */
export async function readSnapshot(
  file: string,
): Promise<{ header: SnapshotHeader; columns: SnapshotColumns } | undefined> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(12);
    if (size < 12 || (await fh.read(head, 0, 12, 0)).bytesRead !== 12 || head.readUInt32LE(0) !== MAGIC)
      return undefined;
    const jsonLength = head.readUInt32LE(4);
    const crc = head.readUInt32LE(8);
    if (12 + jsonLength > size) return undefined;
    const json = Buffer.alloc(jsonLength);
    await fh.read(json, 0, jsonLength, 12);
    let header: SnapshotHeader;
    try {
      header = JSON.parse(json.toString('utf8')) as SnapshotHeader;
    } catch {
      return undefined;
    }
    if (
      header.format !== SNAPSHOT_FORMAT ||
      header.endianness !== endianness() ||
      !Number.isInteger(header.loadedUpTo) ||
      header.loadedUpTo < 1
    )
      return undefined;
    const n = header.loadedUpTo;
    let offset = 12 + jsonLength;
    if (size !== offset + n * COLUMNS.reduce((sum, c) => sum + c.bytes, 0)) return undefined;
    // Each column read straight into an array of its own (no second copy of the file in memory).
    const columns = {} as Record<keyof SnapshotColumns, Float64Array | Int32Array | Uint8Array>;
    let sum = 0;
    for (const { name, bytes } of COLUMNS) {
      const out = bytes === 8 ? new Float64Array(n) : bytes === 4 ? new Int32Array(n) : new Uint8Array(n);
      const view = new Uint8Array(out.buffer);
      if ((await fh.read(view, 0, view.length, offset)).bytesRead !== view.length) return undefined;
      sum = crc32(view, sum);
      columns[name] = out;
      offset += view.length;
    }
    if (sum >>> 0 !== crc) return undefined;
    return { header, columns: columns as unknown as SnapshotColumns };
  } finally {
    await fh.close();
  }
}
