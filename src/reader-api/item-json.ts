// Google Reader item JSON, built as a string: a page of 1,000 items is a few MB and this is the hot
// path of every sync, so we concatenate pre-escaped fragments instead of building an object tree
// for JSON.stringify (measured in bench/reader.bench.ts). Field types follow the spec exactly:
// strings for id/timestampUsec/crawlTimeMsec, numbers for published/updated.
import type { FeedOrigin, StoredReaderItem } from '../model/stream.ts';
import { feedStreamId, labelStreamId, longItemId, stateStreamId } from './ids.ts';

const q = JSON.stringify;
const CAT_READING_LIST = q(stateStreamId('reading-list'));
const CAT_READ = q(stateStreamId('read'));
const CAT_STARRED = q(stateStreamId('starred'));
const CAT_LIKE = q(stateStreamId('like'));
const CAT_BROADCAST = q(stateStreamId('broadcast'));
const CAT_SAVED = q(stateStreamId('saved-web-pages'));

interface StoredEnclosure { url?: string; type?: string | null; length?: number | null }

/** Per-feed fragments computed once per page: origin object and folder categories. */
interface FeedFragments { origin: string; folderCategories: string }

function feedFragments(origin: FeedOrigin | undefined, feedId: number): FeedFragments {
  if (!origin) return { origin: `{"streamId":${q(`feed/tidings:${feedId}`)},"title":"","htmlUrl":""}`, folderCategories: '' };
  return {
    origin: `{"streamId":${q(feedStreamId(origin.url))},"title":${q(origin.title)},"htmlUrl":${q(origin.siteUrl ?? '')}}`,
    folderCategories: origin.folders.map((f) => ',' + q(labelStreamId(f))).join(''),
  };
}

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
function itemBodyJson(it: StoredReaderItem): string {
  const link = it.url ? q(it.url) : '';
  const links = link ? `"canonical":[{"href":${link}}],"alternate":[{"href":${link},"type":"text/html"}],` : '"canonical":[],"alternate":[],';
  return `"title":${q(it.title)},"published":${it.publishedAt},"updated":${it.updatedAt},${links}`
    + `"summary":{"direction":"ltr","content":${q(it.content ?? it.summary ?? '')}},"author":${q(it.author ?? '')}`
    + enclosureJson(it.enclosures);
}

interface CachedBody { it: StoredReaderItem; json: string }

/**
 * Serialized item bodies, reused while the stored item is unchanged. Every field the body is made
 * of is compared with the row just read (string equality is a memcmp, far cheaper than escaping
 * a few KB of HTML again), so an item changed by another process (CLI refresh) is never served
 * stale. Bounded: the oldest entries go first.
 */
export class ItemBodyCache {
  private readonly map = new Map<number, CachedBody>();
  private readonly max: number;
  constructor(max: number) { this.max = max; }

  body(it: StoredReaderItem): string {
    if (this.max <= 0) return itemBodyJson(it);
    const e = this.map.get(it.itemId);
    if (e) {
      const o = e.it;
      if (o.content === it.content && o.title === it.title && o.url === it.url && o.summary === it.summary && o.author === it.author
        && o.enclosures === it.enclosures && o.publishedAt === it.publishedAt && o.updatedAt === it.updatedAt) return e.json;
      this.map.delete(it.itemId);
    }
    const json = itemBodyJson(it);
    this.map.set(it.itemId, { it, json });
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
    return json;
  }

  get size(): number { return this.map.size; }
}

const NO_CACHE = new ItemBodyCache(0);

function itemJson(it: StoredReaderItem, feed: FeedFragments, tags: string[] | undefined, cache: ItemBodyCache): string {
  let cats = CAT_READING_LIST;
  if (it.read) cats += ',' + CAT_READ;
  if (it.starred) cats += ',' + CAT_STARRED;
  if (it.liked) cats += ',' + CAT_LIKE;
  if (it.broadcast) cats += ',' + CAT_BROADCAST;
  if (it.saved) cats += ',' + CAT_SAVED;
  cats += feed.folderCategories;
  if (tags) for (const t of tags) cats += ',' + q(labelStreamId(t));
  return `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}",`
    + `"categories":[${cats}],${cache.body(it)},"origin":${feed.origin}}`;
}

/** The `items` array of stream/contents and stream/items/contents. */
export function itemsJson(items: StoredReaderItem[], origins: Map<number, FeedOrigin>, tags: Map<number, string[]>, cache: ItemBodyCache = NO_CACHE): string {
  const feeds = new Map<number, FeedFragments>();
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    let f = feeds.get(it.feedId);
    if (!f) { f = feedFragments(origins.get(it.feedId), it.feedId); feeds.set(it.feedId, f); }
    parts[i] = itemJson(it, f, tags.get(it.itemId), cache);
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
