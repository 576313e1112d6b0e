// Search latency and index build rate on a generated corpus of a given number of passages:
// articles of ten ~90-word paragraphs made of sentences drawn at random from the news corpus
// (so word frequencies are those of real news), spread over 100 feeds and two years, indexed
// through the same listener the feed engine triggers. The 680 news questions are then asked.
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { transaction } from '../../src/store/db.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { searchIndexRepository, flushSearchIndexing } from '../../src/search/indexing.ts';
import type { SearchScope } from '../../src/answer/types.ts';
import { seededRandom as random, tempDataDir } from '../../test/helpers.ts';
import { escapeHtml, type NewsArticle, type NewsQuestion } from './news-corpus.ts';
import { percentile } from './metrics.ts';

export interface ScaleResult {
  passages: number;
  articles: number;
  buildSeconds: number;
  passagesPerSecond: number;
  /** Per scope: search latency over every question, ms. */
  latency: { scope: string; p50: number; p99: number; mean: number }[];
}


export function sentencePool(articles: NewsArticle[]): string[] {
  const out: string[] = [];
  for (const a of articles) for (const s of a.text.split(/(?<=[.!?])\s+/)) if (s.length > 30 && s.length < 400) out.push(s.trim());
  return out;
}

/**
 * Builds (or, given a data folder that already holds the generated corpus, reuses) the index and
 * measures it. Reusing lets a ranking change be measured at 1M passages without the 5-10 min build.
 */
export function runScale(targetPassages: number, articles: NewsArticle[], questions: NewsQuestion[], log: (s: string) => void = () => {}, dataDir = tempDataDir('tidings-bench-scale-')): ScaleResult {
  const pool = sentencePool(articles);
  const titles = articles.map((a) => a.title);
  const rnd = random(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const app: App = createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'warn' } }));
  try {
    const db = app.db;
    const existing = app.users.findByName('bench');
    const user = existing?.id ?? app.users.create('bench', 'x').id;
    const feeds: number[] = (db.prepare('SELECT id FROM feeds ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    for (let f = feeds.length; f < 100; f++) {
      const id = Number(db.prepare('INSERT INTO feeds (url, site_url, title, created_at) VALUES (?, ?, ?, 0)').run(`https://site${f}.example/feed`, `https://site${f}.example/`, `Site ${f}`).lastInsertRowid);
      db.prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (?, ?, 0)').run(user, id);
      feeds.push(id);
    }
    const insertItem = db.prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')`);
    const now = Math.floor(Date.now() / 1000);
    const repo = searchIndexRepository(db);
    let indexMs = 0;
    let n = (db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    const paragraph = () => {
      const words: string[] = [];
      let count = 0;
      while (count < 90) { const s = pick(pool); words.push(s); count += s.split(' ').length; }
      return `<p>${escapeHtml(words.join(' '))}</p>`;
    };
    while (repo.passageCount() < targetPassages) {
      const ids: number[] = [];
      transaction(db, () => {
        for (let i = 0; i < 500; i++, n++) {
          const feed = feeds[n % feeds.length]!;
          const published = now - Math.floor(rnd() * 2 * 365 * 86_400);
          const content = Array.from({ length: 10 }, paragraph).join('\n');
          ids.push(Number(insertItem.run(feed, `g${n}`, `https://site${feed}.example/a/${n}`, pick(titles), content, published, published, Date.now() * 1000).lastInsertRowid));
        }
      });
      const t0 = performance.now();
      app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
      flushSearchIndexing(app);
      indexMs += performance.now() - t0;
      if (n % 20_000 === 0) log(`  … ${repo.passageCount()} passages`);
    }
    const passages = repo.passageCount();
    const provider = new LocalIndexProvider(repo);
    const scopes: [string, SearchScope][] = [['instance', { kind: 'instance' }], ['subscriptions', { kind: 'subscriptions', userId: user }]];
    const latency = scopes.map(([name, scope]) => {
      for (const q of questions.slice(0, 20)) provider.searchSync({ text: q.question, scope, filters: {}, limit: 10 }); // warm-up
      const times = questions.map((q) => {
        const t0 = performance.now();
        provider.searchSync({ text: q.question, scope, filters: {}, limit: 10 });
        return performance.now() - t0;
      }).sort((a, b) => a - b);
      return { scope: name, p50: percentile(times, 0.5), p99: percentile(times, 0.99), mean: times.reduce((a, b) => a + b, 0) / times.length };
    });
    return { passages, articles: n, buildSeconds: indexMs / 1000, passagesPerSecond: passages / (indexMs / 1000), latency };
  } finally {
    void app.close();
  }
}
