import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParsePool } from './parse-pool.ts';
import { concatOwned } from '../../net/read-body.ts';
import { FeedParseError } from '../parser/parse-feed.ts';

const feed = (n: number) =>
  Buffer.from(
    `<?xml version="1.0"?><rss version="2.0"><channel><title>Pool ${n}</title><link>https://e.org/</link>` +
      `<item><title>T${n}</title><guid>g${n}</guid><description>&lt;p&gt;hi&lt;script&gt;x()&lt;/script&gt;&lt;/p&gt;</description></item></channel></rss>`,
  );

test('worker threads parse like the main thread, in parallel, and report parse errors as FeedParseError', async () => {
  const pool = new ParsePool(2);
  const inline = new ParsePool(0);
  try {
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => pool.parse(feed(n), { url: 'https://e.org/feed' })));
    assert.deepEqual(
      results.map((r) => r.title),
      ['Pool 1', 'Pool 2', 'Pool 3', 'Pool 4', 'Pool 5'],
    );
    assert.deepEqual(results[0], await inline.parse(feed(1), { url: 'https://e.org/feed' }));
    assert.doesNotMatch(results[0]!.entries[0]!.summary ?? results[0]!.entries[0]!.content ?? '', /script/);
    await assert.rejects(
      pool.parse(Buffer.from('<html><body>page</body></html>'), { url: 'https://e.org/' }),
      FeedParseError,
    );
    assert.equal(
      (await pool.parse(feed(6), { url: 'https://e.org/feed' })).title,
      'Pool 6',
      'the pool keeps working after an error',
    );
  } finally {
    await pool.close();
    await inline.close();
  }
  await assert.rejects(pool.parse(feed(7), { url: 'https://e.org/feed' }), /closed/);
});

test('parses of one feed (same affinity key) go to one worker, in order, so its sanitize memo serves them', async () => {
  const pool = new ParsePool(2);
  try {
    // A large feed first, then a tiny one with the same key modulo 2: it must wait for the large one.
    const items = Array.from(
      { length: 3000 },
      (_, i) =>
        `<item><guid>big${i}</guid><title>T${i}</title><description>&lt;p&gt;&lt;a href="/x${i}"&gt;x&lt;/a&gt; &lt;b&gt;${'word '.repeat(40)}&lt;/b&gt;&lt;/p&gt;</description></item>`,
    ).join('');
    const big = Buffer.from(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>${items}</channel></rss>`,
    );
    const order: string[] = [];
    await Promise.all([
      pool.parse(big, { url: 'https://e.org/big' }, 4).then((p) => order.push(p.title)),
      pool.parse(feed(1), { url: 'https://e.org/feed' }, 6).then((p) => order.push(p.title)),
    ]);
    assert.deepEqual(order, ['Big', 'Pool 1']);
  } finally {
    await pool.close();
  }
});

test('a body given away moves to the worker instead of being copied, and parses the same; a small pooled one is copied', async () => {
  const pool = new ParsePool(1);
  try {
    const items = Array.from(
      { length: 40 },
      (_, k) =>
        `<item><title>Item ${k}</title><guid>g${k}</guid><description>${'word '.repeat(60)}</description></item>`,
    ).join('');
    const xml = `<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title><link>https://e.org/</link>${items}</channel></rss>`;
    // As the fetcher returns a body (read-body.ts): the chunks in memory of its own.
    const body = concatOwned([Buffer.from(xml.slice(0, 1000)), Buffer.from(xml.slice(1000))]);
    const copied = await pool.parse(Buffer.from(body), { url: 'https://e.org/feed' }, 7);
    const given = await pool.parse(body, { url: 'https://e.org/feed' }, 7, true);
    assert.equal(body.byteLength, 0, "the caller's buffer was moved, not copied");
    assert.deepEqual(given, copied);
    assert.equal(given.entries.length, 40);
    // Buffer.concat's result is a slice of Node's shared pool: moving it would take its neighbours along.
    const small = Buffer.concat([feed(5)]);
    const neighbour = Buffer.from('neighbour');
    assert.equal((await pool.parse(small, { url: 'https://e.org/feed' }, 7, true)).title, 'Pool 5');
    assert.ok(small.byteLength > 0, 'a pooled body stays');
    assert.equal(neighbour.toString(), 'neighbour');
  } finally {
    await pool.close();
  }
});

test('automatic pool size: one less than the cores, at least 1, at most 2; an explicit size wins', async () => {
  const { parseWorkerCount } = await import('./parse-pool.ts');
  assert.deepEqual(
    [1, 2, 3, 4, 16].map((cores) => parseWorkerCount(-1, cores)),
    [1, 1, 2, 2, 2],
  );
  assert.equal(parseWorkerCount(0, 8), 0);
  assert.equal(parseWorkerCount(3, 2), 3);
});

test('an idle worker exits to give its memory back; the next parse starts a fresh one', async () => {
  const pool = new ParsePool(1, 30_000, 200);
  try {
    assert.equal((await pool.parse(feed(1), { url: 'https://e.org/feed' })).title, 'Pool 1');
    assert.equal(pool.running, 1);
    for (let i = 0; i < 100 && pool.running > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pool.running, 0, 'retired after being idle');
    assert.equal((await pool.parse(feed(2), { url: 'https://e.org/feed' })).title, 'Pool 2', 'a new worker parses');
    assert.equal(pool.running, 1);
  } finally {
    await pool.close();
  }
});

test('a worker whose heap grew past the recycle size is replaced between jobs, and parsing carries on', async () => {
  // Recycle sizes of 1 MB: every heap is past them, so each heap check (every 10 jobs) replaces the worker.
  const pool = new ParsePool(1, 30_000, 60_000, 1024 * 1024, 1024 * 1024);
  const big = new ParsePool(1, 30_000, 60_000);
  try {
    for (let n = 1; n <= 25; n++) {
      assert.equal((await pool.parse(feed(n), { url: 'https://e.org/feed' })).title, `Pool ${n}`);
      assert.equal((await big.parse(feed(n), { url: 'https://e.org/feed' })).title, `Pool ${n}`);
    }
    for (let i = 0; i < 100 && pool.recycled < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(pool.recycled >= 2, `recycled ${pool.recycled} times`);
    assert.ok(pool.running <= 1);
    assert.equal(big.recycled, 0, 'a worker under the default sizes is kept');
    assert.equal((await pool.parse(feed(99), { url: 'https://e.org/feed' })).title, 'Pool 99');
  } finally {
    await pool.close();
    await big.close();
  }
});

test('a worker replaced while jobs wait hands them to a successor started beforehand, and every parse is right', async () => {
  // Recycle size 1 MB: each heap check (every 10 jobs) retires the worker. The jobs are all queued
  // at once, as a refresh's feeds are, so the check finds it busy: its successor starts at once and
  // loads while the old worker finishes its job, instead of after it exits, with the queue waiting.
  const pool = new ParsePool(1, 30_000, 60_000, 1024 * 1024, 1024 * 1024);
  try {
    const titles = await Promise.all(
      Array.from({ length: 60 }, (_, n) => pool.parse(feed(n), { url: 'https://e.org/feed' }).then((f) => f.title)),
    );
    assert.deepEqual(
      titles,
      Array.from({ length: 60 }, (_, n) => `Pool ${n}`),
    );
    assert.ok(pool.recycled >= 1, `recycled ${pool.recycled} times`);
    assert.ok(pool.handedOver >= 1, `${pool.handedOver} of ${pool.recycled} replacements were started ahead`);
    assert.ok(pool.running <= 1);
  } finally {
    await pool.close();
  }
});

test('between jobs of a busy stretch the heap is held to the busy recycle size; the idle one applies once settled', async () => {
  // Busy size 1 GB, idle size 1 MB. One parse at a time with a pause between, as a refresh's feeds reach the worker:
  // the checks every 10 jobs find the queue empty at that instant, and used to replace the worker
  // by the idle size (a 1,000-feed first refresh started 3-9 fresh workers).
  const pool = new ParsePool(1, 30_000, 10 * 60_000, 1024 * 1024 * 1024, 1024 * 1024);
  try {
    for (let n = 1; n <= 25; n++) {
      assert.equal((await pool.parse(feed(n), { url: 'https://e.org/feed' })).title, `Pool ${n}`);
      await new Promise((r) => setTimeout(r, 50)); // the next feed's fetch
    }
    await new Promise((r) => setTimeout(r, 300)); // the last periodic check's answer, well before the 2 s settle
    assert.equal(pool.recycled, 0, 'kept while busy');
    for (let i = 0; i < 250 && pool.running > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pool.recycled, 1, 'replaced once it had settled');
    assert.equal(pool.running, 0);
  } finally {
    await pool.close();
  }
});

test('once idle for a moment, a worker past the idle recycle size exits at once (not after the idle timeout)', async () => {
  const pool = new ParsePool(1, 30_000, 10 * 60_000, 1024 * 1024 * 1024, 1024 * 1024);
  try {
    assert.equal((await pool.parse(feed(1), { url: 'https://e.org/feed' })).title, 'Pool 1');
    assert.equal(pool.running, 1);
    for (let i = 0; i < 250 && pool.running > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pool.running, 0, 'gone well before the 10-minute idle timeout');
    assert.equal(pool.recycled, 1);
    assert.equal((await pool.parse(feed(2), { url: 'https://e.org/feed' })).title, 'Pool 2', 'a new worker parses');
  } finally {
    await pool.close();
  }
});

test("module jobs: another domain's step runs on a worker under its own time limit; past it the worker is replaced", async () => {
  const pool = new ParsePool(1, 30_000, 60_000);
  const mod = (body: string) => new URL(`data:text/javascript,${encodeURIComponent(body)}`);
  try {
    const double = mod('export function runInWorker(x) { return { doubled: x * 2 }; }');
    assert.deepEqual(await pool.runModule(double, 21, 5_000, 'doubling'), { doubled: 42 });
    // A step that never ends (a hostile regular expression, say) is stopped at its limit, not the pool's 30 s.
    const t0 = Date.now();
    await assert.rejects(
      pool.runModule(mod('export function runInWorker() { for (;;) {} }'), null, 300, 'spinning'),
      /spinning took longer than 300 ms and was stopped/,
    );
    assert.ok(Date.now() - t0 < 5_000);
    assert.deepEqual(await pool.runModule(double, 1, 5_000, 'doubling'), { doubled: 2 }, 'a fresh worker carries on');
    assert.equal(
      (await pool.parse(feed(3), { url: 'https://e.org/feed' })).title,
      'Pool 3',
      'and parses feeds as before',
    );
    await assert.rejects(
      new ParsePool(0).runModule(double, 1, 1_000, 'doubling'),
      /no worker threads/,
      'never on the caller',
    );
  } finally {
    await pool.close();
  }
});

test("a page's feed and icon links, web search pages and OPML files are read on the workers, like on this thread", async () => {
  const { OpmlError } = await import('../opml/opml-error.ts');
  const pool = new ParsePool(1);
  const inline = new ParsePool(0);
  const page = Buffer.from(
    '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml" title="Feed">' +
      '<link rel="icon" href="/i.png" sizes="32x32"></head><body>x</body></html>',
  );
  const opml = '<opml version="2.0"><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>';
  try {
    for (const p of [pool, inline]) {
      assert.deepEqual(await p.findFeedLinks(page, 'https://e.org/blog/', 'text/html'), [
        { url: 'https://e.org/feed.xml', title: 'Feed', type: 'application/rss+xml' },
      ]);
      assert.deepEqual(await p.findIconLinks(page, 'https://e.org/blog/'), ['https://e.org/i.png']);
      assert.deepEqual(await p.parseOpml(opml), [
        { xmlUrl: 'https://a.example/feed', title: 'A', htmlUrl: null, folders: [] },
      ]);
      await assert.rejects(p.parseOpml('<opml><body>'), OpmlError);
      const article = `<html><head><title>Comet</title></head><body><article><p>${'The comet passed close to the sun and brightened. '.repeat(10)}</p></article></body></html>`;
      const web = await p.readWebPage(article);
      assert.equal(web?.title, 'Comet');
      assert.match(web?.text ?? '', /^The comet passed close to the sun/);
    }
  } finally {
    await pool.close();
  }
});

test('an OPML file over the time limit is refused with an OpmlError naming the limit', async () => {
  const { OpmlError } = await import('../opml/opml-error.ts');
  const pool = new ParsePool(1, 1); // 1 ms: nothing finishes in time
  try {
    await assert.rejects(
      pool.parseOpml('<opml version="2.0"><body><outline xmlUrl="https://a.example/feed"/></body></opml>'),
      (e: unknown) =>
        e instanceof OpmlError && /could not be read: reading the OPML file took longer than/.test(e.message),
    );
  } finally {
    await pool.close();
  }
});
