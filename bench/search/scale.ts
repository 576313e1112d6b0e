// Search latency and index build rate on a generated corpus of a given number of passages:
// articles of ten ~90-word paragraphs made of sentences drawn at random from the news corpus
// (so word frequencies are those of real news), spread over 100 feeds and two years, indexed
// through the same listener the feed engine triggers. The 680 news questions are then asked.
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { testSql } from '../../src/store/testing.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { searchIndexRepository, flushSearchIndexing } from '../../src/search/indexing.ts';
import type { SearchScope } from '../../src/search/types.ts';
import { seededRandom as random, tempDataDir } from '../../test/helpers.ts';
import type { NewsArticle, NewsQuestion } from './news-corpus.ts';
import { escapeHtmlText } from '../../src/text/escape-html.ts';
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
  for (const a of articles)
    for (const s of a.text.split(/(?<=[.!?])\s+/)) if (s.length > 30 && s.length < 400) out.push(s.trim());
  return out;
}

/**
 * Builds (or, given a data folder that already holds the generated corpus, reuses) the index and
 * measures it. Reusing lets a ranking change be measured at 1M passages without the 5-10 min build.
 */
export async function runScale(
  targetPassages: number,
  articles: NewsArticle[],
  questions: NewsQuestion[],
  log: (s: string) => void = () => {},
  dataDir = tempDataDir('tidings-bench-scale-'),
  databaseUrl = '',
): Promise<ScaleResult> {
  const pool = sentencePool(articles);
  const titles = articles.map((a) => a.title);
  const rnd = random(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const app: App = await createApp(
    loadConfig({ env: {}, overrides: { dataDir, logLevel: 'warn', ...(databaseUrl ? { databaseUrl } : {}) } }),
  );
  try {
    const db = testSql(app);
    const existing = await app.users.findByName('bench');
    const user = existing?.id ?? (await app.users.create('bench', 'x')).id;
    const feeds: number[] = (await db.prepare('SELECT id FROM feeds ORDER BY id').all<{ id: number }>()).map((r) =>
      Number(r.id),
    );
    for (let f = feeds.length; f < 100; f++) {
      const id = Number(
        (await db
          .prepare('INSERT INTO feeds (url, site_url, title, created_at) VALUES (?, ?, ?, 0) RETURNING id')
          .get<{ id: number }>(`https://site${f}.example/feed`, `https://site${f}.example/`, `Site ${f}`))!.id,
      );
      await db.prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (?, ?, 0)').run(user, id);
      feeds.push(id);
    }
    const insertItem =
      db.prepare(`INSERT INTO items (feed_id, guid, url, title, content, published_at, updated_at, crawled_us, content_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, '') RETURNING id`);
    const now = Math.floor(Date.now() / 1000);
    const repo = searchIndexRepository(app);
    let indexMs = 0;
    let n = Number((await db.prepare('SELECT count(*) AS n FROM items').get<{ n: number }>())!.n);
    const paragraph = () => {
      const words: string[] = [];
      let count = 0;
      while (count < 90) {
        const s = pick(pool);
        words.push(s);
        count += s.split(' ').length;
      }
      return `<p>${escapeHtmlText(words.join(' '))}</p>`;
    };
    while ((await repo.passageCount()) < targetPassages) {
      const ids: number[] = [];
      await app.store.transaction(async () => {
        for (let i = 0; i < 500; i++, n++) {
          const feed = feeds[n % feeds.length]!;
          const published = now - Math.floor(rnd() * 2 * 365 * 86_400);
          const content = Array.from({ length: 10 }, paragraph).join('\n');
          ids.push(
            Number(
              (await insertItem.get<{ id: number }>(
                feed,
                `g${n}`,
                `https://site${feed}.example/a/${n}`,
                pick(titles),
                content,
                published,
                published,
                Date.now() * 1000,
              ))!.id,
            ),
          );
        }
      });
      const t0 = performance.now();
      app.notifyItemChanges({ added: ids, updated: [], deleted: [] });
      await flushSearchIndexing(app);
      indexMs += performance.now() - t0;
      if (n % 20_000 === 0) log(`  … ${await repo.passageCount()} passages`);
    }
    const passages = await repo.passageCount();
    const provider = new LocalIndexProvider(repo);
    const scopes: [string, SearchScope][] = [
      ['instance', { kind: 'instance' }],
      ['subscriptions', { kind: 'subscriptions', userId: user }],
    ];
    const latency: ScaleResult['latency'] = [];
    for (const [name, scope] of scopes) {
      for (const q of questions.slice(0, 20))
        await provider.search({ text: q.question, scope, filters: {}, limit: 10 }); // warm-up
      const times: number[] = [];
      for (const q of questions) {
        const t0 = performance.now();
        await provider.search({ text: q.question, scope, filters: {}, limit: 10 });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      latency.push({
        scope: name,
        p50: percentile(times, 0.5),
        p99: percentile(times, 0.99),
        mean: times.reduce((a, b) => a + b, 0) / times.length,
      });
    }
    return {
      passages,
      articles: n,
      buildSeconds: indexMs / 1000,
      passagesPerSecond: passages / (indexMs / 1000),
      latency,
    };
  } finally {
    await app.close();
  }
}
