// The stream/contents and stream/items/contents pages are written once into a reused buffer
// (src/reader-api/item-json.ts): the bytes must be exactly those of the builder they replaced
// (kept below, as it was, as the reference), and a buffer must never be reused while a response
// written from it is still being sent.
import test from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { ReaderItemState } from '../src/model/stream.ts';
import type { CatalogEntry } from '../src/library/catalog.ts';
import { labelStreamId, longItemId, stateStreamId } from '../src/reader-api/ids.ts';
import {
  type ItemFragment,
  PageBuffers,
  renderItems,
  type StreamEnvelope,
  streamContentsJson,
} from '../src/reader-api/item-json.ts';
import { addUser, clientLogin, ReaderClient, S, startHarness } from './reader-harness.ts';

// ---- the builder before: an items array, then Buffer.concat with the envelope ----
const q = JSON.stringify;
const CAT_READING_LIST = q(stateStreamId('reading-list'));
function oldItemHead(it: ReaderItemState, feed: CatalogEntry | undefined, tags: string[] | undefined): string {
  let cats = CAT_READING_LIST;
  if (it.read) cats += ',' + q(stateStreamId('read'));
  if (it.starred) cats += ',' + q(stateStreamId('starred'));
  if (it.liked) cats += ',' + q(stateStreamId('like'));
  if (it.broadcast) cats += ',' + q(stateStreamId('broadcast'));
  if (it.saved) cats += ',' + q(stateStreamId('saved-web-pages'));
  if (feed) cats += feed.folderCategoriesJson;
  if (tags) for (const t of tags) cats += ',' + q(labelStreamId(t));
  return `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}","categories":[${cats}],`;
}
function oldItemsJson(
  items: ReaderItemState[],
  bodies: Map<number, Buffer>,
  origins: Map<number, CatalogEntry>,
  tags: Map<number, string[]>,
): Buffer {
  const parts: Buffer[] = [];
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body === undefined) continue;
    const feed = origins.get(it.feedId);
    const tail = feed ? `,"origin":${feed.originJson}}` : ',"origin":{"streamId":"","title":"","htmlUrl":""}}';
    parts.push(Buffer.from(oldItemHead(it, feed, tags.get(it.itemId))), body, Buffer.from(tail));
  }
  const joined: Buffer[] = [Buffer.from('[')];
  for (let k = 0; k < parts.length; k += 3) {
    if (k > 0) joined.push(Buffer.from(','));
    joined.push(parts[k]!, parts[k + 1]!, parts[k + 2]!);
  }
  joined.push(Buffer.from(']'));
  return Buffer.concat(joined);
}
function oldStreamContentsJson(env: StreamEnvelope, itemsArray: Buffer): Buffer {
  const head =
    `{"direction":"ltr","id":${q(env.id)},"title":${q(env.title)},"description":"",` +
    `"self":{"href":${q(env.selfHref)}},"updated":${Math.floor(env.updatedUs / 1e6)},"updatedUsec":"${env.updatedUs}","items":`;
  const tail = (env.continuation ? `,"continuation":${q(env.continuation)}` : '') + '}';
  return Buffer.concat([Buffer.from(head), itemsArray, Buffer.from(tail)]);
}

function fixture(n: number) {
  const origins = new Map<number, CatalogEntry>();
  for (let f = 0; f < 7; f++)
    origins.set(f, {
      originJson: `{"streamId":${q(`feed/https://ex.org/${f}`)},"title":${q(`Féed ${f} «ünïcode» \u2028 "q"`)},"htmlUrl":""}`,
      folderCategoriesJson: f % 2 ? `,${q(labelStreamId('Nouvelles 📰'))}` : '',
    } as CatalogEntry);
  const items: ReaderItemState[] = [];
  const bodies = new Map<number, Buffer>();
  const tags = new Map<number, string[]>();
  for (let i = 0; i < n; i++) {
    const itemId = 10_000 + i * 7;
    items.push({
      itemId,
      feedId: i % 8, // feed 7 has no origin (unsubscribed meanwhile)
      crawledUs: 1_764_000_000_000_000 + i * 1_001,
      read: i % 2,
      starred: i % 3 === 0 ? 1 : 0,
      liked: i % 5 === 0 ? 1 : 0,
      broadcast: i % 11 === 0 ? 1 : 0,
      saved: i % 13 === 0 ? 1 : 0,
    } as ReaderItemState);
    // Every 17th item has no body (deleted between the read and the render): left out.
    if (i % 17 !== 16)
      bodies.set(
        itemId,
        Buffer.from(`"title":${q(`Tïtle ${i} 中文 \u0000 </script>`)},"summary":{"content":${q('x'.repeat(i % 300))}}`),
      );
    if (i % 4 === 0) tags.set(itemId, ['Lü', `tag ${i % 3}`]);
  }
  // The fragment the cache keeps: the user-independent head (item-json.ts, itemFragment) and the body.
  const fragments = new Map<number, ItemFragment>();
  for (const it of items) {
    const body = bodies.get(it.itemId);
    if (body === undefined) continue;
    const head = `{"id":"${longItemId(it.itemId)}","crawlTimeMsec":"${Math.floor(it.crawledUs / 1000)}","timestampUsec":"${it.crawledUs}","categories":[`;
    const bytes = Buffer.concat([Buffer.from(head), body]);
    fragments.set(it.itemId, { head: bytes.subarray(0, head.length), body: bytes.subarray(head.length) });
  }
  return { items, bodies, fragments, origins, tags };
}

test('the page written once is byte for byte the page the old builder made', () => {
  const pages = new PageBuffers(2, 64 * 1024);
  for (const n of [0, 1, 2, 150, 1000]) {
    const { items, bodies, fragments, origins, tags } = fixture(n);
    for (const continuation of [undefined, 'Y29udGludWU']) {
      const env: StreamEnvelope = {
        id: 'user/-/label/Nouvelles 📰',
        title: 'Nouvelles "📰"',
        selfHref: 'http://127.0.0.1:1/reader/api/0/stream/contents?n=1000&c=é',
        updatedUs: 1_764_000_000_123_456,
        continuation,
      };
      const expected = oldStreamContentsJson(env, oldItemsJson(items, bodies, origins, tags));
      const rendered = renderItems(
        items,
        items.map((it) => fragments.get(it.itemId)),
        (feedId) => origins.get(feedId),
        tags,
      );
      assert.ok(streamContentsJson(env, rendered).equals(expected), `n=${n}, continuation ${continuation}`);
      // Through reused buffers (bigger than the page, left over from an earlier one): the same bytes.
      const taken = pages.take(expected.length);
      taken.buf.fill(0x7b);
      assert.ok(streamContentsJson(env, rendered, () => taken.buf).equals(expected), `n=${n}, reused buffer`);
      taken.release();
      JSON.parse(expected.toString());
    }
  }
});

test('PageBuffers gives a buffer back for reuse only when released, keeps a few, and not the huge ones', () => {
  const pages = new PageBuffers(2, 1 << 20);
  const a = pages.take(1000);
  const b = pages.take(1000);
  assert.notEqual(a.buf, b.buf, 'a buffer in use is not handed out again');
  a.release();
  a.release();
  assert.equal(pages.take(500).buf, a.buf, 'a released buffer is reused');
  const huge = pages.take(2 << 20);
  assert.ok(huge.buf.length >= 2 << 20);
  huge.release();
  assert.equal(pages.byteSize, 0, 'a page bigger than maxBytes is not kept');
  b.release();
  assert.equal(pages.byteSize, b.buf.length);
});

test('pages served at once, from reused buffers, are each exactly the page served alone', async () => {
  const h = await startHarness();
  try {
    await addUser(h.app, 'pages', 'correct horse battery');
    const token = await clientLogin(h.url, 'pages@example.org', 'correct horse battery');
    const c = new ReaderClient(h.url, `GoogleLogin auth=${token}`);
    // Big bodies: a page of a few MB, more than a socket takes at once, so it is sent over many turns.
    for (const [name, n] of [
      ['big-a', 120],
      ['big-b', 60],
    ] as const) {
      const items = h.feeds.addItems(name, n, name);
      for (const it of items) it.html = `<p>${name} ${it.guid} ${'lorem ipsum dolor sit amet '.repeat(1200)}</p>`;
      const r = await c.post('subscription/quickadd', [['quickadd', h.feeds.url(name)]]);
      assert.equal(r.status, 200, r.text);
    }
    const ids = (
      await c.get('stream/items/ids', [
        ['s', S.readingList],
        ['n', '1000'],
      ])
    ).json<{
      itemRefs: { id: string }[];
    }>().itemRefs;
    assert.equal(ids.length, 180);
    const paths = [
      `stream/contents/${encodeURIComponent(`feed/${h.feeds.url('big-a')}`)}?n=1000`,
      `stream/contents/${encodeURIComponent(`feed/${h.feeds.url('big-b')}`)}?n=1000`,
      `stream/items/contents?${ids.map((r) => `i=${r.id}`).join('&')}`,
    ];
    const get = async (path: string, slow: boolean) => {
      const res = await request(`${h.url}/reader/api/0/${path}`, {
        headers: { authorization: `GoogleLogin auth=${token}` },
      });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) {
        chunks.push(chunk as Buffer);
        // A slow reader keeps its response in the server's socket while other pages are written.
        if (slow) await new Promise((r) => setTimeout(r, 1));
      }
      assert.equal(res.statusCode, 200);
      return Buffer.concat(chunks);
    };
    const alone = [];
    for (const p of paths) alone.push(await get(p, false));
    assert.ok(alone[0]!.length > 2_000_000, `a big page (${alone[0]!.length} bytes)`);
    const together = await Promise.all(Array.from({ length: 9 }, (_, k) => get(paths[k % 3]!, k % 2 === 0)));
    for (const [k, page] of together.entries()) assert.ok(page.equals(alone[k % 3]!), `response ${k} intact`);
    JSON.parse(alone[2]!.toString());
  } finally {
    await h.close();
  }
});
