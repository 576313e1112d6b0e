// Search quality on the news corpus: every article ingested (one synthetic feed per host, items
// inserted as the feed engine stores them and announced through app.notifyItemChanges), every
// question asked, returned article URLs scored against the question's relevant URLs.
import { createApp } from '../../src/server/create-app.ts';
import type { App } from '../../src/runtime/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { testSql } from '../../src/store/testing.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { searchIndexRepository, flushSearchIndexing } from '../../src/search/indexing.ts';
import { tokenize } from '../../src/search/query.ts';

/** An FTS5 phrase: the word quoted, so FTS5 never reads it as syntax. */
const quote = (word: string) => `"${word.replace(/"/g, '""')}"`;
import type { RankingOptions } from '../../src/search/ranking.ts';
import { tempDataDir } from '../../test/helpers.ts';
import { articleHtml, newsDate, type NewsArticle, type NewsQuestion } from './news-corpus.ts';
import { scoreRun, type Quality } from './metrics.ts';

export interface NewsIndex {
  app: App;
  /** items.id -> article URL */
  urlById: Map<number, string>;
  buildSeconds: number;
  passages: number;
}

/** Ingests every article; returns the App and how long indexing took. */
export async function buildNewsIndex(
  articles: NewsArticle[],
  dataDir = tempDataDir('tidings-bench-search-'),
): Promise<NewsIndex> {
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'warn' } }));
  const db = testSql(app);
  const feedIds = new Map<string, number>();
  const insertFeed = db.prepare(
    'INSERT INTO feeds (url, site_url, title, created_at) VALUES (?, ?, ?, 0) RETURNING id',
  );
  const insertItem =
    db.prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, '') RETURNING id`);
  const urlById = new Map<number, string>();
  let indexMs = 0;
  const batch = 250;
  for (let i = 0; i < articles.length; i += batch) {
    const ids: number[] = [];
    await app.store.transaction(async () => {
      for (const a of articles.slice(i, i + batch)) {
        const host = new URL(a.url).hostname;
        let feedId = feedIds.get(host);
        if (feedId === undefined) {
          feedId = Number((await insertFeed.get<{ id: number }>(`https://${host}/feed`, `https://${host}/`, host))!.id);
          feedIds.set(host, feedId);
        }
        const published = newsDate(a.published) ?? 0;
        const id = Number(
          (await insertItem.get<{ id: number }>(
            feedId,
            a.url,
            a.url,
            a.title,
            articleHtml(a.text),
            published,
            published,
            Date.now() * 1000,
          ))!.id,
        );
        ids.push(id);
        urlById.set(id, a.url);
      }
    });
    const t0 = performance.now();
    app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
    await flushSearchIndexing(app);
    indexMs += performance.now() - t0;
  }
  return { app, urlById, buildSeconds: indexMs / 1000, passages: await searchIndexRepository(app).passageCount() };
}

/**
 * The reference point: plain FTS5 bm25() over whole articles (title + text, default unicode61
 * tokenizer), every word of the question OR-ed — as described in the corpus README.
 */
export async function baselineRun(
  index: NewsIndex,
  articles: NewsArticle[],
  questions: NewsQuestion[],
): Promise<Quality> {
  // FTS5 is SQLite's: the baseline is measured on a SQLite store only.
  const db = testSql(index.app);
  await db.exec(
    'DROP TABLE IF EXISTS bench_baseline_fts; CREATE VIRTUAL TABLE bench_baseline_fts USING fts5(url UNINDEXED, title, text)',
  );
  const ins = db.prepare('INSERT INTO bench_baseline_fts (url, title, text) VALUES (?, ?, ?)');
  await index.app.store.transaction(async () => {
    for (const a of articles) await ins.run(a.url, a.title, a.text);
  });
  const q = db.prepare(
    'SELECT url FROM bench_baseline_fts WHERE bench_baseline_fts MATCH ? ORDER BY bm25(bench_baseline_fts) LIMIT 10',
  );
  const runs = [];
  for (const qq of questions) {
    const words = [...new Set(tokenize(qq.question))];
    const ranked = words.length ? (await q.all<{ url: string }>(words.map(quote).join(' OR '))).map((r) => r.url) : [];
    runs.push({ ranked, relevant: qq.relevant_urls });
  }
  await db.exec('DROP TABLE bench_baseline_fts');
  return scoreRun(runs);
}

/** Our ranking (the LocalIndexProvider, with optional ranking overrides). */
export async function rankedRun(
  index: NewsIndex,
  questions: NewsQuestion[],
  ranking: Partial<RankingOptions> = {},
  opts: { asOfQuestionDate?: boolean } = {},
): Promise<Quality & { p50Ms: number }> {
  const provider = new LocalIndexProvider(searchIndexRepository(index.app), { ranking });
  const times: number[] = [];
  const runs = [];
  for (const qq of questions) {
    // "As of the question date": articles published after it (3 days of slack for time zones)
    // did not exist when the question was asked; applied as a search filter.
    const asked = newsDate(qq.date);
    const filters = opts.asOfQuestionDate && asked !== null ? { publishedBefore: asked + 3 * 86_400 } : {};
    const t0 = performance.now();
    const hits = await provider.search({ text: qq.question, scope: { kind: 'instance' }, filters, limit: 10 });
    times.push(performance.now() - t0);
    runs.push({ ranked: hits.map((h) => index.urlById.get(h.itemId!) ?? h.url), relevant: qq.relevant_urls });
  }
  times.sort((a, b) => a - b);
  return { ...scoreRun(runs), p50Ms: times[Math.floor(times.length / 2)]! };
}
