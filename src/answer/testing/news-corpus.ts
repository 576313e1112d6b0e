// Test and benchmark support: loads articles of the shared news corpus (../shared/corpus/news)
// into an App the way the feed engine stores them (one feed per site, HTML paragraphs), so the
// answer tests run against the real search index over real articles.
import { readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { App } from '../../runtime/app.ts';
import { addFeed, ingest } from '../../search/testing/fixtures.ts';
import { SHARED } from '../../../test/helpers.ts';
import { escapeHtmlText } from '../../text/escape-html.ts';

export interface NewsArticle {
  url: string;
  title: string;
  text: string;
  published: string | null;
}
export interface NewsQuestion {
  id: string;
  /** The day the question was asked, "2025/01/03" or "2025-01-10" (its "this week" counts from it). */
  date: string;
  question: string;
  choices: string[];
  answer: string[];
  relevant_urls: string[];
}

export const NEWS_DIR = join(SHARED, 'corpus/news');
export const hasNews = existsSync(join(NEWS_DIR, 'articles.jsonl.gz'));

export function readArticles(limit = Infinity, dir = NEWS_DIR): NewsArticle[] {
  const lines = gunzipSync(readFileSync(join(dir, 'articles.jsonl.gz')))
    .toString('utf8')
    .split('\n');
  const out: NewsArticle[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    out.push(JSON.parse(line) as NewsArticle);
    if (out.length >= limit) break;
  }
  return out;
}

export function readQuestions(dir = NEWS_DIR): NewsQuestion[] {
  return readFileSync(join(dir, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as NewsQuestion);
}

/** Article text as the feed engine would store it: sanitized HTML, one <p> per paragraph. */
export function articleHtml(text: string): string {
  return text
    .split(/\n+/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escapeHtmlText(p.trim())}</p>`)
    .join('\n');
}

/** Stores the articles in the App (feeds by host); returns the item ids in article order. */
export async function loadArticles(
  app: App,
  articles: NewsArticle[],
  opts: { publishedAt?: (a: NewsArticle) => number } = {},
): Promise<number[]> {
  const feeds = new Map<string, number>();
  const byFeed = new Map<number, { idx: number; item: Parameters<typeof ingest>[2][number] }[]>();
  for (const [idx, a] of articles.entries()) {
    const host = new URL(a.url).hostname;
    let feedId = feeds.get(host);
    if (feedId === undefined) {
      feedId = await addFeed(app, `https://${host}/feed.xml`, host);
      feeds.set(host, feedId);
    }
    const published =
      opts.publishedAt?.(a) ??
      (a.published ? Date.parse(a.published.replace(/\//g, '-') + 'T12:00:00Z') / 1000 : 1_700_000_000);
    const content = articleHtml(a.text);
    const list = byFeed.get(feedId) ?? [];
    list.push({ idx, item: { url: a.url, title: a.title, content, publishedAt: published } });
    byFeed.set(feedId, list);
  }
  const ids: number[] = new Array(articles.length);
  await app.store.transaction(async () => {
    for (const [feedId, list] of byFeed) {
      const got = await ingest(
        app,
        feedId,
        list.map((x) => x.item),
      );
      list.forEach((x, i) => {
        ids[x.idx] = got[i]!;
      });
    }
  });
  return ids;
}
