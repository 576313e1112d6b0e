// Search quality on the news corpus: every article ingested (one synthetic feed per host, items
// inserted as the feed engine stores them and announced through app.notifyItemChanges), every
// question asked, returned article URLs scored against the question's relevant URLs.
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { transaction } from '../../src/store/db.ts';
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
export function buildNewsIndex(articles: NewsArticle[], dataDir = tempDataDir('tidings-bench-search-')): NewsIndex {
  const app = createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'warn' } }));
  const db = app.db;
  const feedIds = new Map<string, number>();
  const insertFeed = db.prepare('INSERT INTO feeds (url, site_url, title, created_at) VALUES (?, ?, ?, 0)');
  const insertItem = db.prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')`);
  const urlById = new Map<number, string>();
  let indexMs = 0;
  const batch = 250;
  for (let i = 0; i < articles.length; i += batch) {
    const ids: number[] = [];
    transaction(db, () => {
      for (const a of articles.slice(i, i + batch)) {
        const host = new URL(a.url).hostname;
        let feedId = feedIds.get(host);
        if (feedId === undefined) {
          feedId = Number(insertFeed.run(`https://${host}/feed`, `https://${host}/`, host).lastInsertRowid);
          feedIds.set(host, feedId);
        }
        const published = newsDate(a.published) ?? 0;
        const id = Number(insertItem.run(feedId, a.url, a.url, a.title, articleHtml(a.text), published, published, Date.now() * 1000).lastInsertRowid);
        ids.push(id);
        urlById.set(id, a.url);
      }
    });
    const t0 = performance.now();
    app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
    flushSearchIndexing(app);
    indexMs += performance.now() - t0;
  }
  return { app, urlById, buildSeconds: indexMs / 1000, passages: searchIndexRepository(db).passageCount() };
}

/**
 * The reference point: plain FTS5 bm25() over whole articles (title + text, default unicode61
 * tokenizer), every word of the question OR-ed — as described in the corpus README.
 */
export function baselineRun(index: NewsIndex, articles: NewsArticle[], questions: NewsQuestion[]): Quality {
  const db = index.app.db;
  db.exec('DROP TABLE IF EXISTS bench_baseline_fts; CREATE VIRTUAL TABLE bench_baseline_fts USING fts5(url UNINDEXED, title, text)');
  const ins = db.prepare('INSERT INTO bench_baseline_fts (url, title, text) VALUES (?, ?, ?)');
  transaction(db, () => { for (const a of articles) ins.run(a.url, a.title, a.text); });
  const q = db.prepare('SELECT url FROM bench_baseline_fts WHERE bench_baseline_fts MATCH ? ORDER BY bm25(bench_baseline_fts) LIMIT 10');
  const runs = questions.map((qq) => {
    const words = [...new Set(tokenize(qq.question))];
    const ranked = words.length ? (q.all(words.map(quote).join(' OR ')) as { url: string }[]).map((r) => r.url) : [];
    return { ranked, relevant: qq.relevant_urls };
  });
  db.exec('DROP TABLE bench_baseline_fts');
  return scoreRun(runs);
}

/** Our ranking (the LocalIndexProvider, with optional ranking overrides). */
export function rankedRun(index: NewsIndex, questions: NewsQuestion[], ranking: Partial<RankingOptions> = {}, opts: { asOfQuestionDate?: boolean } = {}): Quality & { p50Ms: number } {
  const provider = new LocalIndexProvider(searchIndexRepository(index.app.db), { ranking });
  const times: number[] = [];
  const runs = questions.map((qq) => {
    // "As of the question date": articles published after it (3 days of slack for time zones)
    // did not exist when the question was asked; applied as a search filter.
    const asked = newsDate(qq.date);
    const filters = opts.asOfQuestionDate && asked !== null ? { publishedBefore: asked + 3 * 86_400 } : {};
    const t0 = performance.now();
    const hits = provider.searchSync({ text: qq.question, scope: { kind: 'instance' }, filters, limit: 10 });
    times.push(performance.now() - t0);
    return { ranked: hits.map((h) => index.urlById.get(h.itemId!) ?? h.url), relevant: qq.relevant_urls };
  });
  times.sort((a, b) => a - b);
  return { ...scoreRun(runs), p50Ms: times[Math.floor(times.length / 2)]! };
}
