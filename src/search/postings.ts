// The postings format of the article index (./article-index.ts): for each term, the articles
// that contain it, in increasing document number, with the term's frequency in each field.
//
// A term's postings are stored as chunks of bytes (src/store: one row per term and chunk). Every
// indexing batch appends one *segment* to the term's last chunk, so appending never decodes what
// is already stored:
//
//   segment  = varint(count) posting{count}
//   posting  = varint(docNo - previous docNo)        (previous = 0 at the start of a segment)
//              varint(bodyTf << 2 | hasTitle << 1 | hasUrl)
//              [varint(titleTf)] [varint(urlTf)]     (only when flagged)
//
// Most postings are body-only, so a posting takes 2-3 bytes. Document numbers are assigned in
// indexing order and never reused, so the numbers of a segment increase and gaps stay small.

/** Terms per field of one article. */
export interface FieldLengths {
  title: number;
  body: number;
  url: number;
}

/**
 * Encodes one segment from a flat list [docNo, title tf, body tf, url tf, docNo, …] whose
 * document numbers increase, each stored as docNo + offset.
 */
export function encodeSegment(list: readonly number[], offset = 0): Uint8Array {
  const writer = new ByteWriter(16 + list.length);
  writer.varint(list.length / 4);
  let previous = 0;
  for (let i = 0; i < list.length; i += 4) {
    const docNo = list[i]! + offset,
      title = list[i + 1]!,
      body = list[i + 2]!,
      url = list[i + 3]!;
    if (docNo <= previous) throw new Error(`document numbers must increase (${docNo} after ${previous})`);
    writer.varint(docNo - previous);
    previous = docNo;
    writer.varint(body * 4 + (title > 0 ? 2 : 0) + (url > 0 ? 1 : 0));
    if (title > 0) writer.varint(title);
    if (url > 0) writer.varint(url);
  }
  return writer.bytes();
}

/** Decoded postings of one chunk, in parallel arrays (reused between calls to avoid garbage). */
export class PostingsBuffer {
  docs = new Int32Array(1024);
  title = new Int32Array(1024);
  body = new Int32Array(1024);
  url = new Int32Array(1024);
  length = 0;

  private ensure(n: number): void {
    if (n <= this.docs.length) return;
    let size = this.docs.length;
    while (size < n) size *= 2;
    const grow = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.docs = grow(this.docs);
    this.title = grow(this.title);
    this.body = grow(this.body);
    this.url = grow(this.url);
  }

  /**
   * Decodes every segment of a chunk into the arrays (replacing their contents). Throws on bytes
   * that do not decode (a corrupt chunk must not be scored silently).
   */
  decode(chunk: Uint8Array): number {
    this.length = 0;
    let pos = 0;
    const end = chunk.length;
    // Varint reads are inlined: this loop runs for every posting of every query term.
    while (pos < end) {
      let count = 0,
        shift = 0,
        b = 0;
      do {
        b = chunk[pos++]!;
        count += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80 && pos < end);
      this.ensure(this.length + count);
      const docs = this.docs,
        title = this.title,
        body = this.body,
        url = this.url;
      let doc = 0;
      for (let i = 0; i < count; i++) {
        if (pos >= end) throw new Error('postings chunk is truncated');
        let v = 0;
        shift = 0;
        do {
          b = chunk[pos++]!;
          v += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
        doc += v;
        v = 0;
        shift = 0;
        do {
          b = chunk[pos++]!;
          v += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
        let t = 0,
          u = 0;
        if (v & 2) {
          shift = 0;
          do {
            b = chunk[pos++]!;
            t += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
        }
        if (v & 1) {
          shift = 0;
          do {
            b = chunk[pos++]!;
            u += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
        }
        const n = this.length++;
        docs[n] = doc;
        title[n] = t;
        body[n] = Math.floor(v / 4);
        url[n] = u;
      }
      if (pos > end) throw new Error('postings chunk is truncated');
    }
    return this.length;
  }

  /**
   * Decodes, of a chunk's postings, only those of the given documents (`among[from…to)`, in
   * increasing order): the others' varints are stepped over without being stored, which is most
   * of the work on a common word once a search scores only a few candidates. Throws on bytes that
   * do not decode, as decode does.
   */
  decodeAmong(chunk: Uint8Array, among: Int32Array, from: number, to: number): number {
    this.length = 0;
    let pos = 0;
    const end = chunk.length;
    let next = from;
    let last = 0;
    while (pos < end) {
      let count = 0,
        shift = 0,
        b = 0;
      do {
        b = chunk[pos++]!;
        count += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80 && pos < end);
      let doc = 0;
      for (let i = 0; i < count; i++) {
        if (pos >= end) throw new Error('postings chunk is truncated');
        // The gap: one byte for nearly every posting of a common word.
        b = chunk[pos++]!;
        if (b < 0x80) doc += b;
        else {
          let v = b & 0x7f;
          shift = 7;
          do {
            b = chunk[pos++]!;
            v += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
          doc += v;
        }
        // Documents increase through a chunk; should a segment start lower, look again from the start.
        if (doc < last) next = from;
        last = doc;
        while (next < to && among[next]! < doc) next++;
        if (next >= to || among[next] !== doc) {
          // Not wanted: step over the frequencies (the flags are the low bits of their first byte).
          const flags = chunk[pos]!;
          while (chunk[pos++]! & 0x80);
          if (flags & 2) while (chunk[pos++]! & 0x80);
          if (flags & 1) while (chunk[pos++]! & 0x80);
          continue;
        }
        let v = 0;
        shift = 0;
        do {
          b = chunk[pos++]!;
          v += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
        let t = 0,
          u = 0;
        if (v & 2) {
          shift = 0;
          do {
            b = chunk[pos++]!;
            t += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
        }
        if (v & 1) {
          shift = 0;
          do {
            b = chunk[pos++]!;
            u += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
        }
        this.ensure(this.length + 1);
        const n = this.length++;
        this.docs[n] = doc;
        this.title[n] = t;
        this.body[n] = Math.floor(v / 4);
        this.url[n] = u;
      }
      if (pos > end) throw new Error('postings chunk is truncated');
    }
    return this.length;
  }
}

/**
 * The first document number of a chunk (its first segment's first posting, whose gap counts
 * from 0), read without decoding the rest; -1 for an empty chunk. Postings increase across a
 * term's chunks, so chunk i holds only documents from its first up to chunk i+1's first: a
 * search can skip a chunk that holds none of the documents it still needs.
 */
export function firstDocument(chunk: Uint8Array): number {
  let pos = 0;
  let b = 0;
  let count = 0;
  // Segments of no postings (a count of 0) hold no document: the next segment's first does.
  while (count === 0) {
    if (pos >= chunk.length) return -1;
    let shift = 0;
    do {
      b = chunk[pos++]!;
      count += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80 && pos < chunk.length);
  }
  if (pos >= chunk.length) return -1;
  let v = 0,
    shift = 0;
  do {
    b = chunk[pos++]!;
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80 && pos < chunk.length);
  return v;
}

/** A growable byte buffer with LEB128 varints. */
class ByteWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }

  varint(n: number): void {
    if (this.pos + 10 > this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
