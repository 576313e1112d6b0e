import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom as random } from '../../test/helpers.ts';
import { addFeed, ingest, insertItem, testApp } from './testing/fixtures.ts';
import { articleIndexOf, queryStems, topK, type ArticleScoring } from './article-index.ts';
import { urlWords } from './index-batch.ts';
import { termFrequencies } from './tokenizer.ts';
import { flushSearchIndexing, reindexAll, searchIndexRepository } from './indexing.ts';
import { createApp } from '../server/create-app.ts';
import { loadConfig } from '../config/config.ts';
import { testSql } from '../store/testing.ts';
import { PostingsCompaction } from './compaction.ts';

const BM25_PLUS: ArticleScoring = { weights: { title: 3, body: 1, url: 0 }, k1: 1.2, b: 0.75, delta: 0.5 };
const everywhere = { scope: { kind: 'instance' as const } };

/** BM25+ as ArticleIndex computes it, written out independently of the postings, over the texts. */
function expectedScores(
  articles: { url: string; title: string; content: string }[],
  ids: number[],
  stems: string[],
  limit: number,
) {
  const docs = articles.map((a) => {
    const title = termFrequencies(a.title),
      body = termFrequencies(a.content.replace(/<\/?p>/g, '')),
      url = termFrequencies(urlWords(a.url));
    const terms = new Map<string, { title: number; body: number }>();
    for (const term of new Set([...title.tf.keys(), ...body.tf.keys()]))
      terms.set(term, { title: title.tf.get(term) ?? 0, body: body.tf.get(term) ?? 0 });
    return { terms, lengths: { title: title.length, body: body.length, url: url.length } };
  });
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.lengths.title + d.lengths.body + d.lengths.url, 0) / n;
  const df = new Map(stems.map((term) => [term, docs.filter((x) => x.terms.has(term)).length]));
  return docs
    .map((d, i) => {
      let score = 0;
      for (const term of stems) {
        const f = d.terms.get(term);
        if (!f) continue;
        const idf = Math.max(1e-6, Math.log((n - df.get(term)! + 0.5) / (df.get(term)! + 0.5)));
        const tf = 3 * f.title + f.body;
        const length = d.lengths.title + d.lengths.body + d.lengths.url;
        score += idf * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / avg)) + 0.5);
      }
      return { itemId: ids[i]!, score };
    })
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score || a.itemId - b.itemId)
    .slice(0, limit);
}

function assertSameRanking(
  got: { itemId: number; score: number }[],
  expected: { itemId: number; score: number }[],
): void {
  assert.equal(got.length, expected.length);
  for (let i = 0; i < got.length; i++) {
    assert.ok(
      Math.abs(got[i]!.score - expected[i]!.score) < 1e-9,
      `rank ${i}: ${got[i]!.score} vs ${expected[i]!.score}`,
    );
  }
  assert.deepEqual(new Set(got.map((g) => g.itemId)), new Set(expected.map((e) => e.itemId)));
}

test("scores equal BM25+ computed directly from the articles' texts, across many indexing batches", async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://bm25.example/feed');
  const rnd = random(3);
  const vocabulary = [
    'harbor',
    'storm',
    'ferry',
    'council',
    'budget',
    'vote',
    'school',
    'teacher',
    'strike',
    'bridge',
    'river',
    'flood',
  ];
  const articles = Array.from({ length: 700 }, (_, i) => {
    const words = (n: number) =>
      Array.from({ length: n }, () => vocabulary[Math.floor(rnd() ** 2 * vocabulary.length)]).join(' ');
    return {
      url: `https://bm25.example/${i}`,
      title: words(1 + Math.floor(rnd() * 4)),
      content: `<p>${words(5 + Math.floor(rnd() * 60))}.</p>`,
    };
  });
  // Several batches, so postings of one term span appended segments and chunks.
  const ids: number[] = [];
  for (let i = 0; i < articles.length; i += 150) ids.push(...(await ingest(app, feed, articles.slice(i, i + 150))));
  const index = articleIndexOf(searchIndexRepository(app));
  const stems = queryStems(['flood', 'bridge', 'teacher']);
  assertSameRanking(await index.search(stems, everywhere, 40, BM25_PLUS), expectedScores(articles, ids, stems, 40));
});

test('pruning common terms (MaxScore) returns exactly the best articles', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://prune.example/feed');
  const rnd = random(5);
  // Every article has the common words; a few have the rare ones: the common words' postings
  // can then only re-order articles already found.
  const articles = Array.from({ length: 1500 }, (_, i) => {
    const rare = i % 97 === 0 ? ' aurora aurora' : i % 41 === 0 ? ' magnetometer' : '';
    const common = Array.from({ length: 5 + Math.floor(rnd() * 30) }, () => (rnd() < 0.5 ? 'weather' : 'report')).join(
      ' ',
    );
    return { url: `https://prune.example/${i}`, title: `Item ${i}`, content: `<p>${common}${rare}.</p>` };
  });
  const ids = await ingest(app, feed, articles);
  const index = articleIndexOf(searchIndexRepository(app));
  const stems = queryStems(['aurora', 'magnetometer', 'weather', 'report']);
  for (const limit of [3, 10]) {
    assertSameRanking(
      await index.search(stems, everywhere, limit, BM25_PLUS),
      expectedScores(articles, ids, stems, limit + 16).slice(0, limit),
    );
  }
  assert.ok(index.lastSearch.prunedTerms > 0, 'the common terms were pruned');
  assert.ok(
    index.lastSearch.articles < 200,
    `only the articles with rare words were scored (${index.lastSearch.articles})`,
  );
});

test('past the admission, only articles that can still reach the top k are scored and chunks without them skipped; the top k stays exact', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://candidates.example/feed');
  const rnd = random(11);
  const repeat = (word: string, n: number) => Array.from({ length: n }, () => word).join(' ');
  // Rare words in the first articles only, so the common words' later chunks hold no candidate;
  // the common words' frequencies vary a lot, so they re-order the candidates (a wrongly dropped
  // candidate or a skipped chunk that held one changes the top k).
  const articles = Array.from({ length: 2400 }, (_, i) => {
    const rare =
      (i < 900 && i % 37 === 0 ? ' aurora' : '') +
      (i < 900 && i % 23 === 0 ? ' magnetometer' : '') +
      (i % 7 === 0 ? ' glacier' : '');
    // In a third to two fifths of the articles: common, but not so common their idf is nil.
    const common = `${rnd() < 0.4 ? repeat('weather', 1 + Math.floor(rnd() ** 3 * 25)) : 'calm'} ${rnd() < 0.3 ? repeat('report', 1 + Math.floor(rnd() * 8)) : 'note'}`;
    return {
      url: `https://candidates.example/${i}`,
      title: `Item ${i}`,
      content: `<p>${common} filler${repeat(' words', Math.floor(rnd() * 20))}${rare}.</p>`,
    };
  });
  // Several batches (segments appended to chunks), then a compaction into small chunks (a common
  // word spans dozens) after removing a few articles.
  const ids: number[] = [];
  for (let i = 0; i < articles.length; i += 600) ids.push(...(await ingest(app, feed, articles.slice(i, i + 600))));
  const repo = searchIndexRepository(app);
  const gone = ids.filter((_, i) => i % 401 === 5);
  for (const id of gone) await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(id);
  app.notifyItemChanges({ added: [], updated: [], deleted: gone });
  await flushSearchIndexing(app);
  const small = Object.create(repo, { chunkBytes: { value: 24 } }) as typeof repo;
  const compaction = await PostingsCompaction.start(small);
  while (
    !(await app.store.transaction(async () => {
      await repo.lockForWriting();
      return compaction.step(50);
    }))
  );
  assert.ok((await repo.postings('weather')).chunks.length > 50, 'a common word spans many chunks');
  const kept = articles.filter((_, i) => !gone.includes(ids[i]!));
  const keptIds = ids.filter((id) => !gone.includes(id));
  const index = articleIndexOf(repo);
  let skipped = 0;
  for (const words of [
    ['aurora', 'magnetometer', 'weather', 'report'],
    ['aurora', 'glacier', 'weather'],
    ['magnetometer', 'report', 'weather', 'words'],
    ['aurora', 'magnetometer', 'glacier', 'report', 'weather'],
    ['magnetometer', 'glacier', 'report'],
  ])
    for (const limit of [1, 5, 10, 20]) {
      const stems = queryStems(words);
      // k = limit + 16 articles are exact (CANDIDATE_SLACK); the first limit are compared.
      const expected = expectedScores(kept, keptIds, stems, limit + 16).slice(0, limit);
      const got = await index.search(stems, everywhere, limit, BM25_PLUS);
      assertSameRanking(got, expected);
      assert.deepEqual(
        got.map((g) => g.itemId),
        expected.map((e) => e.itemId),
        `${words.join(' ')}, limit ${limit}: same order`,
      );
      assert.ok(index.lastSearch.prunedTerms > 0, `${words.join(' ')}, limit ${limit}: pruned`);
      assert.ok(index.lastSearch.candidates > 0);
      skipped += index.lastSearch.skippedChunks;
    }
  assert.ok(skipped > 0, 'chunks without candidates were skipped');
});

test('another connection sees new, re-indexed, removed and rebuilt articles', async (t) => {
  const writer = await testApp();
  t.after(async () => writer.close());
  const reader = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: writer.config.dataDir, logLevel: 'silent' } }),
  );
  t.after(async () => reader.close());
  const index = articleIndexOf(searchIndexRepository(reader));
  // Another process's commit reaches the reader through the change signal: on SQLite from the
  // next event-loop turn (data_version is read once per turn; a request from the network always
  // starts a new one), on PostgreSQL when its NOTIFY arrives. `followed()` waits for that.
  let seenAt = reader.store.changes.generation();
  const followed = async () => {
    for (let i = 0; i < 400 && reader.store.changes.generation() === seenAt; i++)
      await new Promise((r) => setTimeout(r, 5));
  };
  const search = async (words: string[]) => {
    seenAt = reader.store.changes.generation();
    return (await index.search(queryStems(words), everywhere, 10, BM25_PLUS)).map((m) => m.itemId);
  };
  const feed = await addFeed(writer, 'https://two.example/feed');
  assert.deepEqual(await search(['narwhal']), []);

  const [a, b] = await ingest(writer, feed, [
    { url: 'https://two.example/a', title: 'Narwhal tusks', content: '<p>The narwhal tusk is a tooth.</p>' },
    { url: 'https://two.example/b', title: 'Beluga songs', content: '<p>Belugas sing.</p>' },
  ]);
  await followed();
  assert.deepEqual(await search(['narwhal']), [a], 'articles indexed by another process appear');

  await testSql(writer).prepare('UPDATE items SET content = ? WHERE id = ?').run('<p>Now about orcas only.</p>', a!);
  writer.notifyItemChanges({ added: [], updated: [a!], deleted: [] });
  await flushSearchIndexing(writer);
  await followed();
  assert.deepEqual(await search(['narwhal']), [a], 'still found by its unchanged title');
  assert.deepEqual(await search(['tooth']), [], "the old version's body words are gone");
  assert.deepEqual(await search(['orcas']), [a]);

  await testSql(writer).prepare('DELETE FROM items WHERE id = ?').run(b!);
  writer.notifyItemChanges({ added: [], updated: [], deleted: [b!] });
  await flushSearchIndexing(writer);
  await followed();
  assert.deepEqual(await search(['beluga']), [], 'a removed article is never returned');

  await reindexAll(writer);
  const c = await insertItem(writer, feed, {
    url: 'https://two.example/c',
    title: 'Walrus',
    content: '<p>Walrus whiskers.</p>',
  });
  writer.notifyItemChanges({ added: [c], updated: [], deleted: [] });
  await flushSearchIndexing(writer);
  await followed();
  assert.deepEqual(await search(['walrus']), [c], 'a rebuild (numbers start again) is followed');
  assert.deepEqual(await search(['orcas']), [a]);
});

test('topK returns the k best by score, ties broken by the lower document number', async () => {
  const rnd = random(11);
  const scores = new Float64Array(5000);
  // Each document is touched once (as the accumulation records them), in no particular order.
  const docs = [...new Set(Array.from({ length: 3000 }, () => 1 + Math.floor(rnd() * 4999)))];
  const touched = Int32Array.from(docs);
  for (const d of docs) scores[d] = Math.floor(rnd() * 50) / 10; // many ties, some zeros
  const expected = docs
    .filter((d) => scores[d]! > 0)
    .sort((a, b) => scores[b]! - scores[a]! || a - b)
    .slice(0, 25);
  assert.deepEqual(topK(scores, touched, touched.length, 25), expected);
});

test('URL path words leave out numbers, ids and file extensions', async () => {
  assert.equal(
    urlWords('https://www.usatoday.com/story/news/2022/06/09/is-de-department-corrections-handcuffing/9568548002/'),
    'story news is de department corrections handcuffing',
  );
  assert.equal(urlWords('https://example.com/Z%C3%BCrich-news.html?id=5'), 'zürich news');
  assert.equal(urlWords('not a url'), '');
  assert.equal(urlWords(null), '');
});

test('a corrupt postings chunk fails its search with an error and leaves the next searches right', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://corrupt.example/feed');
  const ids = await ingest(
    app,
    feed,
    Array.from({ length: 50 }, (_, i) => ({
      url: `https://corrupt.example/${i}`,
      title: `Otter ${i}`,
      content: `<p>River otters ${i % 2 ? 'swim' : 'sleep'}.</p>`,
    })),
  );
  const index = articleIndexOf(searchIndexRepository(app));
  const sleep = await index.search(queryStems(['sleep']), everywhere, 5, BM25_PLUS);
  // Truncate the "otter" postings: the scan scores the rarer "sleep" first, then fails on "otter".
  await testSql(app)
    .prepare("UPDATE search_postings SET data = substr(data, 1, length(data) - 3) WHERE term = 'otter'")
    .run();
  await assert.rejects(() => index.search(queryStems(['sleep', 'otter']), everywhere, 5, BM25_PLUS), /truncated/);
  assert.deepEqual(
    await index.search(queryStems(['sleep']), everywhere, 5, BM25_PLUS),
    sleep,
    'no score left over from the failed search',
  );
  assert.ok(sleep.length === 5 && sleep.every((m) => ids.indexOf(m.itemId) % 2 === 0));
});
