// Google Reader item JSON, built as a string: a page of 1,000 items is a few MB and this is the hot
// path of every sync, so we concatenate pre-escaped fragments instead of building an object tree
// for JSON.stringify (measured in bench/reader.bench.ts). Field types follow the spec exactly:
// strings for id/timestampUsec/crawlTimeMsec, numbers for published/updated.
import type { ReaderItemBody, ReaderItemState } from '../model/stream.ts';
import type { CatalogEntry } from './catalog.ts';
import { labelStreamId, longItemId, stateStreamId } from './ids.ts';

const q = JSON.stringify;
const CAT_READING_LIST = q(stateStreamId('reading-list'));
const CAT_READ = q(stateStreamId('read'));
const CAT_STARRED = q(stateStreamId('starred'));
const CAT_LIKE = q(stateStreamId('like'));
const CAT_BROADCAST = q(stateStreamId('broadcast'));
const CAT_SAVED = q(stateStreamId('saved-web-pages'));

interface StoredEnclosure { url?: string; type?: string | null; length?: number | null }

function enclosureJson(raw: string | null): string {
  if (!raw) return '';
  let list: StoredEnclosure[];
  try { list = JSON.parse(raw) as StoredEnclosure[]; } catch { return ''; }
  if (!Array.isArray(list) || !list.length) return '';
  const parts = list.filter((e) => e && typeof e.url === 'string').map((e) => {
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
  const links = link ? `"canonical":[{"href":${link}}],"alternate":[{"href":${link},"type":"text/html"}],` : '"canonical":[],"alternate":[],';
  return `"title":${q(it.title)},"published":${it.publishedAt},"updated":${it.updatedAt},${links}`
    + `"summary":{"direction":"ltr","content":${q(it.content ?? it.summary ?? '')}},"author":${q(it.author ?? '')}`
    + enclosureJson(it.enclosures);
}

interface CachedBody { contentHash: string; publishedAt: number; updatedAt: number; json: string }

const sameVersion = (a: { contentHash: string; publishedAt: number; updatedAt: number }, b: typeof a) =>
  a.contentHash === b.contentHash && a.publishedAt === b.publishedAt && a.updatedAt === b.updatedAt;

/**
 * Serialized item bodies, reused while the stored item is unchanged: a page reads only the flags
 * and each item's version (content hash set at ingest, dates), and bodies are read from SQLite and
 * escaped only for items not held here. A few KB per item: decoding and escaping them was most of
 * the time of a 1,000-item page. The version lives in the database, so a change made by another
 * process (CLI refresh) is never served stale. Bounded: the oldest entries go first.
 */
export class ItemBodyCache {
  private readonly map = new Map<number, CachedBody>();
  private readonly max: number;
  constructor(max: number) { this.max = max; }

  /** Body JSON of every item, loading the ones not cached (or changed) with `load`. */
  bodiesFor(states: ReaderItemState[], load: (ids: number[]) => ReaderItemBody[]): Map<number, string> {
    const out = new Map<number, string>();
    const missing: number[] = [];
    for (const st of states) {
      const c = this.map.get(st.itemId);
      if (c && sameVersion(c, st)) out.set(st.itemId, c.json);
      else missing.push(st.itemId);
    }
    if (!missing.length) return out;
    for (const b of load(missing)) {
      const json = itemBodyJson(b);
      out.set(b.itemId, json);
      if (this.max > 0) {
        this.map.delete(b.itemId);
        this.map.set(b.itemId, { contentHash: b.contentHash, publishedAt: b.publishedAt, updatedAt: b.updatedAt, json });
      }
    }
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
    return out;
  }

  get size(): number { return this.map.size; }
}

function itemJson(it: ReaderItemState, body: string, feed: CatalogEntry | undefined, tags: string[] | undefined): string {
  let cats = CAT_READING_LIST;
  if (it.read) cats += ',' + CAT_READ;
  if (it.starred) cats += ',' + CAT_STARRED;
  if (it.liked) cats += ',' + CAT_LIKE;
  if (it.broadcast) cats += ',' + CAT_BROADCAST;
  if (it.saved) cats += ',' + CAT_SAVED;
  if (feed) cats += feed.folderCategoriesJson;
  if (tags) for (const t of tags) cats += ',' + q(labelStreamId(t));
  return `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}",`
    + `"categories":[${cats}],${body},"origin":${feed ? feed.originJson : '{"streamId":"","title":"","htmlUrl":""}'}}`;
}

/** The `items` array of stream/contents and stream/items/contents. Items without a body (deleted meanwhile) are left out. */
export function itemsJson(items: ReaderItemState[], bodies: Map<number, string>, origins: Map<number, CatalogEntry>, tags: Map<number, string[]>): string {
  const parts: string[] = [];
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body !== undefined) parts.push(itemJson(it, body, origins.get(it.feedId), tags.get(it.itemId)));
  }
  return '[' + parts.join(',') + ']';
}

export interface StreamEnvelope {
  id: string;
  title: string;
  selfHref: string;
  updatedUs: number;
  continuation?: string;
}

/** The whole stream/contents body around an items array. */
export function streamContentsJson(env: StreamEnvelope, itemsArray: string): string {
  return `{"direction":"ltr","id":${q(env.id)},"title":${q(env.title)},"description":"",`
    + `"self":{"href":${q(env.selfHref)}},"updated":${Math.floor(env.updatedUs / 1e6)},"updatedUsec":"${env.updatedUs}",`
    + `"items":${itemsArray}` + (env.continuation ? `,"continuation":${q(env.continuation)}` : '') + '}';
}
