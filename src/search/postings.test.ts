import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom as random } from '../../test/helpers.ts';
import { PostingsBuffer, encodeSegment, firstDocument } from './postings.ts';

test('segments appended to each other decode to every posting, in order, with its field frequencies', () => {
  const rnd = random(7);
  const expected = new Map<string, [number, number, number, number][]>();
  const chunks = new Map<string, Uint8Array[]>();
  let docNo = 0;
  // Three batches appended to the same chunk, as indexing does; gaps up to 2^31 and large frequencies.
  for (let batch = 0; batch < 3; batch++) {
    const batchLists = new Map<string, number[]>();
    for (let i = 0; i < 200; i++) {
      docNo += 1 + Math.floor((rnd() ** 8 * 2 ** 31) / 1000);
      for (const term of ['common', 'rare', 'title-only']) {
        if (term === 'rare' && rnd() > 0.05) continue;
        const f =
          term === 'title-only'
            ? { title: 1 + Math.floor(rnd() * 3), body: 0, url: 0 }
            : { title: rnd() < 0.2 ? 1 : 0, body: Math.floor(rnd() * 300), url: rnd() < 0.1 ? 200 : 0 };
        const list = expected.get(term) ?? [];
        list.push([docNo, f.title, f.body, f.url]);
        expected.set(term, list);
        const flat = batchLists.get(term) ?? [];
        flat.push(docNo, f.title, f.body, f.url);
        batchLists.set(term, flat);
      }
    }
    for (const [term, flat] of batchLists) {
      const list = chunks.get(term) ?? [];
      list.push(encodeSegment(flat));
      chunks.set(term, list);
    }
  }
  const buffer = new PostingsBuffer();
  for (const [term, list] of expected) {
    const parts = chunks.get(term)!;
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    const n = buffer.decode(joined);
    assert.equal(n, list.length, term);
    const got = Array.from({ length: n }, (_, i) => [buffer.docs[i], buffer.title[i], buffer.body[i], buffer.url[i]]);
    assert.deepEqual(got, list, term);
  }
});

test('a body-only posting takes two bytes when its gap is small', () => {
  assert.equal(encodeSegment([1, 0, 3, 0, 2, 0, 1, 0]).length, 1 + 2 * 2);
});

test('document numbers must increase within a segment', () => {
  assert.throws(() => encodeSegment([5, 0, 1, 0, 5, 0, 1, 0]), /must increase/);
});

test('a truncated chunk is an error, not a silent partial result', () => {
  const bytes = encodeSegment(Array.from({ length: 50 }, (_, i) => [(i + 1) * 1000, 2, 3, 0]).flat());
  assert.throws(() => new PostingsBuffer().decode(bytes.subarray(0, bytes.length - 3)), /truncated/);
});

test('decodeAmong gives exactly the wanted documents of a chunk, as decode does; firstDocument its first', () => {
  const rnd = random(13);
  const segments: Uint8Array[] = [encodeSegment([])]; // an empty segment first: holds no document
  const all: number[][] = [];
  let docNo = 0;
  for (let s = 0; s < 4; s++) {
    const flat: number[] = [];
    for (let i = 0; i < 300; i++) {
      // Mostly one-byte gaps, some multi-byte ones; large frequencies in every field now and then.
      docNo += 1 + (rnd() < 0.05 ? Math.floor(rnd() * 100_000) : Math.floor(rnd() * 100));
      const posting = [
        docNo,
        rnd() < 0.2 ? 1 + Math.floor(rnd() * 500) : 0,
        Math.floor(rnd() * 400),
        rnd() < 0.1 ? 300 : 0,
      ];
      flat.push(...posting);
      all.push(posting);
    }
    segments.push(encodeSegment(flat));
  }
  const chunk = new Uint8Array(segments.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of segments) chunk.set(p, (at += p.length) - p.length);
  assert.equal(firstDocument(chunk), all[0]![0]);
  assert.equal(firstDocument(encodeSegment([])), -1);
  const wanted = all.filter(() => rnd() < 0.1).map((p) => p[0]!);
  wanted.push(all.at(-1)![0]! + 5, 0); // documents the chunk does not hold
  const among = Int32Array.from(wanted).sort();
  const buffer = new PostingsBuffer();
  const n = buffer.decodeAmong(chunk, among, 0, among.length);
  const got = Array.from({ length: n }, (_, i) => [buffer.docs[i]!, buffer.title[i]!, buffer.body[i]!, buffer.url[i]!]);
  assert.deepEqual(
    got,
    all.filter((p) => wanted.includes(p[0]!)),
  );
  assert.ok(n > 50);
});
