// Worker thread for bench/feeds.bench.ts: serves N generated RSS feeds (M items each, deterministic,
// the same shape as ../shared/tools/gen-feeds.py) from 127.0.0.1 with ETag, Last-Modified and 304, in its own thread so
// the server's work is not billed to the refresh being measured. Messages: {bump: number[]} adds a
// new item to and edits one item of each listed feed; {stats: true} is answered with
// {answered: {ok, notModified}} (feed answers since the last such message).
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';

const { feeds, items } = workerData as { feeds: number; items: number };
const words = (
  'market policy climate energy election court research science health space rover budget vote storm' +
  ' league transfer museum galaxy vaccine solar battery chip model network ocean river city council' +
  ' festival novel camera reactor treaty port rail bridge satellite coral glacier harvest'
).split(' ');
let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = () => words[Math.floor(rand() * words.length)]!;
const phrase = (n: number) => Array.from({ length: n }, pick).join(' ');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const t0 = Date.UTC(2026, 10, 1);

// BENCH_CONTENT=rich (workerData.rich): bodies shaped like real articles (links, an image with
// width/height, a line break, typographic entities) so they go through sanitize-html, instead of
// the plain paragraphs of gen-feeds.py, which the sanitizer's verbatim fast path passes through.
const rich = Boolean((workerData as { rich?: boolean }).rich);
const richParagraph = (k: number, n: number) =>
  `<p>${phrase(20)} <a href="/post/${n}?ref=feed&amp;k=${k}">${phrase(3)}</a> ${phrase(15)}&#8217;s ${phrase(10)}&nbsp;&mdash; <em>${phrase(4)}</em><br>${phrase(10)}.</p>`;
const body = (k: number, n: number) =>
  rich
    ? `${richParagraph(k, n)}<figure><img src="https://cdn${k}.example/img/${n}.jpg" width="800" height="450" alt="${phrase(3)}"></figure>${richParagraph(k, n + 1)}${richParagraph(k, n + 2)}`
    : Array.from({ length: 3 }, () => `<p>${phrase(60)}.</p>`).join('');

interface Item {
  j: number;
  title: string;
  body: string;
  date: number;
}
const store: Item[][] = [];
for (let k = 0; k < feeds; k++) {
  store.push(
    Array.from({ length: items }, (_, j) => ({
      j,
      title: phrase(7),
      body: body(k, j),
      date: t0 - (j * 3 + (k % 7)) * 3600_000,
    })),
  );
}
const version = new Array<number>(feeds).fill(1);
// A feed's Last-Modified moves with its version (whole seconds, as HTTP dates carry), so clients
// that keep only Last-Modified (If-Modified-Since) get their 304s too.
const lastModified = (k: number) => new Date(t0 + version[k]! * 1000).toUTCString();
// Answers given, by kind, since the last {stats} message: a bench checks with them that an
// "unchanged" refresh was answered 304 feed by feed (a client that skipped the request, or sent no
// validator, shows up as missing or as a 200).
const answered = { ok: 0, notModified: 0 };
// Article and site links point back at this server, which answers 404 at once: the full-text
// teaser check and the favicon look-ups at the end of a refresh then cost what they cost against
// sites that answer, not DNS and connect time-outs for invented domains (95 s of a 100 s first
// refresh of 100 feeds in a sandbox without outside DNS).
let origin = '';
const cache = new Map<number, Buffer>();

function render(k: number): Buffer {
  let b = cache.get(k);
  if (b) return b;
  const its = store[k]!.map(
    (it) =>
      `<item><title>${esc(it.title)}</title><link>${origin}/site${k}/post/${it.j}</link>` +
      `<guid>https://site${k}.example/post/${it.j}</guid><pubDate>${new Date(it.date).toUTCString()}</pubDate>` +
      `<description>${esc(it.body)}</description></item>`,
  ).join('');
  b = Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Site ${k}</title>` +
      `<link>${origin}/site${k}/</link><description>synthetic</description>${its}</channel></rss>`,
  );
  cache.set(k, b);
  return b;
}

const server = http.createServer((req, res) => {
  const m = /^\/feed(\d+)\.xml$/.exec(req.url ?? '');
  const k = m ? Number(m[1]) : -1;
  if (k < 0 || k >= feeds) {
    res.statusCode = 404;
    res.end();
    return;
  }
  const etag = `"${k}-${version[k]}"`;
  const modified = lastModified(k);
  const inm = req.headers['if-none-match'];
  // RFC 9110 13.1.3: If-Modified-Since counts only without If-None-Match.
  if (inm ? inm === etag : req.headers['if-modified-since'] === modified) {
    answered.notModified++;
    res.writeHead(304, { etag, 'last-modified': modified });
    res.end();
    return;
  }
  answered.ok++;
  const body = render(k);
  res.writeHead(200, {
    'content-type': 'application/rss+xml',
    etag,
    'last-modified': modified,
    'content-length': body.length,
  });
  res.end(body);
});
server.keepAliveTimeout = 30_000;
// workerData.hosts > 1: the same feeds are also served on that many loopback addresses
// (127.0.1.1 … 127.0.1.250, then 127.0.2.1 …; Linux answers on all of 127/8), so a refresh can
// spread feeds over several hosts, as real subscriptions are (feed claims keep one host to one
// process at a time).
const hosts = Number((workerData as { hosts?: number }).hosts ?? 1);
const extra =
  hosts > 1 ? Array.from({ length: hosts }, (_, h) => `127.0.${1 + Math.floor(h / 250)}.${(h % 250) + 1}`) : [];
const listenOn = (s: http.Server, address: string, port = 0) =>
  new Promise<string>((r) => s.listen(port, address, () => r(`${address}:${(s.address() as AddressInfo).port}`)));
const others = extra.map(() => {
  const s = http.createServer(server.listeners('request')[0] as http.RequestListener);
  s.keepAliveTimeout = 30_000;
  return s;
});
// workerData.port: a fixed port (a data folder loaded from these feeds by an earlier run names it).
Promise.all([
  listenOn(server, '127.0.0.1', Number((workerData as { port?: number }).port ?? 0)),
  ...others.map((s, h) => listenOn(s, extra[h]!)),
]).then(([main]) => {
  origin = `http://${main}`;
  parentPort!.postMessage({
    port: (server.address() as AddressInfo).port,
    hosts: others.map((s, h) => `${extra[h]}:${(s.address() as AddressInfo).port}`),
    bytes: Array.from({ length: feeds }, (_, k) => render(k).length).reduce((a, b) => a + b, 0),
  });
});
parentPort!.on('message', (m: { bump?: number[]; close?: boolean; stats?: boolean }) => {
  if (m.stats) {
    parentPort!.postMessage({ answered: { ...answered } });
    answered.ok = answered.notModified = 0;
    return;
  }
  if (m.close) {
    for (const s of others) s.closeAllConnections();
    server.closeAllConnections();
    server.close(() => process.exit(0));
    return;
  }
  for (const k of m.bump ?? []) {
    const list = store[k]!;
    list.unshift({
      j: list.length + version[k]! * 1000,
      title: phrase(7),
      body: `<p>${phrase(60)}.</p>`,
      date: t0 + version[k]! * 3600_000,
    });
    list[3] = { ...list[3]!, body: list[3]!.body + '<p>Update: corrected.</p>' };
    version[k]!++;
    cache.delete(k);
  }
  parentPort!.postMessage({ bumped: m.bump?.length ?? 0 });
});
