import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../server/create-app.ts';
import type { App } from '../runtime/app.ts';
import { loadConfig } from '../config/config.ts';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { ARTICLE_TABLE_SNAPSHOT, flushSearchIndexing, reindexAll, searchIndexRepository } from './indexing.ts';
import { articleIndexOf, articleIndexSettled, queryStems, useArticleTableSnapshot } from './article-index.ts';
import { testSql } from '../store/testing.ts';

const scoring = { weights: { title: 3, body: 1, url: 0 }, k1: 1.2, b: 0.75, delta: 1 };
const everywhere = { scope: { kind: 'instance' as const } };

/** An App on the folder whose article table writes its snapshot after as few as 10 rows. */
async function open(dataDir: string): Promise<App> {
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } }));
  useArticleTableSnapshot(searchIndexRepository(app), {
    file: join(dataDir, ARTICLE_TABLE_SNAPSHOT),
    location: app.store.location,
    onError: (err) => assert.fail(`snapshot write failed: ${err}`),
    afterRows: 10,
  });
  return app;
}

async function search(app: App, words: string[]): Promise<{ ids: number[]; restored: boolean }> {
  const index = articleIndexOf(searchIndexRepository(app));
  const ids = (await index.search(queryStems(words), everywhere, 50, scoring)).map((m) => m.itemId);
  await articleIndexSettled(searchIndexRepository(app));
  return { ids, restored: index.articleTable.restoredFromSnapshot };
}

const article = (i: number) => ({
  url: `https://snap.example/${i}`,
  title: `Glacier report ${i}`,
  content: `<p>The glacier ${i % 2 ? 'melted' : 'grew'} this season, survey ${i}.</p>`,
});

test('a new process starts from the article table snapshot and catches up on what changed since', async (t) => {
  const first = await testApp();
  t.after(async () => first.close());
  const dir = first.config.dataDir;
  const feed = await addFeed(first, 'https://snap.example/feed');
  const ids = await ingest(
    first,
    feed,
    Array.from({ length: 60 }, (_, i) => article(i)),
  );
  const writer = await open(dir);
  t.after(async () => writer.close());
  const expected = await search(writer, ['glacier', 'melted']);
  assert.equal(expected.restored, false, 'no snapshot yet: loaded from the store');
  assert.ok(existsSync(join(dir, ARTICLE_TABLE_SNAPSHOT)), 'written after loading the rows');

  const reader = await open(dir);
  t.after(async () => reader.close());
  const again = await search(reader, ['glacier', 'melted']);
  assert.equal(again.restored, true, 'the next process starts from the snapshot');
  assert.deepEqual(again.ids, expected.ids, 'and finds the same articles in the same order');

  // Since the snapshot: new articles, an edited one (new number) and a deleted one.
  const [late] = await ingest(first, feed, [
    { url: 'https://snap.example/late', title: 'Late glacier note', content: '<p>The glacier melted fast.</p>' },
  ]);
  await testSql(first).prepare('UPDATE items SET content = ? WHERE id = ?').run('<p>Now about fjords.</p>', ids[1]!);
  await testSql(first).prepare('DELETE FROM items WHERE id = ?').run(ids[3]!);
  first.notifyItemChanges({ added: [], updated: [ids[1]!], deleted: [ids[3]!] });
  await flushSearchIndexing(first);
  const later = await open(dir);
  t.after(async () => later.close());
  const caughtUp = await search(later, ['glacier', 'melted']);
  assert.equal(caughtUp.restored, true);
  assert.ok(caughtUp.ids.includes(late!), 'an article indexed after the snapshot is found');
  assert.ok(!caughtUp.ids.includes(ids[3]!), 'a deleted article is not returned');
  assert.deepEqual((await search(later, ['fjords'])).ids, [ids[1]], 'the edited version is found by its new words');
  assert.ok(!(await search(later, ['melted'])).ids.includes(ids[1]!), "not by the old version's");
});

test('a snapshot of another database, another index, an earlier rebuild or a damaged file is not used', async (t) => {
  const source = await testApp();
  t.after(async () => source.close());
  const feed = await addFeed(source, 'https://snap.example/feed');
  await ingest(
    source,
    feed,
    Array.from({ length: 30 }, (_, i) => article(i)),
  );
  const writer = await open(source.config.dataDir);
  t.after(async () => writer.close());
  const expected = await search(writer, ['glacier']);
  const file = join(source.config.dataDir, ARTICLE_TABLE_SNAPSHOT);

  // Another database with the same articles (same document numbers): the snapshot names its store.
  const other = await testApp();
  t.after(async () => other.close());
  await ingest(
    other,
    await addFeed(other, 'https://snap.example/feed'),
    Array.from({ length: 30 }, (_, i) => article(i)),
  );
  copyFileSync(file, join(other.config.dataDir, ARTICLE_TABLE_SNAPSHOT));
  const otherReader = await open(other.config.dataDir);
  t.after(async () => otherReader.close());
  assert.equal((await search(otherReader, ['glacier'])).restored, false, 'another store: loaded from its own rows');

  // A damaged file: ignored, the rows come from the store.
  const saved = readFileSync(file);
  const damaged = Buffer.from(saved);
  damaged[damaged.length - 5]! ^= 0xff;
  writeFileSync(file, damaged);
  const afterDamage = await open(source.config.dataDir);
  t.after(async () => afterDamage.close());
  const read = await search(afterDamage, ['glacier']);
  assert.deepEqual([read.restored, read.ids], [false, expected.ids]);

  // A rebuild renumbers the articles: the snapshot of the earlier numbering is left alone.
  writeFileSync(file, saved);
  await reindexAll(source);
  const afterRebuild = await open(source.config.dataDir);
  t.after(async () => afterRebuild.close());
  const rebuilt = await search(afterRebuild, ['glacier']);
  assert.equal(rebuilt.restored, false);
  assert.deepEqual(new Set(rebuilt.ids), new Set(expected.ids));
});
