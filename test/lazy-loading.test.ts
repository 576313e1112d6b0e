// The server's main thread loads heavy libraries only when it uses them (BENCHMARKS.md, Memory):
// the feed parser and sanitizer run on parse workers, Readability only for full text and web
// search, the tokenizer only to count answer tokens, the OpenAI client only with an upstream LLM,
// pino-pretty only for human-readable logs, undici only once a feed is fetched. A static import of
// any of them would quietly add its heap to every idle server; this starts one and lists the
// packages it loaded. (`tidings serve` reads the token vocabulary's data file before it listens,
// on purpose: read on the first answer, it held every request; src/cli/commands/serve.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDataDir } from './helpers.ts';

const LAZY = [
  'feedsmith',
  'sanitize-html',
  'linkedom',
  '@mozilla/readability',
  'gpt-tokenizer',
  'openai',
  'pino-pretty',
];

test('an idle server has not loaded the parser, sanitizer, Readability, tokenizer, LLM client, pretty logger or HTTP client', {
  timeout: 120_000,
}, () => {
  // Records every module URL loaded (module.registerHooks runs in this thread, before the app).
  const hook = `data:text/javascript,${encodeURIComponent(
    "import { registerHooks } from 'node:module'; globalThis.loadedUrls = new Set(); registerHooks({ load(url, ctx, next) { globalThis.loadedUrls.add(url); return next(url, ctx); } });",
  )}`;
  const script = `
    const { loadConfig } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/config/config.ts')).href)});
    const { createApp } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/server/create-app.ts')).href)});
    const { startServer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/server/server.ts')).href)});
    const { startScheduler } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/feeds/scheduler/scheduler.ts')).href)});
    const { silentLogger } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/log/logger.ts')).href)});
    const config = loadConfig({ env: { TIDINGS_DATA: ${JSON.stringify(tempDataDir())}, TIDINGS_PORT: '0', TIDINGS_HOST: '127.0.0.1' } });
    const app = await createApp(config, silentLogger);
    const { url } = await startServer(app);
    startScheduler(app);
    await (await fetch(url + '/healthz')).text();
    await (await fetch(url + '/metrics')).text();
    await app.close();
    const packages = new Set([...globalThis.loadedUrls].map((u) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(u)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...packages]));
  `;
  const r = spawnSync(process.execPath, ['--import', hook, '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  assert.equal(r.status, 0, r.stderr);
  const loaded: string[] = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.ok(loaded.includes('fastify'), `the hook saw the server's packages: ${loaded.join(', ')}`);
  assert.deepEqual(
    LAZY.filter((p) => loaded.includes(p)),
    [],
  );
});

test('tidings serve loads only its own command, no schema compiler, and its supervisor no domain code; start-up garbage is collected', {
  timeout: 120_000,
}, async () => {
  const dir = tempDataDir();
  const log = join(dir, 'loaded.txt');
  // Each process (the supervisor and its workers inherit --import) appends "pid<TAB>url" per module.
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs'; registerHooks({ load(url, ctx, next) { appendFileSync(${JSON.stringify(log)}, process.pid + '\\t' + url + '\\n'); return next(url, ctx); } });`,
  )}`;
  const child = spawn(process.execPath, ['--import', hook, join(ROOT, 'bin/tidings.js'), 'serve', '--workers', '2'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TIDINGS_DATA: dir,
      TIDINGS_PORT: '0',
      TIDINGS_HOST: '127.0.0.1',
      TIDINGS_LOG_LEVEL: 'info',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d;
        const m = /"url":"([^"]+)"[^\n]*"msg":"tidings is serving"/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err.slice(-2000)}`)));
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const young = Number(/^tidings_nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(metrics)?.[1]);
    // 16 MB (two 8 MB semi-spaces) until V8's memory reducer runs ~20 s later, without the collection.
    assert.ok(young > 0 && young <= 8 * 1024 * 1024, `young generation after start: ${young} bytes`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const byPid = new Map<string, string[]>();
  for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
    const [pid, url] = line.split('\t') as [string, string];
    byPid.set(pid, [...(byPid.get(pid) ?? []), url]);
  }
  const supervisor = byPid.get(String(child.pid));
  assert.ok(supervisor, 'the supervisor (same pid after the relaunch) recorded its modules');
  assert.equal(byPid.size, 3, 'a supervisor and two workers');
  for (const [pid, urls] of byPid) {
    const who = pid === String(child.pid) ? 'supervisor' : `worker ${pid}`;
    const commands = urls.filter((u) => u.includes('/src/cli/commands/')).map((u) => u.slice(u.lastIndexOf('/') + 1));
    assert.deepEqual(commands, ['serve.ts'], `${who}: CLI command modules`);
    // (Fastify's precompiled error serializer uses fast-json-stringify/lib/serializer.js: tiny.)
    const compilers = urls.filter((u) =>
      /node_modules\/(ajv|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler)\/|fast-json-stringify\/index\.js/.test(
        u,
      ),
    );
    assert.deepEqual(compilers, [], `${who}: Fastify's schema compilers`);
  }
  const domain = supervisor.filter((u) =>
    /\/src\/(rules|webhooks|reader-api|chat-api|web|answer|search|feeds)\/|node_modules\/fastify\//.test(u),
  );
  assert.deepEqual(domain, [], 'the supervisor serves nothing: no HTTP server, API, feed, search or answer code');
});

test('every command of the CLI is there when the CLI loads only the module of the command it runs', async () => {
  const { buildProgram } = await import('../src/cli/main.ts');
  const ctx = {
    config: () => assert.fail('not run'),
    app: async () => assert.fail('not run'),
    out: () => undefined,
  };
  const all = (await buildProgram(ctx)).commands.map((c) => c.name());
  assert.ok(all.includes('serve') && all.includes('user') && all.length > 10, all.join(' '));
  for (const name of all) {
    const only = (await buildProgram(ctx, name)).commands.map((c) => c.name());
    assert.ok(only.includes(name), `tidings ${name}: registered ${only.join(', ')}`);
    assert.ok(only.length < all.length / 2, `tidings ${name} loads only its own module: ${only.join(', ')}`);
  }
});
