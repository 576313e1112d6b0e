import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addFeed, ingest, testApp } from './testing/fixtures.ts';
import { searchIndexRepository } from './indexing.ts';
import { PostingsCompaction } from './compaction.ts';
import { testSql } from '../store/testing.ts';
import type { SearchIndexRepository } from '../store/repositories.ts';

/** What the PostgreSQL repository reports of its last postings read (absent on SQLite). */
const readStats = (repo: SearchIndexRepository) =>
  (repo as unknown as { lastPostingsRead?: { sentBytes: number; heldBytes: number } }).lastPostingsRead;

/** postingsOf must give exactly what each term's own read gives, chunk for chunk. */
async function assertSameAsStored(repo: SearchIndexRepository, terms: string[]): Promise<void> {
  const got = await repo.postingsOf(terms);
  for (const term of terms) {
    const stored = await repo.postings(term);
    const read = got.get(term) ?? { chunks: [], count: 0 };
    assert.equal(read.count, stored.count, `${term}: postings count`);
    assert.deepEqual(
      read.chunks.map((c) => Buffer.from(c).toString('hex')),
      stored.chunks.map((c) => Buffer.from(c).toString('hex')),
      `${term}: the stored chunks`,
    );
  }
}

test('postings read for a search follow appends, rewrites and removals; unchanged chunks are not sent again', async (t) => {
  const app = await testApp();
  t.after(async () => app.close());
  const feed = await addFeed(app, 'https://chunks.example/feed');
  const repo = searchIndexRepository(app);
  // Small chunks (a compaction writes them) so 'harbour' spans several: full ones stay as they
  // are, appends go to the last one.
  const small = Object.create(repo, { chunkBytes: { value: 256 } }) as SearchIndexRepository;
  const article = (i: number) => ({
    url: `https://chunks.example/${i}`,
    title: `Harbour log ${i}`,
    content: `<p>The harbour ${i % 2 ? 'storm' : 'calm'} report number ${i}.</p>`,
  });
  const compact = async () => {
    const compaction = await PostingsCompaction.start(small);
    while (
      !(await app.store.transaction(async () => {
        await repo.lockForWriting();
        return compaction.step(50);
      }))
    );
  };
  const remove = async (gone: number[]) => {
    for (const id of gone) await testSql(app).prepare('DELETE FROM items WHERE id = ?').run(id);
    app.notifyItemChanges({ added: [], updated: [], deleted: gone });
  };
  const ids = await ingest(
    app,
    feed,
    Array.from({ length: 400 }, (_, i) => article(i)),
  );
  await remove(ids.slice(0, 10)); // a compaction rewrites only terms that lose postings
  await compact();
  assert.ok((await repo.postings('harbour')).chunks.length > 3, 'harbour spans several chunks');
  const terms = ['harbour', 'storm', 'calm', 'nosuchterm'];
  await assertSameAsStored(repo, terms);
  await assertSameAsStored(repo, terms);
  const pg = readStats(repo);
  if (pg) {
    assert.equal(pg.sentBytes, 0, 'a second read of unchanged postings sends no chunk');
    assert.ok(pg.heldBytes > 0);
  }

  // More articles: appended to the last chunk of each term (or new chunks after it).
  await ingest(
    app,
    feed,
    Array.from({ length: 50 }, (_, i) => article(400 + i)),
  );
  await assertSameAsStored(repo, terms);
  if (pg) {
    const after = readStats(repo)!;
    assert.ok(after.sentBytes > 0, 'the changed chunks are sent');
    assert.ok(after.heldBytes > 0, 'the full chunks before them are not');
  }

  // Removals, then a compaction that rewrites every chunk of the terms under the same numbers.
  await remove(ids.slice(10, 300));
  await compact();
  assert.equal((await repo.postings('harbour')).count, 150);
  await assertSameAsStored(repo, terms);
});
