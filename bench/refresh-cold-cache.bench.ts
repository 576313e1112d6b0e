// `tidings refresh --all` on a cold compile cache (a checkout's first run after a clone, a `git
// pull`, a new Node, a cleared temp folder), this checkout against another (--compare DIR),
// alternating, the order flipped each round: each run on an empty compile cache and a fresh data
// folder whose user subscribes to --feeds feeds of 20 items served from 127.0.0.1 by this process.
// A preloaded probe reports at exit the peak RSS of the image that refreshed (VmHWM: since its
// last exec, so after a start-over the image that did the work) and whether its main thread had
// the TypeScript stripper; /usr/bin/time gives the CPU (user + system, both images) and the max
// RSS over both images (the kernel keeps the larger across an exec).
//
//   node bench/refresh-cold-cache.bench.ts --compare /path/to/other/checkout [--feeds 200] [--rounds 2] [--warm]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from './backend.ts';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { testSql } from '../src/store/testing.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const COMPARE = flagValue(process.argv, 'compare');
const FEEDS = Number(flagValue(process.argv, 'feeds') ?? 200);
const ROUNDS = Number(flagValue(process.argv, 'rounds') ?? 2);
/** --warm: each checkout on a compile cache of its own, warmed by an unmeasured run first (the reference: no stripper anywhere). */
const WARM = process.argv.includes('--warm');
if (!COMPARE) {
  console.error('usage: node bench/refresh-cold-cache.bench.ts --compare DIR [--feeds 200] [--rounds 2]');
  process.exit(2);
}
const feed = (n: number) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${n}</title><link>http://127.0.0.1/</link>${Array.from(
    { length: 20 },
    (_, i) =>
      `<item><title>Feed ${n} item ${i}</title><link>http://127.0.0.1/${n}/${i}</link><guid>${n}-${i}</guid><pubDate>${new Date(Date.UTC(2026, 0, 1 + i)).toUTCString()}</pubDate><description>&lt;p&gt;Paragraph ${i} of feed ${n}, with a few more words to index and to sanitize.&lt;/p&gt;</description></item>`,
  ).join('')}</channel></rss>`;
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/rss+xml' });
  res.end(feed(Number(/\d+/.exec(req.url ?? '')?.[0] ?? 0)));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;
const dir = mkdtempSync(join(tmpdir(), 'tidings-refresh-cold-'));
const probe = join(dir, 'probe.mjs');
writeFileSync(
  probe,
  "process.on('exit', () => { const s = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8'); process.getBuiltinModule('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ hwm: Number(/VmHWM:\\s+(\\d+)/.exec(s)[1]) / 1024, stripper: process.moduleLoadList.some((m) => m.endsWith('internal/deps/amaro/dist/index')) })); });",
);

async function dataFolder(): Promise<string> {
  const data = mkdtempSync(join(dir, 'data-'));
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent' } }));
  const user = await app.users.create('bench', 'bench-password');
  for (let n = 0; n < FEEDS; n++) {
    const f = await testSql(app)
      .prepare('INSERT INTO feeds (url, title, created_at) VALUES (?, ?, 0) RETURNING id')
      .get<{ id: number }>(`http://127.0.0.1:${port}/feed/${n}.xml`, `Feed ${n}`);
    await app.store.subscriptions.subscribe(user.id, Number(f!.id));
  }
  await app.close();
  return data;
}

function run(root: string, data: string, out: string): Promise<{ cpu: number; maxRss: number; wall: number }> {
  const t0 = performance.now();
  const times = join(dir, 'time.txt');
  const child = spawn(
    '/usr/bin/time',
    ['-o', times, '-f', '%U %S %M', process.execPath, join(root, 'bin/tidings.js'), '--data', data, 'refresh', '--all'],
    {
      env: {
        ...process.env,
        TIDINGS_LOG_LEVEL: 'warn',
        TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
        NODE_COMPILE_CACHE: join(dir, WARM ? `cache-${root.replace(/\W/g, '-')}` : `cache-${Math.random()}`),
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${probe}`,
        PROBE_OUT: out,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((r, reject) =>
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${root}: refresh exited with ${code}: ${stderr.slice(-2000)}`));
      const [user, sys, maxKb] = readFileSync(times, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
      r({ cpu: user! + sys!, maxRss: maxKb! / 1024, wall: performance.now() - t0 });
    }),
  );
}

console.log(
  `node bench/refresh-cold-cache.bench.ts --compare ${COMPARE} --feeds ${FEEDS} --rounds ${ROUNDS}${WARM ? ' --warm' : ''} (load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})\n`,
);
console.log(
  '| round | checkout | CPU s | wall s | peak RSS MB of the refreshing image | max RSS MB, both images | stripper in its main thread | load |',
);
console.log('|---|---|---|---|---|---|---|---|');
try {
  if (WARM) for (const root of [ROOT, resolve(COMPARE)]) await run(root, await dataFolder(), join(dir, 'probe.json'));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const root of round % 2 ? [ROOT, resolve(COMPARE)] : [resolve(COMPARE), ROOT]) {
      const data = await dataFolder();
      const out = join(dir, 'probe.json');
      const r = await run(root, data, out);
      const p = JSON.parse(readFileSync(out, 'utf8')) as { hwm: number; stripper: boolean };
      console.log(
        `| ${round} | ${root === ROOT ? 'this' : root} | ${r.cpu.toFixed(1)} | ${(r.wall / 1000).toFixed(1)} | ${p.hwm.toFixed(0)} | ${r.maxRss.toFixed(0)} | ${p.stripper ? 'yes' : 'no'} | ${loadavg()[0]!.toFixed(2)} |`,
      );
    }
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
