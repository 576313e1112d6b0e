// Answer quality with and without full text (`node bench/fulltext-answers.bench.ts [questions]`).
// The news corpus (../shared/corpus/news) served as 20 *teaser* feeds from a local server: each
// item carries only the article's first sentence, its link is a local page holding the whole
// article inside site chrome. Two Apps ingest the same feeds, one with full text off (the
// baseline: answers can only quote teasers), one with full text on (pages fetched and extracted).
// Every question is answered by the built-in extractive engine (model sonar) in each, judged by
// ../shared/tools/answer-eval.py (citations mapped back to the articles' real URLs).
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { tempDataDir, SHARED } from '../test/helpers.ts';
import { feedEngine, refreshDue } from '../src/feeds/index.ts';
import { fullTextStore } from '../src/feeds/fulltext/fulltext.ts';
import { answerService } from '../src/answer/service.ts';
import { toCompletionObject } from '../src/chat-api/completion-object.ts';
import { hasNews, NEWS_DIR, readArticles, readQuestions } from '../src/answer/testing/news-corpus.ts';
import { testSql } from '../src/store/testing.ts';

if (!hasNews) {
  console.log(`skipped: ${NEWS_DIR} is not present`);
  process.exit(0);
}
const FEEDS = 20;
const articles = readArticles();
const questions = readQuestions().slice(0, Number(process.argv[2] ?? Infinity));
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const firstSentence = (text: string) =>
  /^[\s\S]{20,300}?[.!?](?=\s|$)/.exec(text.trim())?.[0] ?? text.trim().slice(0, 200);

const server = http.createServer((req, res) => {
  const feed = /^\/feeds\/(\d+)\.xml$/.exec(req.url ?? '');
  if (feed) {
    const k = Number(feed[1]);
    const items = articles
      .map((a, i) => ({ a, i }))
      .filter(({ i }) => i % FEEDS === k)
      .map(({ a, i }) => {
        const d = a.published
          ? new Date(a.published.replace(/\//g, '-') + 'T12:00:00Z')
          : new Date(Date.UTC(2026, 0, 1));
        return (
          `<item><title>${esc(a.title)}</title><link>${base}/a/${i}</link><guid isPermaLink="false">${esc(a.url)}</guid>` +
          `<pubDate>${(Number.isNaN(d.getTime()) ? new Date(Date.UTC(2026, 0, 1)) : d).toUTCString()}</pubDate><description>${esc(firstSentence(a.text))}</description></item>`
        );
      })
      .join('');
    res
      .writeHead(200, { 'content-type': 'application/rss+xml' })
      .end(
        `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>News ${k}</title><link>${base}/</link>${items}</channel></rss>`,
      );
    return;
  }
  const art = /^\/a\/(\d+)$/.exec(req.url ?? '');
  const a = art ? articles[Number(art[1])] : undefined;
  if (a) {
    const paras = a.text
      .split('\n')
      .filter((p) => p.trim())
      .map((p) => `<p>${esc(p)}</p>`)
      .join('\n');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>${esc(a.title)}</title></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/business">Business</a> <a href="/subscribe">Subscribe</a></nav>
<article><h1>${esc(a.title)}</h1>${paras}</article><footer>Copyright News Corp. Cookie settings. Terms of use.</footer></body></html>`);
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const realUrl = (u: string) => {
  const m = /\/a\/(\d+)$/.exec(u);
  return m && u.startsWith(base) ? articles[Number(m[1])]!.url : u;
};

async function build(fullText: boolean): Promise<{ app: App; ms: number }> {
  const app = await createApp(
    loadConfig({
      env: {},
      overrides: {
        dataDir: tempDataDir('tidings-ftqa-'),
        allowPrivateNetworks: true,
        schedulerEnabled: false,
        fullTextAuto: 'off',
        logLevel: 'silent',
      },
    }),
    silentLogger,
  );
  const { feeds, subscriptions } = feedEngine(app);
  const user = (await app.users.create('bench', 'x')).id;
  for (let k = 0; k < FEEDS; k++) {
    const f = await feeds.create(`${base}/feeds/${k}.xml`);
    await subscriptions.subscribe(user, f.id);
    if (fullText) await fullTextStore(app).setMode(user, f.id, 'on');
  }
  const t = performance.now();
  await refreshDue(app, { all: true });
  return { app, ms: performance.now() - t };
}

async function judge(app: App, label: string): Promise<Record<string, unknown>> {
  const svc = answerService(app);
  const lines: string[] = [];
  for (const q of questions) {
    const t = performance.now();
    const result = await svc.complete({
      model: 'sonar',
      messages: [{ role: 'user', content: q.question }],
      scope: { kind: 'instance' },
      filters: {},
      searchContextSize: 'low',
    });
    const resp = toCompletionObject(result, 'sonar');
    resp.citations = resp.citations.map(realUrl);
    resp.search_results = resp.search_results.map((r) => ({ ...r, url: realUrl(r.url) }));
    lines.push(JSON.stringify({ id: q.id, status: 200, ms: performance.now() - t, resp }));
  }
  const file = join(tempDataDir('tidings-ftqa-'), `${label}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return JSON.parse(
    execFileSync('python3', [join(SHARED, 'tools/answer-eval.py'), NEWS_DIR, file, '--json'], { encoding: 'utf8' }),
  );
}

console.log(
  `answer quality, full text off vs on: ${articles.length} articles as ${FEEDS} teaser feeds, ${questions.length} questions, model sonar (extractive)`,
);
const off = await build(false);
const offScore = await judge(off.app, 'off');
await off.app.close();
console.log(`full text off (teasers only): ingest ${(off.ms / 1000).toFixed(1)} s; ${JSON.stringify(offScore)}`);
const on = await build(true);
const stats = await testSql(on.app).prepare('SELECT status, count(*) AS n FROM item_full_text GROUP BY status').all();
const onScore = await judge(on.app, 'on');
await on.app.close();
console.log(
  `full text on: ingest ${(on.ms / 1000).toFixed(1)} s (pages: ${JSON.stringify(stats)}); ${JSON.stringify(onScore)}`,
);
server.close();
