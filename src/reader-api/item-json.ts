// Google Reader item JSON, built as a string: a page of 1,000 items is a few MB and this is the hot
// path of every sync, so we concatenate pre-escaped fragments instead of building an object tree
// for JSON.stringify (measured in bench/reader.bench.ts). Field types follow the spec exactly:
// strings for id/timestampUsec/crawlTimeMsec, numbers for published/updated.
import type { StoredReaderItem, SubscriptionView } from '../model/stream.ts';
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

function feedFragments(origin: SubscriptionView | undefined, feedId: number): FeedFragments {
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

function itemJson(it: StoredReaderItem, feed: FeedFragments, tags: string[] | undefined): string {
  let cats = CAT_READING_LIST;
  if (it.read) cats += ',' + CAT_READ;
  if (it.starred) cats += ',' + CAT_STARRED;
  if (it.liked) cats += ',' + CAT_LIKE;
  if (it.broadcast) cats += ',' + CAT_BROADCAST;
  if (it.saved) cats += ',' + CAT_SAVED;
  cats += feed.folderCategories;
  if (tags) for (const t of tags) cats += ',' + q(labelStreamId(t));
  const link = it.url ? q(it.url) : '';
  const links = link ? `"canonical":[{"href":${link}}],"alternate":[{"href":${link},"type":"text/html"}],` : '"canonical":[],"alternate":[],';
  return `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}",`
    + `"categories":[${cats}],"title":${q(it.title)},"published":${it.publishedAt},"updated":${it.updatedAt},${links}`
    + `"summary":{"direction":"ltr","content":${q(it.content ?? it.summary ?? '')}},"author":${q(it.author ?? '')}`
    + enclosureJson(it.enclosures) + `,"origin":${feed.origin}}`;
}

/** The `items` array of stream/contents and stream/items/contents. */
export function itemsJson(items: StoredReaderItem[], origins: Map<number, SubscriptionView>, tags: Map<number, string[]>): string {
  const feeds = new Map<number, FeedFragments>();
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    let f = feeds.get(it.feedId);
    if (!f) { f = feedFragments(origins.get(it.feedId), it.feedId); feeds.set(it.feedId, f); }
    parts[i] = itemJson(it, f, tags.get(it.itemId));
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
