import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { readBody } from './read-body.ts';

test('an aborted body is rethrown as the abort, not as a TypeError about its numeric code', async () => {
  const abort = new DOMException('This operation was aborted', 'AbortError'); // code 20, a number
  const body = new Readable({
    read() {
      this.destroy(abort);
    },
  });
  await assert.rejects(readBody(body, 'gzip', 1024), (e: unknown) => e === abort);
});

test('a broken gzip stream is a bad_encoding error that says so', async () => {
  const broken = gzipSync(Buffer.from('hello world '.repeat(100))).subarray(0, 20);
  await assert.rejects(readBody(Readable.from([broken]), 'gzip', 1 << 20), (e: Error & { kind?: string }) =>
    /broken gzip stream/.test(e.message),
  );
  assert.equal((await readBody(Readable.from([gzipSync('ok')]), 'gzip', 1024)).toString(), 'ok');
});

test('a body is read into memory of its own (movable to a worker), whole and in order, plain or gzipped', async () => {
  // 20 KB: a size Buffer.concat takes from Node's shared pool (a feed of ~50 items is 20-80 KB).
  const text = 'x'.repeat(8_000) + 'y'.repeat(12_000);
  const chunks = (b: Buffer) => Readable.from([b.subarray(0, 7_000), b.subarray(7_000, 13_000), b.subarray(13_000)]);
  for (const [body, encoding] of [
    [await readBody(chunks(Buffer.from(text)), undefined, 1 << 20), 'identity'],
    [await readBody(chunks(gzipSync(text)), 'gzip', 1 << 20), 'gzip'],
  ] as const) {
    assert.equal(body.toString(), text, encoding);
    assert.equal(body.byteOffset, 0, encoding);
    assert.equal(body.buffer.byteLength, body.byteLength, `${encoding}: not a slice of a shared pool`);
  }
});
