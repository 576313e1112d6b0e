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
