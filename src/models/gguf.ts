// The first bytes of a GGUF file (github.com/ggml-org/ggml docs/gguf.md): the magic "GGUF", a
// little-endian uint32 version (2 or 3; version 1 files are no longer loaded by llama.cpp), then
// uint64 counts of tensors and of metadata pairs. Checked as soon as a download's first bytes
// arrive (a URL of a web page or an error page is refused at once, not after gigabytes) and
// again on the finished file. It proves the format, not that the model loads: the runtime says so.
import { open } from 'node:fs/promises';
import { ModelError } from './store.ts';

export const GGUF_HEADER_BYTES = 24;

/** Why these first bytes are not a GGUF header, or null when they are one. */
export function ggufHeaderProblem(head: Uint8Array): string | null {
  if (head.length < GGUF_HEADER_BYTES) return `it is only ${head.length} bytes long`;
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.toString('latin1', 0, 4) !== 'GGUF') {
    const text = b.toString('latin1', 0, 16).replace(/[^\x20-\x7e]/g, '.');
    const hint = /^\s*</.test(text)
      ? ' (it looks like a web page: use the URL of the file itself, on Hugging Face the …/resolve/main/… link)'
      : '';
    return `it does not start with the GGUF magic bytes (it starts with "${text}")${hint}`;
  }
  const version = b.readUInt32LE(4);
  if (version !== 2 && version !== 3) return `its GGUF version is ${version}; llama.cpp reads versions 2 and 3`;
  const tensors = b.readBigUInt64LE(8);
  const pairs = b.readBigUInt64LE(16);
  if (tensors === 0n || tensors > 1_000_000n) return `its header announces ${tensors} tensors`;
  if (pairs > 1_000_000n) return `its header announces ${pairs} metadata entries`;
  return null;
}

/** Throws a ModelError('not_gguf') naming the file when it does not start with a GGUF header. */
export async function checkGgufFile(path: string, what = path): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(GGUF_HEADER_BYTES);
    const { bytesRead } = await fh.read(head, 0, GGUF_HEADER_BYTES, 0);
    const problem = ggufHeaderProblem(head.subarray(0, bytesRead));
    if (problem) throw new ModelError('not_gguf', `${what} is not a GGUF model file: ${problem}`);
  } finally {
    await fh.close();
  }
}
