// The README's quick-start commands, parsed from README.md and run as written (by bash, in a temp
// folder, with TIDINGS_DATA pointing at a temp data folder), so the docs and the code cannot drift
// apart again (the example password once failed the 8-character minimum).
//
// Only what cannot run here is adapted, and each adaptation is listed: `npx tidings` runs this
// checkout's bin/tidings.js (npx would resolve the same bin, slower); the https URLs given to
// `feed add` (and named again by `feed set` and `rule add --feed`) and those in subscriptions.opml are served by a local HTTP server (same host and path
// under http://127.0.0.1:<port>/<host>/…); `model pull <catalogue name>` downloads from that server
// too (TIDINGS_MODELS_HUB_URL, into a temp TIDINGS_MODELS_DIR: a file with a GGUF header); placeholders <token-or-id> and <key-id> get a real token
// and key; the user a `user remove` line removes is created first; lines needing an LLM server, a running HTTP server (curl) or a question left as "…" are
// skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SQLITE_ONLY, tempDataDir } from './helpers.ts';
import { startFeedServer, rss } from './feeds-fixtures.ts';
import { CATALOGUE } from '../src/models/index.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Commands of the README's ```sh blocks that call tidings, with the trailing comment dropped. */
export function readmeTidingsCommands(readme: string): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.trim())
    .filter((l) => /(^|\$\()npx tidings /.test(l));
}

// An environment prefix (`TIDINGS_LLM_BASE_URL=… npx tidings …`) needs a server; `KEY=$(…)` is an assignment.
const runnable = (cmd: string) => !cmd.includes('…') && !/^[A-Z_]+=(?!\$\()\S* /.test(cmd) && !cmd.startsWith('curl');

// Some 25 commands, each a new process: minutes on a loaded machine, hence the long time limit.
test('the README quick-start commands run as written', { timeout: 600_000, skip: SQLITE_ONLY }, async () => {
  const commands = readmeTidingsCommands(README);
  assert.ok(
    commands.some((c) => c.startsWith('npx tidings user add alice --password')),
    'the README creates a user',
  );
  const feeds = await startFeedServer();
  const local = (url: string) => url.replace(/^https?:\/\//, `${feeds.base}/`);
  const html = (body: string) => (_: unknown, res: import('node:http').ServerResponse) => {
    res.setHeader('content-type', 'text/html');
    res.end(body);
  };
  const feed = (title: string) => (_: unknown, res: import('node:http').ServerResponse) => {
    res.setHeader('content-type', 'application/rss+xml');
    res.end(
      rss(title, [
        { guid: `${title}-1`, title: `${title}: Artemis update` },
        { guid: `${title}-2`, title: `${title}: launch` },
      ]),
    );
  };
  feeds.routes.set('/www.nasa.gov/rss/dyn/lg_image_of_the_day.rss', feed('NASA Image of the Day'));
  feeds.routes.set(
    '/example.org/blog/',
    html(
      '<html><head><link rel="alternate" type="application/rss+xml" href="/example.org/blog/feed.xml"></head><body>blog</body></html>',
    ),
  );
  feeds.routes.set('/example.org/blog/feed.xml', feed('Example blog'));
  feeds.routes.set('/opml.example/a.xml', feed('From OPML'));
  for (const m of CATALOGUE)
    feeds.routes.set(`/${m.repo}/resolve/main/${m.file}`, (_: unknown, res: import('node:http').ServerResponse) => {
      const body = Buffer.alloc(4096);
      body.write('GGUF', 0, 'latin1');
      body.writeUInt32LE(3, 4);
      body.writeBigUInt64LE(1n, 8);
      res.setHeader('content-length', String(body.length));
      res.end(body);
    });
  try {
    const cwd = tempDataDir('tidings-readme-cwd-');
    const data = tempDataDir('tidings-readme-data-');
    writeFileSync(
      join(cwd, 'subscriptions.opml'),
      `<?xml version="1.0"?><opml version="2.0"><head><title>subs</title></head><body>
      <outline text="News"><outline type="rss" text="From OPML" xmlUrl="${local('https://opml.example/a.xml')}"/></outline></body></opml>`,
    );
    const script = [
      'set -euo pipefail',
      `npx() { if [ "$1" = tidings ]; then shift; node ${JSON.stringify(join(ROOT, 'bin/tidings.js'))} "$@"; else command npx "$@"; fi; }`,
      'trap \'echo "README command failed: $BASH_COMMAND" >&2\' ERR',
    ];
    const ran: string[] = [];
    for (const cmd of commands) {
      if (!runnable(cmd)) continue;
      let line = cmd.replace(
        /(feed add \S+ |feed set \S+ |--feed )(https?:\/\/\S+)/g,
        (_, pre: string, url: string) => pre + local(url),
      );
      if (line.includes('<token-or-id>')) {
        script.push('TOKEN=$(npx tidings token create alice)');
        line = line.replace('<token-or-id>', '"$TOKEN"');
      }
      line = line.replace('<key-id>', '"$KEY"');
      const removed = /tidings user remove (\S+)/.exec(line);
      if (removed) script.push(`npx tidings user add ${removed[1]} --password 'another secret'`);
      assert.ok(!/<[a-z-]+>/.test(line.replace(/\s#\s.*$/, '')), `a placeholder the test does not fill: ${line}`);
      ran.push(cmd);
      script.push(line);
    }
    // Asynchronous: the feed server answers from this process's event loop.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn('bash', ['-c', script.join('\n')], {
        cwd,
        env: {
          ...process.env,
          TIDINGS_DATA: data,
          TIDINGS_MODELS_DIR: join(data, 'models'),
          TIDINGS_MODELS_HUB_URL: feeds.base,
          TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
          TIDINGS_LOG_LEVEL: 'silent',
        },
      });
      let stdout = '',
        stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    assert.equal(r.status, 0, `README commands failed:\n${r.stderr}\n${r.stdout}`);
    // Every block the quick start promises ran: users, feeds, OPML, refresh, export, OAuth, tokens, keys, ask.
    for (const sub of [
      'user add',
      'feed add',
      'opml import',
      'refresh',
      'feed list',
      'opml export',
      'oauth-client add',
      'token revoke',
      'ask',
      'key create',
      'key approve',
      'usage',
      '--version',
      'backup',
      'prune',
      'user remove',
      'model pull',
      'model list',
    ]) {
      assert.ok(
        ran.some((c) => c.includes(`tidings ${sub}`)),
        `the test ran no "tidings ${sub}" line`,
      );
    }
    assert.match(r.stdout, /created user alice/);
    assert.match(r.stdout, /pulled qwen2\.5-1\.5b \(4\.0 KiB, sha256 [0-9a-f]{64}\)/);
    assert.match(r.stdout, /\* qwen2\.5-1\.5b +present/);
    assert.match(r.stdout, /refreshed \d feed\(s\) in .* 0 failed;/);
    const exported = readFileSync(join(cwd, 'out.opml'), 'utf8');
    for (const t of ['NASA Image of the Day', 'Example blog', 'From OPML'])
      assert.ok(exported.includes(t), `out.opml lacks ${t}`);
    assert.ok(existsSync(join(data, 'tidings.db')), 'the data went to TIDINGS_DATA');
    assert.match(r.stdout, /revoked token \d+/);
    assert.ok(existsSync(join(cwd, 'tidings-backup.db')), 'the backup was written');
  } finally {
    await feeds.close();
  }
});
