// Worker thread for bench/fulltext.bench.ts: serves `feeds` teaser feeds of `items` items each, and
// the article page behind every item, on 0.0.0.0 so that 127.0.0.1 … 127.0.0.<hosts> are distinct
// hosts for the fetcher. Counts requests and the most requests in flight per host, in its own
// thread so serving is not billed to the refresh being measured. Message {stats:true} -> stats.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';

const { feeds, items, hosts, pageDelayMs } = workerData as {
  feeds: number;
  items: number;
  hosts: number;
  pageDelayMs: number;
};
const words = (
  'orbit lunar module telemetry booster payload thermal shield docking crew capsule ascent market policy climate energy' +
  ' election court research science health budget storm league museum galaxy vaccine solar battery chip network ocean'
).split(' ');
let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const phrase = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]!).join(' ');

// One article template per (feed, item), generated once: ~35 KB, with the script, style, navigation
// and footer weight of a real news page around ~1,200 words of article.
const noise = `<script>${'var x=1;'.repeat(1500)}</script><style>${'.a{color:red}'.repeat(600)}</style>`;
const pages = new Map<string, string>();
function page(f: number, i: number): string {
  const key = `${f}/${i}`;
  let p = pages.get(key);
  if (!p) {
    const paras = Array.from({ length: 12 }, () => `<p>${phrase(100)}.</p>`).join('\n');
    p = `<!doctype html><html><head><meta charset="utf-8"><title>Feed ${f} article ${i}</title>${noise}</head><body>
<nav>${Array.from({ length: 30 }, (_, k) => `<a href="/s/${k}">Section ${k}</a>`).join(' ')}</nav>
<main><article><h1>Feed ${f} article ${i}</h1>${paras}</article></main>
<aside>${Array.from({ length: 10 }, (_, k) => `<a href="/r/${k}">Related ${phrase(5)}</a>`).join('<br>')}</aside>
<footer>© Bench Media ${phrase(20)}</footer></body></html>`;
    pages.set(key, p);
  }
  return p;
}

function rss(f: number, host: string): string {
  const entries = Array.from(
    { length: items },
    (_, i) =>
      `<item><guid>f${f}-i${i}</guid><title>Feed ${f} article ${i}</title>` +
      `<link>http://${host}/a/${f}/${i}</link><description>${phrase(25)}…</description>` +
      `<pubDate>${new Date(Date.UTC(2026, 10, 1) + (f * items + i) * 60_000).toUTCString()}</pubDate></item>`,
  ).join('');
  return `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Teaser feed ${f}</title><link>http://${host}/</link>${entries}</channel></rss>`;
}

const requestsByHost = new Map<string, number>();
const pagesByHost = new Map<string, number>();
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();

const server = http.createServer((req, res) => {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  requestsByHost.set(host, (requestsByHost.get(host) ?? 0) + 1);
  const now = (inFlight.get(host) ?? 0) + 1;
  inFlight.set(host, now);
  maxInFlight.set(host, Math.max(maxInFlight.get(host) ?? 0, now));
  const done = () => inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
  res.on('close', done);
  const feed = /^\/feeds\/(\d+)\.xml$/.exec(req.url ?? '');
  if (feed) {
    res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rss(Number(feed[1]), req.headers.host ?? host));
    return;
  }
  const art = /^\/a\/(\d+)\/(\d+)$/.exec(req.url ?? '');
  if (art) {
    pagesByHost.set(host, (pagesByHost.get(host) ?? 0) + 1);
    const body = page(Number(art[1]), Number(art[2]));
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), pageDelayMs);
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, '0.0.0.0', () => {
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port, feeds, hosts });
});
parentPort!.on('message', (m: { stats?: boolean; reset?: boolean }) => {
  if (m.reset) {
    requestsByHost.clear();
    pagesByHost.clear();
    maxInFlight.clear();
    return;
  }
  if (m.stats)
    parentPort!.postMessage({
      stats: {
        requests: Object.fromEntries(requestsByHost),
        pages: Object.fromEntries(pagesByHost),
        maxInFlight: Object.fromEntries(maxInFlight),
      },
    });
});
