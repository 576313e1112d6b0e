// Google Reader item JSON, built as a string: a page of 1,000 items is a few MB and this is the hot
// path of every sync, so we concatenate pre-escaped fragments instead of building an object tree
// for JSON.stringify (measured in bench/reader.bench.ts). Field types follow the spec exactly:
// strings for id/timestampUsec/crawlTimeMsec, numbers for published/updated.
import type { ReaderItemBody, ReaderItemState } from '../model/stream.ts';
import type { CatalogEntry } from '../library/catalog.ts';
import { labelStreamId, longItemId, stateStreamId } from './ids.ts';

const q = JSON.stringify;
const CAT_READING_LIST = q(stateStreamId('reading-list'));
const CAT_READ = q(stateStreamId('read'));
const CAT_STARRED = q(stateStreamId('starred'));
const CAT_LIKE = q(stateStreamId('like'));
const CAT_BROADCAST = q(stateStreamId('broadcast'));
const CAT_SAVED = q(stateStreamId('saved-web-pages'));

interface StoredEnclosure {
  url?: string;
  type?: string | null;
  length?: number | null;
}

function enclosureJson(raw: string | null): string {
  if (!raw) return '';
  let list: StoredEnclosure[];
  try {
    list = JSON.parse(raw) as StoredEnclosure[];
  } catch {
    return '';
  }
  if (!Array.isArray(list) || !list.length) return '';
  const parts = list
    .filter((e) => e && typeof e.url === 'string')
    .map((e) => {
      let s = `{"href":${q(e.url)}`;
      if (e.type) s += `,"type":${q(e.type)}`;
      if (e.length !== null && e.length !== undefined) s += `,"length":${q(String(e.length))}`;
      return s + '}';
    });
  return parts.length ? `,"enclosure":[${parts.join(',')}]` : '';
}

/** The user-independent middle of an item: title through enclosure. */
function itemBodyJson(it: ReaderItemBody): string {
  const link = it.url ? q(it.url) : '';
  const links = link
    ? `"canonical":[{"href":${link}}],"alternate":[{"href":${link},"type":"text/html"}],`
    : '"canonical":[],"alternate":[],';
  return (
    `"title":${q(it.title)},"published":${it.publishedAt},"updated":${it.updatedAt},${links}` +
    `"summary":{"direction":"ltr","content":${q(it.content ?? it.summary ?? '')}},"author":${q(it.author ?? '')}` +
    enclosureJson(it.enclosures)
  );
}

/**
 * Serialized item bodies, reused until any item changes: a page reads only the user's flags, and
 * bodies are read from SQLite and escaped only for items not held here. A few KB per item: decoding
 * and escaping them was most of the time of a 1,000-item page. The items version lives in the
 * database (bumped by a trigger on every item change), so a change made by any process (CLI
 * refresh) empties the cache before the next page. Bodies are kept as UTF-8 bytes, so a page is
 * assembled by copying, not by re-encoding megabytes of text. Bounded by count and bytes: oldest go
 * first.
 */
export class ItemBodyCache {
  private readonly map = new Map<number, Buffer>();
  private readonly max: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private version = -1;
  /** Holds at most `max` items and `maxBytes` bytes of JSON (a few big items must not pin megabytes). */
  constructor(max: number, maxBytes = Infinity) {
    this.max = max;
    this.maxBytes = maxBytes;
  }

  /** Body JSON of every item, loading the ones not cached with `load`. */
  async bodiesFor(
    states: ReaderItemState[],
    itemsVersion: number,
    load: (ids: number[]) => Promise<ReaderItemBody[]>,
  ): Promise<Map<number, Buffer>> {
    if (itemsVersion !== this.version) {
      this.map.clear();
      this.bytes = 0;
      this.version = itemsVersion;
    }
    const out = new Map<number, Buffer>();
    const missing: number[] = [];
    for (const st of states) {
      const c = this.map.get(st.itemId);
      if (c) out.set(st.itemId, c);
      else missing.push(st.itemId);
    }
    if (!missing.length) return out;
    for (const b of await load(missing)) {
      const json = Buffer.from(itemBodyJson(b));
      out.set(b.itemId, json);
      if (this.max > 0 && json.length <= this.maxBytes) {
        const old = this.map.get(b.itemId);
        if (old) this.bytes -= old.length;
        this.map.set(b.itemId, json);
        this.bytes += json.length;
      }
    }
    while (this.map.size > this.max || this.bytes > this.maxBytes) {
      const oldest = this.map.keys().next().value!;
      this.bytes -= this.map.get(oldest)!.length;
      this.map.delete(oldest);
    }
    return out;
  }

  get size(): number {
    return this.map.size;
  }
  get byteSize(): number {
    return this.bytes;
  }
}

/** The per-user head of an item (id, times, categories) up to its body, as text. */
function itemHead(it: ReaderItemState, feed: CatalogEntry | undefined, tags: string[] | undefined): string {
  let cats = CAT_READING_LIST;
  if (it.read) cats += ',' + CAT_READ;
  if (it.starred) cats += ',' + CAT_STARRED;
  if (it.liked) cats += ',' + CAT_LIKE;
  if (it.broadcast) cats += ',' + CAT_BROADCAST;
  if (it.saved) cats += ',' + CAT_SAVED;
  if (feed) cats += feed.folderCategoriesJson;
  if (tags) for (const t of tags) cats += ',' + q(labelStreamId(t));
  return `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}","categories":[${cats}],`;
}

const NO_ORIGIN = Buffer.from(',"origin":{"streamId":"","title":"","htmlUrl":""}}');

/**
 * A page's items ready to be written: each item's per-user head (text), its cached body and its
 * feed's origin tail (UTF-8). The page is written once, envelope included, by streamContentsJson:
 * a 1,000-item page was assembled twice (the items array, then Buffer.concat with the envelope),
 * two 2 MB allocations a call whose garbage collection cost as much as the assembly.
 */
export interface RenderedItems {
  heads: string[];
  bodies: Buffer[];
  tails: Buffer[];
  /** UTF-8 bytes of the `items` array: brackets, commas and the parts above. */
  byteLength: number;
}

/** The items of stream/contents and stream/items/contents; items without a body (deleted meanwhile) are left out. */
export function renderItems(
  items: ReaderItemState[],
  bodies: Map<number, Buffer>,
  origins: Map<number, CatalogEntry>,
  tags: Map<number, string[]>,
): RenderedItems {
  const originTails = new Map<number, Buffer>();
  const out: RenderedItems = { heads: [], bodies: [], tails: [], byteLength: 2 };
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body === undefined) continue;
    let tail = originTails.get(it.feedId);
    if (!tail) {
      const feed = origins.get(it.feedId);
      tail = feed ? Buffer.from(`,"origin":${feed.originJson}}`) : NO_ORIGIN;
      originTails.set(it.feedId, tail);
    }
    const head = itemHead(it, origins.get(it.feedId), tags.get(it.itemId));
    out.heads.push(head);
    out.bodies.push(body);
    out.tails.push(tail);
    out.byteLength += Buffer.byteLength(head) + body.length + tail.length + (out.heads.length > 1 ? 1 : 0);
  }
  return out;
}

export interface StreamEnvelope {
  id: string;
  title: string;
  selfHref: string;
  updatedUs: number;
  continuation?: string;
}

/** Where a page is written: a buffer of at least `size` bytes (a reused one: PageBuffers). */
export type PageAllocator = (size: number) => Buffer;

/**
 * The whole stream/contents body, written once into one buffer from `alloc`; the page is the
 * returned view of it.
 */
export function streamContentsJson(
  env: StreamEnvelope,
  items: RenderedItems,
  alloc: PageAllocator = Buffer.allocUnsafe,
): Buffer {
  const head =
    `{"direction":"ltr","id":${q(env.id)},"title":${q(env.title)},"description":"",` +
    `"self":{"href":${q(env.selfHref)}},"updated":${Math.floor(env.updatedUs / 1e6)},"updatedUsec":"${env.updatedUs}","items":[`;
  const tail = ']' + (env.continuation ? `,"continuation":${q(env.continuation)}` : '') + '}';
  // (items.byteLength counts the brackets, here in head and tail.)
  const size = Buffer.byteLength(head) + items.byteLength - 2 + Buffer.byteLength(tail);
  const out = alloc(size);
  let at = out.write(head, 0);
  const { heads, bodies, tails } = items;
  // TypedArray set, not Buffer copy: copy's argument checks cost more than the bytes (1 ms a
  // 1,000-item page, half of the page's assembly).
  for (let k = 0; k < heads.length; k++) {
    if (k > 0) out[at++] = 0x2c; // ,
    at += out.write(heads[k]!, at);
    const body = bodies[k]!;
    out.set(body, at);
    at += body.length;
    const tail = tails[k]!;
    out.set(tail, at);
    at += tail.length;
  }
  at += out.write(tail, at);
  return out.subarray(0, at);
}

/**
 * Buffers pages are written into, reused once their response has been handed to the socket:
 * a fresh 2 MB buffer a page made V8 collect garbage about as long as the page took to write.
 * At most `keep` buffers of up to `maxBytes` wait for reuse; bigger pages get their own buffer.
 */
export class PageBuffers {
  private readonly free: Buffer[] = [];
  private readonly keep: number;
  private readonly maxBytes: number;
  constructor(keep = 2, maxBytes = 16 * 1024 * 1024) {
    this.keep = keep;
    this.maxBytes = maxBytes;
  }

  /** A buffer of at least `size` bytes, and the function that gives it back (call it once the bytes are sent). */
  take(size: number): { buf: Buffer; release: () => void } {
    if (size > this.maxBytes) return { buf: Buffer.allocUnsafe(size), release: () => {} };
    let i = this.free.findIndex((b) => b.length >= size);
    if (i < 0 && this.free.length) i = 0; // too small: replaced by a bigger one
    let buf = i >= 0 ? this.free.splice(i, 1)[0]! : undefined;
    // Rounded up, so a page a little bigger than the last does not allocate again.
    if (!buf || buf.length < size)
      buf = Buffer.allocUnsafeSlow(Math.min(this.maxBytes, Math.ceil((size * 1.25) / 65536) * 65536));
    let given = false;
    return {
      buf,
      release: () => {
        if (given) return;
        given = true;
        if (this.free.length < this.keep) this.free.push(buf);
      },
    };
  }

  /** Bytes held for reuse. */
  get byteSize(): number {
    let n = 0;
    for (const b of this.free) n += b.length;
    return n;
  }
}
