// The hostile inputs of issue 25 (CPU work on untrusted input holding the server's one thread),
// shared by the guard test (test/freeze-guard.test.ts) and its bench (bench/freeze.bench.ts): a
// local origin serving crafted feeds and pages, the data they need (a user, an API key, an
// article with a 120,000-character unbroken run), each attack as one request, and the /healthz
// poll that measures how long the server was held while it ran.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApp } from './chat-api-helpers.ts';
import { Browser } from './web-api-client.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { addFeed, ingest, subscribe } from '../src/search/testing/fixtures.ts';
import { feedEngine } from '../src/feeds/services.ts';

export const PASSWORD = 'correct horse battery';

// RSS person fields of unbalanced '(' (feedsmith's person parsing is quadratic in them): 132 KB
// froze the server for 14.8 s via quickadd, 8.7 s via discover, 5.7 s via subscribe.
const PARENS = '('.repeat(132_000);
const craftedFeed = (title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>https://example.org/</link>` +
  `<description>d</description><managingEditor>${PARENS}</managingEditor><webMaster>${PARENS}</webMaster>` +
  `<item><title>One</title><link>https://example.org/1</link><guid>1</guid><author>${PARENS}</author></item>` +
  '</channel></rss>';
// A page announcing a crafted feed (discovery), and an OPML file listing 2,000 of them with long titles.
const page = (feedPath: string) =>
  `<!doctype html><html><head><title>Site</title><link rel="alternate" type="application/rss+xml" href="${feedPath}">` +
  `</head><body>${'<p>Some text of the page.</p>'.repeat(20_000)}</body></html>`;
const opml = (base: string) =>
  `<?xml version="1.0"?><opml version="2.0"><head><title>${PARENS}</title></head><body>${Array.from(
    { length: 2000 },
    (_, i) => `<outline type="rss" text="${'('.repeat(400)}" xmlUrl="${base}/crafted-opml.xml?n=${i}"/>`,
  ).join('')}</body></opml>`;
// An article with a 120,000-character unbroken run (16 s per chat question citing it).
const RUN_ARTICLE = `<p>The Zorblax harbor bridge opened on Monday after nine years of work, the city said.</p><p>${'M'.repeat(120_000)}</p>`;
const CITING_QUESTION = 'When did the Zorblax harbor bridge open?';

/** The attacker's web server: crafted feeds at /crafted*, a page announcing one at /page.html. */
export async function startHostileOrigin(): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/ordinary.xml') {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Ordinary</title><link>https://example.org/</link>' +
          '<description>d</description><managingEditor>jane@example.org (Jane Doe)</managingEditor>' +
          '<item><title>One</title><link>https://example.org/1</link><guid>1</guid><description>A normal article.</description></item>' +
          '</channel></rss>',
      );
    } else if (path.startsWith('/crafted')) {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(craftedFeed(path));
    } else if (path === '/page.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      // A new feed URL each time, so that a second discovery parses it again.
      res.end(page(`/crafted-page.xml?${Math.random()}`));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Subscriptions of user bob, the most one user may have twice over (TIDINGS_MAX_FEEDS_PER_USER is 5,000). */
const MANY_FEEDS = 10_000;

/**
 * User alice (PASSWORD) with an API key, subscribed to a feed holding the long-run article; user
 * bob with an API key too, subscribed to 10,000 feeds, each named by him and by itself (a question
 * naming a feed is compared with every name: src/answer/text/feed-asked.ts).
 */
export async function seedData(dataDir: string, base: string): Promise<{ key: string; manyFeedsKey: string }> {
  const app = await openApp(dataDir, { allowPrivateNetworks: true });
  try {
    const user = await app.users.create('alice', await hashPassword(PASSWORD), null);
    const key = (await createApiKey(chatStore(app).keys, user.id, 'test', 5)).key;
    const feedId = await addFeed(app, `${base}/harbor.xml`, 'Harbor news');
    await subscribe(app, user.id, feedId);
    await ingest(app, feedId, [
      { url: 'https://harbor.example/bridge', title: 'Zorblax harbor bridge opens', content: RUN_ARTICLE },
    ]);
    const bob = await app.users.create('bob', await hashPassword(PASSWORD), null);
    const manyFeedsKey = (await createApiKey(chatStore(app).keys, bob.id, 'test', 5)).key;
    const { feeds, subscriptions } = feedEngine(app);
    const many = Array.from({ length: MANY_FEEDS }, (_, i) => ({
      url: `${base}/many-${i}.xml`,
      title: `The Guardian ${'Local Edition '.repeat(20)}${i} | ${'Guardian '.repeat(40)}`,
      siteUrl: null,
    }));
    for (let i = 0; i < many.length; i += 1000) {
      const part = many.slice(i, i + 1000);
      const ids = await feeds.ensureMany(part);
      await subscriptions.subscribeMany(
        bob.id,
        part.map((f, n) => ({ feedId: ids.get(f.url)!, title: `Guardian ${'(('.repeat(100)} ${i + n}`, folders: [] })),
      );
    }
    return { key, manyFeedsKey };
  } finally {
    await app.close();
  }
}

export interface Target {
  /** The Tidings server. */
  url: string;
  /** The hostile origin. */
  base: string;
  key: string;
  /** The API key of a user with 10,000 subscriptions. */
  manyFeedsKey: string;
}

export interface Attack {
  name: string;
  /** One request (new feed URLs each time, so it can be repeated); resolves with its status and the start of its body. */
  run(t: Target, signal: AbortSignal): Promise<string>;
}

async function chat(t: Target, content: string, signal: AbortSignal, key = t.key): Promise<string> {
  const r = await fetch(`${t.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sonar', messages: [{ role: 'user', content }] }),
    signal,
  });
  return `${r.status} ${(await r.text()).slice(0, 120)}`;
}

async function web(t: Target, method: string, path: string, body: unknown, signal: AbortSignal): Promise<string> {
  const b = new Browser(t.url);
  const login = await b.call('POST', '/session', { username: 'alice', password: PASSWORD });
  if (login.status !== 200) throw new Error(`web sign-in: ${login.status} ${login.text}`);
  const h: Record<string, string> = { origin: t.url, cookie: b.cookie, 'x-csrf-token': b.csrf };
  h['content-type'] = typeof body === 'string' ? 'text/xml' : 'application/json';
  const r = await fetch(`${t.url}/api/v1${path}`, {
    method,
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  return `${r.status} ${(await r.text()).slice(0, 120)}`;
}

/** A Reader API POST with a form body (the edit token appended), signed in by ClientLogin. */
async function reader(t: Target, path: string, form: string, signal: AbortSignal): Promise<string> {
  const login = await fetch(`${t.url}/accounts/ClientLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD }),
  });
  const auth = /Auth=(\S+)/.exec(await login.text())?.[1];
  if (!auth) throw new Error(`ClientLogin: ${login.status}`);
  const headers = { authorization: `GoogleLogin auth=${auth}` };
  const T = (await (await fetch(`${t.url}/reader/api/0/token`, { headers })).text()).trim();
  const r = await fetch(`${t.url}/reader/api/0/${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: `${form}&${new URLSearchParams({ T })}`,
    signal,
  });
  return `${r.status} ${(await r.text()).slice(0, 120)}`;
}

const quickadd = (t: Target, feedUrl: string, signal: AbortSignal) =>
  reader(t, 'subscription/quickadd', String(new URLSearchParams({ quickadd: feedUrl })), signal);

/** A form of `count` item ids `i=…`, each `id` long: what the Reader form scanner and id parser take in. */
const idForm = (count: number, id: (n: number) => string) =>
  Array.from({ length: count }, (_, n) => `i=${id(n)}`).join('&');
// Built once, here: built inside an attack, this process's own work would delay its /healthz polls.
const HUGE_ID_FORM = idForm(1_500_000, (n) => String(n).padStart(8, '0'));
const LONG_ID_FORM = `${idForm(400, (n) => `${n % 9}`.repeat(1000))}&${idForm(400, () => '%41'.repeat(340))}`;

/**
 * Ordinary requests of the same kinds: how long they hold the server is the same-run baseline
 * (on a shared, loaded machine an ordinary chat answer alone can take 200 ms of wall time).
 */
export const ORDINARY: Attack[] = [
  { name: 'chat: an ordinary question', run: (t, s) => chat(t, 'What happened at the harbor this week?', s) },
  {
    name: 'web subscribe: an ordinary feed',
    run: (t, s) => web(t, 'POST', '/feeds', { url: `${t.base}/ordinary.xml?${Math.random()}` }, s),
  },
];

export const ATTACKS: Attack[] = [
  { name: 'chat: a message of 80,000 "M"', run: (t, s) => chat(t, `${'M'.repeat(80_000)}?`, s) },
  { name: 'chat: a message of 200,000 "("', run: (t, s) => chat(t, `${'('.repeat(200_000)}?`, s) },
  // "What is the latest X about?" is read by patterns (src/answer/text/latest-asked.ts): a run of
  // spaces after its opening took them O(n^2) and more (348 ms for 1,000 spaces, minutes for 10,000).
  {
    name: 'chat: "what is the latest" and 100,000 spaces',
    run: (t, s) => chat(t, `what is the latest ${' '.repeat(100_000)}x`, s),
  },
  // Roundups and "what did X announce?" are read word by word (src/answer/text/roundup-asked.ts).
  {
    name: 'chat: "what did" then 40,000 words then "announce"',
    run: (t, s) => chat(t, `what did ${'NASA '.repeat(40_000)}announce recently?`, s),
  },
  {
    name: 'chat: "what\'s new" and 100,000 apostrophes',
    run: (t, s) => chat(t, `what's new${"'".repeat(100_000)}?`, s),
  },
  // A question naming a feed is compared word by word with each of the asker's feeds' names
  // (src/answer/text/feed-asked.ts): 10,000 of them, every one opening with the name asked for.
  {
    name: 'chat: "what has the Guardian published?" over 10,000 feeds named Guardian',
    run: (t, s) => chat(t, "What's new from the Guardian?", s, t.manyFeedsKey),
  },
  {
    // 100,000 one-letter words (200 KB, under the 256 KiB conversation limit, so the question is read).
    name: 'chat: "what has" then 100,000 words then "published"',
    run: (t, s) => chat(t, `What has the ${'G '.repeat(100_000)}published?`, s, t.manyFeedsKey),
  },
  { name: 'chat: a message of 1 MiB', run: (t, s) => chat(t, `${'M'.repeat(1024 * 1024)}?`, s) },
  { name: 'chat: a question citing the 120,000-character-run article', run: (t, s) => chat(t, CITING_QUESTION, s) },
  {
    name: 'web Ask: the same question',
    run: (t, s) => web(t, 'POST', '/ask', { question: CITING_QUESTION }, s),
  },
  {
    name: 'Reader quickadd: a crafted feed',
    run: (t, s) => quickadd(t, `${t.base}/crafted-quickadd.xml?${Math.random()}`, s),
  },
  {
    name: 'web subscribe: a crafted feed',
    run: (t, s) => web(t, 'POST', '/feeds', { url: `${t.base}/crafted-web.xml?${Math.random()}` }, s),
  },
  {
    name: 'web discover: a page announcing a crafted feed',
    run: (t, s) => web(t, 'POST', '/feeds/discover', { url: `${t.base}/page.html` }, s),
  },
  {
    name: 'Reader quickadd: a page, its crafted feed discovered',
    run: (t, s) => quickadd(t, `${t.base}/page.html`, s),
  },
  { name: 'web OPML import: 2,000 crafted outlines', run: (t, s) => web(t, 'POST', '/opml', opml(t.base), s) },
  {
    // Near the server's 16 MiB body limit: refused by its size before the form is scanned.
    name: 'Reader items/contents: a 15 MiB form of 1.5 million ids',
    run: (t, s) => reader(t, 'stream/items/contents', HUGE_ID_FORM, s),
  },
  {
    name: 'Reader items/contents: 400 ids of 1,000 digits and 400 of 340 percent-escapes (under the 1 MiB form limit)',
    run: (t, s) => reader(t, 'stream/items/contents', LONG_ID_FORM, s),
  },
];

export interface Measured {
  /** The slowest /healthz answer while the attack ran (ms); Infinity when one never came. */
  worstHealthzMs: number;
  polls: number;
  /** The attack's own time (ms). */
  requestMs: number;
  outcome: string;
}

/**
 * Runs the attack while polling /healthz every 20 ms, and 300 ms more (work a request leaves
 * behind counts too). Past timeoutMs the attack and the poll are abandoned (worst = Infinity).
 */
export async function underAttack(t: Target, attack: Attack, timeoutMs = 120_000): Promise<Measured> {
  const stop = AbortSignal.timeout(timeoutMs);
  let running = true;
  let worst = 0;
  let polls = 0;
  const poller = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await fetch(`${t.url}/healthz`, { signal: stop });
        await r.text();
      } catch {
        worst = Infinity;
        return;
      }
      worst = Math.max(worst, performance.now() - t0);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = performance.now();
  let outcome: string;
  try {
    outcome = await attack.run(t, stop);
  } catch (e) {
    outcome = `failed: ${(e as Error).message}`;
  }
  const requestMs = performance.now() - t0;
  if (!stop.aborted) await new Promise((r) => setTimeout(r, 300));
  running = false;
  await poller;
  return { worstHealthzMs: worst, polls, requestMs, outcome: outcome.replace(/\s+/g, ' ') };
}
