// What a parse job does, on a parse worker (parse-worker.ts) or, with a pool of size 0, on the
// calling thread: every step that reads remote content (a feed, an article page, a web search
// result's page, a page's feed or icon links, an OPML file) so it runs under the pool's time limit, never on the main thread.
import type { ParsedFeed } from '../../model/parsed-feed.ts';
import { parseFeed } from '../parser/parse-feed.ts';
import {
  decodeHtml,
  extractArticle,
  readablePage,
  type ExtractedArticle,
  type ReadablePage,
} from '../fulltext/extract.ts';
import { decodeFeedBody } from '../encoding/decode-feed-body.ts';
import { findFeedLinks, type FeedLink } from '../discovery/find-feed-links.ts';
import { findIconLinks } from '../discovery/find-icon-links.ts';
import { parseOpmlSubscriptions, type OpmlSubscription } from '../opml/opml.ts';
import type { DocumentJob } from './parse-pool.ts';

export type JobResult =
  | ParsedFeed
  | ExtractedArticle
  | ReadablePage
  | null
  | FeedLink[]
  | string[]
  | OpmlSubscription[];

export function runJob(job: DocumentJob): JobResult {
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  switch (job.kind ?? 'feed') {
    case 'feed':
      return parseFeed(body, { url: job.url, contentType: job.contentType, crawlTime: job.crawlTime });
    case 'article':
      return extractArticle(decodeHtml(body, job.contentType), job.url) ?? null;
    case 'feed-links':
      return findFeedLinks(decodeFeedBody(body, job.contentType).text, job.url);
    case 'icon-links':
      return findIconLinks(body.toString('utf8'), job.url);
    case 'web-page':
      return readablePage(body.toString('utf8')) ?? null;
    case 'opml':
      return parseOpmlSubscriptions(body.toString('utf8'));
  }
}
