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
 * An item's JSON as far as it is the same for every user, kept as UTF-8 bytes: `head` is
 * `{"id":…,"crawlTimeMsec":…,"timestampUsec":…,"categories":[` and `body` is title through
 * enclosure. The user's categories (states, folders, tags) go between the two and the origin after
 * the body; both views share one allocation.
 */
export interface ItemFragment {
  head: Buffer;
  body: Buffer;
}

/** The fragment of a stored item: id and crawl time (fixed at ingest) and its body, encoded once. */
export function itemFragment(it: ReaderItemBody): ItemFragment {
  const head = `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}","categories":[`;
  // The head is ASCII (digits and the prefix): its length in bytes is its length in characters.
  const bytes = Buffer.from(head + itemBodyJson(it));
  return { head: bytes.subarray(0, head.length), body: bytes.subarray(head.length) };
}

/**
 * Item fragments, reused until any item changes: a page reads only the user's flags, and items
 * are read from the database and escaped only when not held here. A few KB per item: decoding and
 * escaping them was most of the time of a 1,000-item page, writing each item's id and crawl times
 * digit by digit a third of what was left of a 150-id call. The items version lives in the
 * database (bumped by a trigger on every item change), so a change made by any process (CLI
 * refresh) empties the cache before the next page. Kept as UTF-8 bytes, so a page is assembled by
 * copying, not by re-encoding megabytes of text. Bounded by count and bytes: oldest go first.
 * Nothing here depends on the user: read, starred, tags and folders are written around the
 * fragment from the page's own read (renderItems), so they are as fresh as that read.
 */
export class ItemFragmentCache {
  private readonly map = new Map<number, ItemFragment>();
  private readonly max: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private version = -1;
  /** Holds at most `max` items and `maxBytes` bytes of JSON (a few big items must not pin megabytes). */
  constructor(max: number, maxBytes = Infinity) {
    this.max = max;
    this.maxBytes = maxBytes;
  }

  /**
   * The fragment of each item, in the order of `states` (undefined for an item gone meanwhile),
   * loading the ones not cached with `load`.
   */
  async fragmentsFor(
    states: ReaderItemState[],
    itemsVersion: number,
    load: (ids: number[]) => Promise<ReaderItemBody[]>,
  ): Promise<(ItemFragment | undefined)[]> {
    if (itemsVersion !== this.version) {
      this.map.clear();
      this.bytes = 0;
      this.version = itemsVersion;
    }
    const out: (ItemFragment | undefined)[] = new Array(states.length);
    let missing: number[] | undefined;
    for (let k = 0; k < states.length; k++) {
      const c = this.map.get(states[k]!.itemId);
      if (c) out[k] = c;
      else (missing ??= []).push(states[k]!.itemId);
    }
    if (!missing) return out;
    const loaded = new Map<number, ItemFragment>();
    for (const b of await load(missing)) {
      const f = itemFragment(b);
      loaded.set(b.itemId, f);
      const size = f.head.length + f.body.length;
      if (this.max > 0 && size <= this.maxBytes) {
        const old = this.map.get(b.itemId);
        if (old) this.bytes -= old.head.length + old.body.length;
        this.map.set(b.itemId, f);
        this.bytes += size;
      }
    }
    while (this.map.size > this.max || this.bytes > this.maxBytes) {
      const oldest = this.map.keys().next().value!;
      const f = this.map.get(oldest)!;
      this.bytes -= f.head.length + f.body.length;
      this.map.delete(oldest);
    }
    for (let k = 0; k < states.length; k++) out[k] ??= loaded.get(states[k]!.itemId);
    return out;
  }

  get size(): number {
    return this.map.size;
  }
  get byteSize(): number {
    return this.bytes;
  }
}

// Around each item's fragment the page gets the user's part as bytes: its categories (states,
// the feed's folders, tags) and `],` between the fragment's head and body, the feed's origin after
// it. The first part is one of 32 prepared byte strings per set of folders (one per combination
// of the five states), so an item is four copies; only tags (rare) are encoded per item. Building
// the per-user head as a string first (and measuring it with Buffer.byteLength, then encoding it)
// cost as much as the rest of the page.
/** The state categories for each combination of read|starred|liked|broadcast|saved (bits 0..4). */
const STATE_CATEGORIES: string[] = Array.from(
  { length: 32 },
  (_, mask) =>
    CAT_READING_LIST +
    [CAT_READ, CAT_STARRED, CAT_LIKE, CAT_BROADCAST, CAT_SAVED]
      .filter((_, bit) => mask & (1 << bit))
      .map((c) => ',' + c)
      .join(''),
);

/**
 * `<state categories><folders>],` for each state mask, per folder set (feeds filed alike share
 * them): built on first use. Bounded: a server with more distinct folder sets than this starts over.
 */
const middlesByFolders = new Map<string, Buffer[]>();
const MAX_FOLDER_SETS = 4096;
function middlesOf(folderCategoriesJson: string): Buffer[] {
  let m = middlesByFolders.get(folderCategoriesJson);
  if (!m) {
    if (middlesByFolders.size >= MAX_FOLDER_SETS) middlesByFolders.clear();
    m = [];
    middlesByFolders.set(folderCategoriesJson, m);
  }
  return m;
}

/** A feed's bytes in an item: its folders as categories (text), `,"origin":{…}}` to close the item. */
interface FeedBytes {
  folders: string;
  middles: Buffer[];
  tail: Buffer;
}
const NO_FEED: FeedBytes = {
  folders: '',
  middles: middlesOf(''),
  tail: Buffer.from(',"origin":{"streamId":"","title":"","htmlUrl":""}}'),
};
// Per catalog entry (entries are rebuilt when the catalog changes, so these go with them): a page
// of items from 150 feeds encoded 150 origins a call before.
const feedBytes = new WeakMap<CatalogEntry, FeedBytes>();
function bytesOf(feed: CatalogEntry | undefined): FeedBytes {
  if (!feed) return NO_FEED;
  let b = feedBytes.get(feed);
  if (!b) {
    b = {
      folders: feed.folderCategoriesJson,
      middles: middlesOf(feed.folderCategoriesJson),
      tail: Buffer.from(`,"origin":${feed.originJson}}`),
    };
    feedBytes.set(feed, b);
  }
  return b;
}

/** Copies `src` into `out` at `at`: a loop for the short ones (TypedArray#set costs more than their bytes). */
function put(out: Buffer, at: number, src: Buffer): number {
  const n = src.length;
  if (n > 48) out.set(src, at);
  else for (let k = 0; k < n; k++) out[at + k] = src[k]!;
  return at + n;
}

const stateMask = (it: ReaderItemState) =>
  (it.read ? 1 : 0) | (it.starred ? 2 : 0) | (it.liked ? 4 : 0) | (it.broadcast ? 8 : 0) | (it.saved ? 16 : 0);

/** An item's categories and `],`: prepared per folder set and states, built here only for tagged items (rare). */
function middleOf(it: ReaderItemState, feed: FeedBytes, tags: string[] | undefined): Buffer {
  const mask = stateMask(it);
  if (tags?.length)
    return Buffer.from(
      STATE_CATEGORIES[mask]! + feed.folders + tags.map((t) => ',' + q(labelStreamId(t))).join('') + '],',
    );
  let m = feed.middles[mask];
  if (!m) {
    m = Buffer.from(STATE_CATEGORIES[mask]! + feed.folders + '],');
    feed.middles[mask] = m;
  }
  return m;
}

/**
 * A page's items ready to be written: each item's fragment, its categories and its feed's origin,
 * with the exact size of the items array. The page is written once, envelope included, by
 * streamContentsJson: nothing of an item is built twice or measured after it is built.
 */
export interface RenderedItems {
  fragments: ItemFragment[];
  /** The item's categories and `],`, written between the fragment's head and body. */
  middles: Buffer[];
  /** The item's origin and closing brace. */
  tails: Buffer[];
  /** UTF-8 bytes of the `items` array: brackets, commas and the parts above. */
  byteLength: number;
}

/** The items of stream/contents and stream/items/contents; items without a fragment (deleted meanwhile) are left out. */
export function renderItems(
  items: ReaderItemState[],
  fragments: (ItemFragment | undefined)[],
  originOf: (feedId: number) => CatalogEntry | undefined,
  tags: Map<number, string[]>,
): RenderedItems {
  const out: RenderedItems = { fragments: [], middles: [], tails: [], byteLength: 2 };
  const withTags = tags.size > 0;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    const fragment = fragments[k];
    if (fragment === undefined) continue;
    const feed = bytesOf(originOf(it.feedId));
    const middle = middleOf(it, feed, withTags ? tags.get(it.itemId) : undefined);
    out.byteLength +=
      (out.fragments.length > 0 ? 1 : 0) +
      fragment.head.length +
      middle.length +
      fragment.body.length +
      feed.tail.length;
    out.fragments.push(fragment);
    out.middles.push(middle);
    out.tails.push(feed.tail);
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
  const { fragments, middles, tails } = items;
  for (let k = 0; k < fragments.length; k++) {
    if (k > 0) out[at++] = 0x2c; // ,
    const fragment = fragments[k]!;
    // TypedArray set, not Buffer copy: copy's argument checks cost more than the bytes.
    out.set(fragment.head, at);
    at += fragment.head.length;
    at = put(out, at, middles[k]!);
    out.set(fragment.body, at);
    at += fragment.body.length;
    at = put(out, at, tails[k]!);
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
