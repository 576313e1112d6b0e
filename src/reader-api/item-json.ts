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
 * The `items` array of stream/contents and stream/items/contents, as UTF-8 bytes. Items without a
 * body (deleted meanwhile) are left out.
 */
export function itemsJson(
  items: ReaderItemState[],
  bodies: Map<number, Buffer>,
  origins: Map<number, CatalogEntry>,
  tags: Map<number, string[]>,
): Buffer {
  // One buffer, written in place: item heads are encoded straight into it and cached bodies copied,
  // instead of a small Buffer per head and a concat (measured: about half the assembly time).
  const originTails = new Map<number, Buffer>();
  let size = 2;
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body === undefined) continue;
    let tail = originTails.get(it.feedId);
    if (!tail) {
      const feed = origins.get(it.feedId);
      tail = feed ? Buffer.from(`,"origin":${feed.originJson}}`) : NO_ORIGIN;
      originTails.set(it.feedId, tail);
    }
    size += body.length + tail.length + 1;
  }
  const heads: string[] = [];
  for (const it of items) {
    if (!bodies.has(it.itemId)) continue;
    const head = itemHead(it, origins.get(it.feedId), tags.get(it.itemId));
    heads.push(head);
    size += Buffer.byteLength(head);
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.write('[');
  let k = 0;
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body === undefined) continue;
    if (k > 0) at += out.write(',', at);
    at += out.write(heads[k++], at);
    at += body.copy(out, at);
    at += originTails.get(it.feedId)!.copy(out, at);
  }
  at += out.write(']', at);
  return at === size ? out : out.subarray(0, at);
}

export interface StreamEnvelope {
  id: string;
  title: string;
  selfHref: string;
  updatedUs: number;
  continuation?: string;
}

/** The whole stream/contents body around an items array. */
export function streamContentsJson(env: StreamEnvelope, itemsArray: Buffer): Buffer {
  const head =
    `{"direction":"ltr","id":${q(env.id)},"title":${q(env.title)},"description":"",` +
    `"self":{"href":${q(env.selfHref)}},"updated":${Math.floor(env.updatedUs / 1e6)},"updatedUsec":"${env.updatedUs}","items":`;
  const tail = (env.continuation ? `,"continuation":${q(env.continuation)}` : '') + '}';
  return Buffer.concat([Buffer.from(head), itemsArray, Buffer.from(tail)]);
}
