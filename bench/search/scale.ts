// Search latency and index build rate on a generated corpus of a given number of passages:
// articles of ten ~90-word paragraphs made of sentences drawn at random from the news corpus
// (so word frequencies are those of real news), spread over 100 feeds and two years, indexed
// through the same listener the feed engine triggers. The 680 news questions are then asked.
import { createApp } from '../../src/server/create-app.ts';
import type { App } from '../../src/runtime/app.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { testSql } from '../../src/store/testing.ts';
import { LocalIndexProvider } from '../../src/search/local-provider.ts';
import { searchIndexRepository, flushSearchIndexing } from '../../src/search/indexing.ts';
import type { SearchScope } from '../../src/search/types.ts';
import { seededRandom as random, tempDataDir } from '../../test/helpers.ts';
import type { NewsArticle, NewsQuestion } from './news-corpus.ts';
import { escapeHtmlText } from '../../src/text/escape-html.ts';
import { percentile } from './metrics.ts';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

/** A built scale index, open: the App, the bench user, and what the build took (0 s when reused). */
export interface ScaleIndex {
  app: App;
  user: number;
  passages: number;
  articles: number;
  buildSeconds: number;
  /** Passages indexed by this call (a reused folder grown to a larger size: the increment). */
  built: number;
  /** The database's size: the SQLite files in the data folder, or pg_database_size. */
  bytes: number;
  /**
   * PostgreSQL: the postings table's parts and row versions (heap, TOAST, index; live and dead
   * rows, updates and how many were HOT), where its growth comes from. Empty on SQLite.
   */
  postingsTable: string;
}

/** The postings table's heap, TOAST and index sizes and its row counters (PostgreSQL). */
async function postingsTable(app: App, databaseUrl: string): Promise<string> {
  if (!databaseUrl) return '';
  const db = testSql(app);
  // The counters reach pg_stat_user_tables a moment after the last commit.
  await new Promise((r) => setTimeout(r, 1500));
  const r = (await db
    .prepare(`SELECT pg_relation_size(c.oid) AS heap, coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) AS toast,
      pg_indexes_size(c.oid) AS idx, s.n_live_tup AS live, s.n_dead_tup AS dead, s.n_tup_upd AS upd, s.n_tup_hot_upd AS hot,
      s.autovacuum_count AS vacuums, (SELECT count(*) FROM search_postings) AS chunks
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'search_postings'`)
    .get<Record<string, number>>())!;
  const mib = (n: number) => `${(Number(n) / 2 ** 20).toFixed(1)} MiB`;
  return `search_postings: heap ${mib(r.heap!)}, TOAST ${mib(r.toast!)}, index ${mib(r.idx!)}; ${Number(r.chunks)} chunks, ${Number(r.dead)} dead rows, ${Number(r.upd)} updates (${Number(r.hot)} HOT), ${Number(r.vacuums)} autovacuums`;
}

async function databaseBytes(app: App, dataDir: string, databaseUrl: string): Promise<number> {
  if (databaseUrl)
    return Number(
      (await testSql(app).prepare('SELECT pg_database_size(current_database()) AS n').get<{ n: number }>())!.n,
    );
  let total = 0;
  for (const f of readdirSync(dataDir)) total += statSync(join(dataDir, f)).size;
  return total;
}

/**
 * Builds (or, given a data folder that already holds the generated corpus, reuses) the index and
 * leaves it open. Reusing lets a ranking change be measured at 1M passages without the 5-10 min build.
 */
export async function openScaleIndex(
  targetPassages: number,
  articles: NewsArticle[],
  log: (s: string) => void = () => {},
  dataDir = tempDataDir('tidings-bench-scale-'),
  databaseUrl = '',
  overrides: Partial<Config> = {},
): Promise<ScaleIndex> {
  const pool = sentencePool(articles);
  const titles = articles.map((a) => a.title);
  const rnd = random(42);
  let reseeded = false;
  let rndNext = rnd;
  const pick = <T>(xs: T[]) => xs[Math.floor(rndNext() * xs.length)]!;
  const app: App = await createApp(
    loadConfig({
      env: {},
      overrides: { dataDir, logLevel: 'warn', ...(databaseUrl ? { databaseUrl } : {}), ...overrides },
    }),
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
    const before = await repo.passageCount();
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
      // Grown from a smaller size: other sentences than the first articles had (a fresh build
      // draws the same corpus as before).
      if (n > 0 && !reseeded) {
        const more = random(42 + n);
        rndNext = more;
        reseeded = true;
      }
      const ids: number[] = [];
      await app.store.transaction(async () => {
        for (let i = 0; i < 500; i++, n++) {
          const feed = feeds[n % feeds.length]!;
          const published = now - Math.floor(rndNext() * 2 * 365 * 86_400);
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
    const bytes = await databaseBytes(app, dataDir, databaseUrl);
    return {
      app,
      user,
      passages,
      articles: n,
      buildSeconds: indexMs / 1000,
      built: passages - before,
      bytes,
      postingsTable: await postingsTable(app, databaseUrl),
    };
  } catch (e) {
    await app.close();
    throw e;
  }
}

const SCOPES = (user: number): [string, SearchScope][] => [
  ['instance', { kind: 'instance' }],
  ['subscriptions', { kind: 'subscriptions', userId: user }],
];

/**
 * Search latency per scope over every question, for one index or several measured side by side:
 * each question goes to every index in turn (who goes first rotates), so a load change on the
 * machine hits them alike.
 */
export async function measureLatency(
  indexes: ScaleIndex[],
  questions: NewsQuestion[],
): Promise<ScaleResult['latency'][]> {
  const out: ScaleResult['latency'][] = indexes.map(() => []);
  const providers = indexes.map((ix) => new LocalIndexProvider(searchIndexRepository(ix.app)));
  for (let s = 0; s < 2; s++) {
    const times: number[][] = indexes.map(() => []);
    for (const [i, p] of providers.entries()) {
      const scope = SCOPES(indexes[i]!.user)[s]![1];
      for (const q of questions.slice(0, 20)) await p.search({ text: q.question, scope, filters: {}, limit: 10 }); // warm-up
    }
    for (const [qi, q] of questions.entries()) {
      // The first index asked a question warms what the next ones share (the OS page cache, a
      // database server's buffers): who goes first rotates.
      for (let k = 0; k < providers.length; k++) {
        const i = (qi + k) % providers.length;
        const p = providers[i]!;
        const scope = SCOPES(indexes[i]!.user)[s]![1];
        const t0 = performance.now();
        await p.search({ text: q.question, scope, filters: {}, limit: 10 });
        times[i]!.push(performance.now() - t0);
      }
    }
    for (const [i, t] of times.entries()) {
      t.sort((a, b) => a - b);
      out[i]!.push({
        scope: SCOPES(0)[s]![0],
        p50: percentile(t, 0.5),
        p99: percentile(t, 0.99),
        mean: t.reduce((a, b) => a + b, 0) / t.length,
      });
    }
  }
  return out;
}

/** Builds or reuses the index, measures it and closes it. */
export async function runScale(
  targetPassages: number,
  articles: NewsArticle[],
  questions: NewsQuestion[],
  log: (s: string) => void = () => {},
  dataDir = tempDataDir('tidings-bench-scale-'),
  databaseUrl = '',
): Promise<ScaleResult> {
  const index = await openScaleIndex(targetPassages, articles, log, dataDir, databaseUrl);
  try {
    const [latency] = await measureLatency([index], questions);
    return {
      passages: index.passages,
      articles: index.articles,
      buildSeconds: index.buildSeconds,
      passagesPerSecond: index.passages / Math.max(index.buildSeconds, 1e-9),
      latency: latency!,
    };
  } finally {
    await index.app.close();
  }
}
